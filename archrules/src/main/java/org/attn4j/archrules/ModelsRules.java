package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

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
 * <p>The module's packages form layers, each using only those below it:
 * <pre>
 *   embed, generate               models a user runs: sentence embeddings, reranking; generation and chat  (top)
 *   bert, decoder                 model families: configuration, blocks, forward
 *   checkpoint                    Checkpoint: looks at a path once, decides what it is, reads its files
 *   tutorial                      the classic texts' attention layers and encoder blocks
 *   layers                        building blocks of encoders and decoders: Linear, Embedding, LayerNorm, RmsNorm
 *   io, onnx, tokenize, chat, text  readers of files, tokenizers, chat templates
 *   parameters                    host tensors, state dicts, parameters on a backend  (bottom)
 * </pre>
 * {@code examples} sits beside the top and nothing uses it.
 */
public final class ModelsRules {
    private static final String ROOT = "org.attn4j.models";
    private static final String[] READERS = {ROOT + ".io..", ROOT + ".onnx..", ROOT + ".tokenize..",
        ROOT + ".chat..", ROOT + ".text.."};
    private static final String[] FAMILIES = {ROOT + ".bert..", ROOT + ".decoder.."};
    private static final String[] MODELS = {ROOT + ".embed..", ROOT + ".generate.."};
    private static final String CHECKPOINT = ROOT + ".checkpoint..";

    private static String[] packages(String[]... groups) {
        return Arrays.stream(groups).flatMap(Arrays::stream).toArray(String[]::new);
    }

    /** The foundation points at nothing else in {@code models}. */
    @ArchTest
    public static final ArchRule PARAMETERS_ARE_THE_FOUNDATION = noClasses()
            .that().resideInAPackage(ROOT + ".parameters..")
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".layers..",
                ROOT + ".tutorial..", ROOT + ".examples..", CHECKPOINT}, READERS, FAMILIES, MODELS))
            .because("host tensors, state dicts and parameters are what every other package builds on; an arrow"
                    + " back up would tie the foundation to one of its users");

    /** File readers, tokenizers and chat templates know no layer, family or model. */
    @ArchTest
    public static final ArchRule READERS_KNOW_NO_MODEL = noClasses()
            .that().resideInAnyPackage(READERS)
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".layers..",
                ROOT + ".tutorial..", ROOT + ".examples..", CHECKPOINT}, FAMILIES, MODELS))
            .because("a format or a tokenizer is read the same whichever model uses it");

    /** The building blocks use the foundation only. */
    @ArchTest
    public static final ArchRule BUILDING_BLOCKS_USE_ONLY_THE_FOUNDATION = noClasses()
            .that().resideInAPackage(ROOT + ".layers..")
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".tutorial..",
                ROOT + ".examples..", CHECKPOINT}, READERS, FAMILIES, MODELS))
            .because("Linear, LayerNorm and Embedding serve every family and take their parameters from a state"
                    + " dict, whatever file it came from");

    /** The tutorials' layers are a leaf: built on the blocks, used by no family. */
    @ArchTest
    public static final ArchRule TUTORIAL_LAYERS_STAND_APART = noClasses()
            .that().resideInAPackage(ROOT + ".tutorial..")
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".examples..",
                CHECKPOINT}, READERS, FAMILIES, MODELS))
            .because("the classic texts' forms teach attention; a real model's family must not depend on them");

    /**
     * The checkpoint layer reads files with the readers into the foundation's types, and knows no layer, family or
     * model: those are built from it.
     */
    @ArchTest
    public static final ArchRule CHECKPOINTS_POINT_NO_ARROW_UP = noClasses()
            .that().resideInAPackage(CHECKPOINT)
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".layers..",
                ROOT + ".tutorial..", ROOT + ".examples.."}, FAMILIES, MODELS))
            .because("Checkpoint is the one place that decides what a path is; the families and models it would"
                    + " point at are built from it, so an arrow up would be a cycle");

    /** A family is built from the blocks, the foundation, the readers and checkpoints, never from the tutorials. */
    @ArchTest
    public static final ArchRule FAMILIES_STAND_ON_BLOCKS_AND_READERS = noClasses()
            .that().resideInAnyPackage(FAMILIES)
            .should().dependOnClassesThat().resideInAnyPackage(packages(new String[] {ROOT, ROOT + ".tutorial..",
                ROOT + ".examples.."},
                MODELS))
            .because("a family's configuration and forward are what the models above run; they do not know how"
                    + " they are run");

    /** Encoder families and decoder families do not share code except through the layers below them. */
    @ArchTest
    public static final ArchRule ENCODERS_AND_DECODERS_ARE_INDEPENDENT = noClasses()
            .that().resideInAPackage(ROOT + ".bert..")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".decoder..")
            .orShould().dependOnClassesThat().resideInAPackage(ROOT + ".generate..")
            .because("what encoders and decoders share belongs in layers or parameters");

    /** The models a user runs are built from checkpoints, families and readers, never from the tutorials. */
    @ArchTest
    public static final ArchRule MODELS_STAND_ON_FAMILIES = noClasses()
            .that().resideInAnyPackage(MODELS)
            .should().dependOnClassesThat().resideInAnyPackage(ROOT, ROOT + ".tutorial..", ROOT + ".examples..")
            .because("a model a user runs is a family's forward fed by a checkpoint; the classic texts' forms teach"
                    + " attention and are no part of it");

    /** Sentence embedding and generation know nothing of each other. */
    @ArchTest
    public static final ArchRule EMBEDDING_AND_GENERATION_ARE_INDEPENDENT = noClasses()
            .that().resideInAPackage(ROOT + ".embed..")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".generate..")
            .because("what they share belongs in a layer below both");

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
