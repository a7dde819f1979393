package org.attn4j.archrules;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rules for the {@code models} module. Apply with {@code ArchTests.in(ModelsRules.class)}.
 *
 * <p>The module's packages form layers, each using only those below it (one rule per layer says which, by naming
 * what it may use, so that a new package is placed before anything may point at it):
 * <pre>
 *   embed, generate               models a user runs: sentence embeddings, reranking; generation and chat  (top)
 *   bert, decoder                 model families: configuration, blocks, forward; neither uses the other
 *   checkpoint                    Checkpoint: looks at a path once, decides what it is, reads its files
 *   tutorial                      the classic texts' attention layers and encoder blocks; used by examples only
 *   layers                        building blocks of encoders and decoders: Linear, Embedding, LayerNorm, RmsNorm
 *   onnx, tokenize, chat,         readers of ONNX graphs, tokenizers, chat templates, JSON grammars over a
 *   grammar, text                 tokenizer's vocabulary, the tutorials' vocabulary
 *   parameters, io                the foundation: host tensors, state dicts, parameters on a backend; safetensors
 *                                 and GGUF files  (bottom)
 * </pre>
 * {@code examples} sits beside the top and nothing uses it.
 */
public final class ModelsRules {
    private static final String ROOT = "org.attn4j.models";
    private static final String[] FOUNDATION = {ROOT + ".parameters..", ROOT + ".io.."};
    private static final String[] READERS = {ROOT + ".onnx..", ROOT + ".tokenize..", ROOT + ".chat..",
        ROOT + ".grammar..", ROOT + ".text.."};
    private static final String LAYERS = ROOT + ".layers..";
    private static final String TUTORIAL = ROOT + ".tutorial..";
    private static final String CHECKPOINT = ROOT + ".checkpoint..";
    private static final String BERT = ROOT + ".bert..";
    private static final String DECODER = ROOT + ".decoder..";
    private static final String EXAMPLES = ROOT + ".examples..";

    private static String[] packages(String[]... groups) {
        return Arrays.stream(groups).flatMap(Arrays::stream).toArray(String[]::new);
    }

    /**
     * @param allowed the packages of {@code models} a class may use
     * @return the classes of {@code models} outside {@code allowed}
     */
    private static DescribedPredicate<JavaClass> modelsClassesOutside(String... allowed) {
        return resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(allowed)))
                .as("reside in models outside " + String.join(", ", allowed));
    }

    /** The foundation points at nothing else in {@code models}. */
    @ArchTest
    public static final ArchRule THE_FOUNDATION_USES_NOTHING_ABOVE_IT = noClasses()
            .that().resideInAnyPackage(FOUNDATION)
            .should().dependOnClassesThat(modelsClassesOutside(FOUNDATION))
            .because("host tensors, state dicts, parameters and the weight files they are read from are what every"
                    + " other package builds on; an arrow back up would tie the foundation to one of its users");

    /** Readers of graphs, tokenizers, chat templates and grammars use the foundation and each other only. */
    @ArchTest
    public static final ArchRule READERS_KNOW_NO_MODEL = noClasses()
            .that().resideInAnyPackage(READERS)
            .should().dependOnClassesThat(modelsClassesOutside(packages(FOUNDATION, READERS)))
            .because("a format or a tokenizer is read the same whichever model uses it");

    /** The building blocks use the api and the foundation's parameters, nothing else. */
    @ArchTest
    public static final ArchRule BUILDING_BLOCKS_USE_ONLY_THE_API_AND_THE_PARAMETERS = classes()
            .that().resideInAPackage(LAYERS)
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.attn4j.api..", LAYERS,
                    ROOT + ".parameters..")
            .because("Linear, Embedding and the norms serve every family, encoder and decoder alike, and take their"
                    + " parameters from a state dict or a backend, whatever file they came from");

    /** The tutorials' layers stand on the blocks and the foundation. */
    @ArchTest
    public static final ArchRule TUTORIAL_LAYERS_STAND_ON_THE_BLOCKS = noClasses()
            .that().resideInAPackage(TUTORIAL)
            .should().dependOnClassesThat(modelsClassesOutside(packages(FOUNDATION, new String[] {LAYERS,
                TUTORIAL})))
            .because("the classic texts' forms teach attention with the same blocks a real model uses");

    /** Only the examples use the tutorials' layers. */
    @ArchTest
    public static final ArchRule ONLY_EXAMPLES_USE_THE_TUTORIALS = noClasses()
            .that().resideOutsideOfPackages(TUTORIAL, EXAMPLES)
            .should().dependOnClassesThat().resideInAPackage(TUTORIAL)
            .because("the classic texts' forms teach attention; a real model's family must not depend on them");

    /**
     * The checkpoint layer reads files with the readers into the foundation's types, and knows no layer, family or
     * model: those are built from it.
     */
    @ArchTest
    public static final ArchRule CHECKPOINTS_POINT_NO_ARROW_UP = noClasses()
            .that().resideInAPackage(CHECKPOINT)
            .should().dependOnClassesThat(modelsClassesOutside(packages(FOUNDATION, READERS,
                new String[] {CHECKPOINT})))
            .because("Checkpoint is the one place that decides what a path is; the families and models it would"
                    + " point at are built from it, so an arrow up would be a cycle");

    /** An encoder family is built from the blocks, the foundation, the readers and checkpoints. */
    @ArchTest
    public static final ArchRule ENCODER_FAMILIES_STAND_ON_BLOCKS_AND_CHECKPOINTS = noClasses()
            .that().resideInAPackage(BERT)
            .should().dependOnClassesThat(modelsClassesOutside(packages(FOUNDATION, READERS,
                new String[] {LAYERS, CHECKPOINT, BERT})))
            .because("an encoder's configuration and forward are what the models above run; what it shares with"
                    + " the decoders belongs in the layers or the foundation below both");

    /** A decoder family is built from the blocks, the foundation, the readers and checkpoints. */
    @ArchTest
    public static final ArchRule DECODER_FAMILIES_STAND_ON_BLOCKS_AND_CHECKPOINTS = noClasses()
            .that().resideInAPackage(DECODER)
            .should().dependOnClassesThat(modelsClassesOutside(packages(FOUNDATION, READERS,
                new String[] {LAYERS, CHECKPOINT, DECODER})))
            .because("a decoder's configuration and forward are what generation runs; what it shares with the"
                    + " encoders belongs in the layers or the foundation below both");

    /** The models a user runs are built from checkpoints, families and readers, never from the tutorials. */
    @ArchTest
    public static final ArchRule MODELS_STAND_ON_FAMILIES = noClasses()
            .that().resideInAnyPackage(ROOT + ".embed..", ROOT + ".generate..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT, TUTORIAL, EXAMPLES)
            .because("a model a user runs is a family's forward fed by a checkpoint; the classic texts' forms teach"
                    + " attention and are no part of it");

    /** Sentence embedding and generation know nothing of each other. */
    @ArchTest
    public static final ArchRule EMBEDDING_AND_GENERATION_ARE_INDEPENDENT = noClasses()
            .that().resideInAPackage(ROOT + ".embed..")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".generate..")
            .because("what they share belongs in a layer below both");

    /** Nothing uses the examples. */
    @ArchTest
    public static final ArchRule NOTHING_USES_THE_EXAMPLES = noClasses()
            .that().resideOutsideOfPackage(EXAMPLES)
            .should().dependOnClassesThat().resideInAPackage(EXAMPLES)
            .because("the examples are walk-throughs to read and run; code that a model needs lives in its layer");

    /** Models run on whatever backend they are given. */
    @ArchTest
    public static final ArchRule MODELS_DO_NOT_DEPEND_ON_A_BACKEND = noClasses()
            .that().resideInAPackage("org.attn4j.models..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.attn4j.backend..", "org.attn4j.tck..", "org.attn4j.cli..")
            .because("a layer must give the same numbers on every backend, so it may only use the api");

    /** Models are user code: they need nothing that only implementers of a backend need. */
    @ArchTest
    public static final ArchRule MODELS_DO_NOT_USE_THE_SPI = noClasses()
            .that().resideInAPackage("org.attn4j.models..")
            .should().dependOnClassesThat().resideInAPackage("org.attn4j.api.spi..")
            .because("org.attn4j.api.spi holds what backend authors reuse; a user of the api never needs it");

    /** A reader meets each class name once: no two top-level classes of {@code models} share a simple name. */
    @ArchTest
    public static final ArchRule EACH_CLASS_NAME_ONCE = classes()
            .that().resideInAPackage(ROOT + "..").and().areTopLevelClasses()
            .and().doNotHaveSimpleName("package-info")
            .should(new ArchCondition<JavaClass>("have a simple name no other class of models has") {
                private final Map<String, List<String>> byName = new HashMap<>();

                @Override
                public void init(Collection<JavaClass> all) {
                    byName.clear();
                    for (JavaClass c : all) {
                        byName.computeIfAbsent(c.getSimpleName(), n -> new ArrayList<>()).add(c.getName());
                    }
                }

                @Override
                public void check(JavaClass c, ConditionEvents events) {
                    List<String> same = byName.getOrDefault(c.getSimpleName(), List.of());
                    if (same.size() > 1) {
                        events.add(SimpleConditionEvent.violated(c, c.getName() + " shares its simple name with "
                                + same.stream().filter(n -> !n.equals(c.getName())).toList()));
                    }
                }
            })
            .because("a name that means two things makes every import a question; one concept, one name");

    private ModelsRules() {
    }
}
