package org.attn4j.archrules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/**
 * Rules for the modules that run models ({@code cli}, {@code server}, {@code spark}): they choose commands and
 * transports, and leave a model's files to {@code models}' {@code Checkpoint}. Apply with
 * {@code ArchTests.in(ModelUserRules.class)}.
 */
public final class ModelUserRules {
    private static final String MODELS = "org.attn4j.models";
    private static final Set<String> READER_CLASSES = Set.of(MODELS + ".decoder.ConfigJson",
            MODELS + ".tokenize.TokenizerJson", MODELS + ".tokenize.TokenizerConfig");

    /** The format readers (safetensors, GGUF, ONNX) and the configuration and tokenizer file readers. */
    private static final DescribedPredicate<JavaClass> FILE_READERS = DescribedPredicate.describe(
            "a file reader of models (io, onnx, ConfigJson, TokenizerJson, TokenizerConfig; a FormatException"
                    + " excepted)",
            c -> (c.getPackageName().equals(MODELS + ".io") || c.getPackageName().startsWith(MODELS + ".io.")
                    || c.getPackageName().equals(MODELS + ".onnx") || c.getPackageName().startsWith(MODELS + ".onnx."))
                    && !c.getSimpleName().equals("FormatException")
                    || READER_CLASSES.contains(c.getName()));

    /** The static readers of tokenizer files: {@code Tokenizer.fromJson}, {@code fromFolder}, {@code fromGguf} … */
    private static final DescribedPredicate<JavaMethodCall> TOKENIZER_FILE_READERS = DescribedPredicate.describe(
            "a tokenizer file reader (Tokenizer.from…)",
            call -> call.getTarget().getOwner().getName().equals(MODELS + ".tokenize.Tokenizer")
                    && call.getTarget().getName().startsWith("from"));

    /** Opening a path is Checkpoint's: none of these modules reads a model's files itself. */
    @ArchTest
    public static final ArchRule ONLY_CHECKPOINT_READS_MODEL_FILES = noClasses()
            .that().resideInAnyPackage("org.attn4j.cli..", "org.attn4j.server..", "org.attn4j.spark..")
            .should().dependOnClassesThat(FILE_READERS)
            .orShould().callMethodWhere(TOKENIZER_FILE_READERS)
            .because("Checkpoint is the one place that decides what a path is and reads its files; a command or a"
                    + " transport that read them too would be a second copy that drifts (catching a reader's"
                    + " FormatException only passes its message on)");

    private ModelUserRules() {
    }
}
