package org.attn4j.models.embed;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.attn4j.models.checkpoint.Checkpoint;

/**
 * Where an encoder comes from, as users hold one: a value that grows by {@code with…} methods. The path is
 * recognised and read by {@link Checkpoint#open(Path, Checkpoint.Kind, Path)}: a Hugging Face or sentence-transformers
 * folder ({@code config.json} of a family of {@link org.attn4j.models.bert.EncoderConfig#of}: bert, xlm-roberta,
 * mpnet, nomic_bert, modernbert, new), an {@code .onnx} file, a GGUF {@code bert} file, a model jar; its tokenizer is
 * found beside the weights unless {@link #withTokenizer(Path)} names one.
 */
public final class EncoderSource {
    private final Path path;
    private final Path tokenizer;

    private EncoderSource(Path path, Path tokenizer) {
        this.path = path;
        this.tokenizer = tokenizer;
    }

    /**
     * @param model a folder, an {@code .onnx} file or a jar
     * @return the source, its tokenizer found beside the weights
     */
    public static EncoderSource of(Path model) {
        return new EncoderSource(Objects.requireNonNull(model, "EncoderSource.of: argument model is null"), null);
    }

    /**
     * @param file a {@code tokenizer.json}, or a {@code vocab.txt} (any name ending in {@code .txt})
     * @return a copy that reads this tokenizer instead of looking for one
     */
    public EncoderSource withTokenizer(Path file) {
        return new EncoderSource(path, Objects.requireNonNull(file, "EncoderSource.withTokenizer: argument file is null"));
    }

    /** @return the model's path */
    public Path path() {
        return path;
    }

    /** @return the tokenizer named with {@link #withTokenizer(Path)}, if any */
    public Optional<Path> tokenizer() {
        return Optional.ofNullable(tokenizer);
    }

    @Override
    public String toString() {
        return "EncoderSource[" + path + (tokenizer == null ? "" : ", tokenizer " + tokenizer) + "]";
    }
}
