package org.attn4j.models.embed;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a BERT-family encoder comes from, as users hold one: a value that grows by {@code with…} methods.
 * {@link #of(Path)} takes
 * <ul>
 *   <li>a Hugging Face folder: {@code config.json} ({@code model_type} bert, or with {@code model.safetensors} the
 *   rotary encoders nomic_bert, modernbert and new: see {@link org.attn4j.models.bert.Encoder}) and
 *   {@code model.safetensors}, a sharded {@code model.safetensors.index.json}, or an ONNX export ({@code model.onnx}, {@code onnx/model.onnx}, or one
 *   {@code *.onnx}); a sentence-transformers folder adds {@code modules.json}, {@code 1_Pooling/config.json} and
 *   {@code sentence_bert_config.json};</li>
 *   <li>an {@code .onnx} file: a PyTorch-exported encoder, its configuration read from the graph itself (and a
 *   {@code config.json} beside it checked against the graph); for a file in an {@code onnx/} folder (the layout of
 *   Hugging Face's ONNX exports), the folder above it holds the other files;</li>
 *   <li>a jar (or zip) holding an {@code .onnx} model and its tokenizer, such as langchain4j's
 *   {@code langchain4j-embeddings-*} model jars, whose model class states the pooling.</li>
 * </ul>
 * The tokenizer is found beside the weights: {@code tokenizer.json}, {@code <name>-tokenizer.json},
 * {@code <name>_tokenizer.json}, {@code <name>.tokenizer.json} (for an ONNX file {@code <name>.onnx}), else a
 * {@code vocab.txt} (also {@code <name>-vocab.txt}, {@code <name>-vocabulary.txt}) with its
 * {@code tokenizer_config.json}; {@link #withTokenizer(Path)} names one instead.
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
