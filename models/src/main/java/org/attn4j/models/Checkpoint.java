package org.attn4j.models;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplate;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.EncoderSource;
import org.attn4j.models.embed.RerankOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationConfig;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.parameters.WeightCensus;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.models.tokenize.TokenizerConfig;

/**
 * A model as a user holds it, recognised in one place: {@link #open(Path)} looks at a path once and decides what it
 * is, and every model is built from what it found.
 *
 * <table>
 *   <caption>What {@code open} recognises</caption>
 *   <tr><th>path</th><th>{@link Format}</th><th>{@link Kind}</th></tr>
 *   <tr><td>a folder with {@code config.json} whose {@code model_type} is a decoder family
 *       ({@link DecoderConfig.Type})</td><td>{@code FOLDER}</td><td>{@code DECODER}</td></tr>
 *   <tr><td>a folder with {@code config.json} whose {@code model_type} is {@code qwen3}, opened for an encoder or
 *       holding a sentence-transformers {@code modules.json} (Qwen3-Embedding; Qwen3-Reranker when opened for an
 *       encoder)</td><td>{@code FOLDER}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>any other Hugging Face or sentence-transformers folder (a BERT-family {@code config.json}, or an ONNX
 *       export)</td><td>{@code FOLDER}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>a {@code .safetensors} file: the folder that holds it, as above</td><td>{@code SAFETENSORS}</td>
 *       <td>by its folder</td></tr>
 *   <tr><td>an {@code .onnx} file</td><td>{@code ONNX}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>a {@code .gguf} file</td><td>{@code GGUF}</td><td>{@code DECODER}</td></tr>
 *   <tr><td>a model jar ({@code .jar} or {@code .zip} holding an {@code .onnx} model and its tokenizer)</td>
 *       <td>{@code JAR}</td><td>{@code ENCODER}</td></tr>
 * </table>
 *
 * <p>A decoder's files are read once, here: its configuration ({@link #decoderConfig()}), its tokenizer
 * ({@code tokenizer.json}, else GPT-2's {@code vocab.json} and {@code merges.txt}, else none; a GGUF file's
 * {@code tokenizer.ggml.*}), its generation config ({@code generation_config.json}, or the GGUF metadata's copy) and
 * its chat template ({@code tokenizer_config.json}'s, or {@code tokenizer.chat_template}); a GGUF file's header and
 * tensor table are read once and its tensors stay memory-mapped until {@link #causalLM} or {@link #chatModel}
 * binds them and gives the maps back, so a GGUF checkpoint builds one model; a folder's weights are mapped, bound and
 * given back by each model built. An encoder's
 * files (weights, tokenizer, pooling) are read by {@link SentenceEmbedder} and {@link CrossEncoder} through their one
 * loading route ({@link EncoderSource}), which this class hands the recognised path. {@link #notes()} says where each
 * part came from.
 *
 * <pre>{@code
 * Checkpoint c = Checkpoint.open(Path.of("Qwen2.5-0.5B-Instruct"));
 * try (ChatModel chat = c.chatModel(Backends.load(), DType.F32)) { ... }
 * }</pre>
 */
public final class Checkpoint {
    /** The decoder family also read as an encoder (Qwen3-Embedding, Qwen3-Reranker). */
    private static final String QWEN3 = "qwen3";

    /** The form a checkpoint came in. */
    public enum Format {
        /** a Hugging Face or sentence-transformers folder */
        FOLDER,
        /** a {@code .safetensors} file, read with the folder that holds it */
        SAFETENSORS,
        /** an {@code .onnx} file */
        ONNX,
        /** a {@code .gguf} file */
        GGUF,
        /** a jar or zip holding an {@code .onnx} model and its tokenizer */
        JAR
    }

    /** What a checkpoint holds. */
    public enum Kind {
        /** a BERT-family encoder: sentence embeddings, reranking */
        ENCODER,
        /** a decoder-only language model: generation, chat */
        DECODER
    }

    /**
     * A path that holds nothing attn4j reads: nothing at all, a file of another type, or a folder with no model in
     * it. The message names the path, what is wrong, and what attn4j reads.
     */
    public static final class UnreadablePathException extends IOException {
        private static final long serialVersionUID = 1L;

        UnreadablePathException(String message) {
            super(message);
        }
    }

    private static final String WHAT_IS_READ = "attn4j reads a Hugging Face or sentence-transformers folder, a"
            + " .safetensors, .onnx or .gguf file, or a model jar (.jar, .zip)";

    private final Path path;
    private final Format format;
    private final Kind kind;
    private final Path folder;
    private final DecoderConfig decoderConfig;
    private final Gguf.Contents gguf;
    private final Tokenizer tokenizer;
    private final GenerationConfig generation;
    private final TokenizerConfig tokenizerConfig;
    private final String noChatTemplate;
    private final int[] templateStops;
    private final List<String> notes;

    private Checkpoint(Path path, Format format, Kind kind, Path folder, DecoderConfig decoderConfig,
                       Gguf.Contents gguf, Tokenizer tokenizer, GenerationConfig generation,
                       TokenizerConfig tokenizerConfig, String noChatTemplate, int[] templateStops, List<String> notes) {
        this.path = path;
        this.format = format;
        this.kind = kind;
        this.folder = folder;
        this.decoderConfig = decoderConfig;
        this.gguf = gguf;
        this.tokenizer = tokenizer;
        this.generation = generation;
        this.tokenizerConfig = tokenizerConfig;
        this.noChatTemplate = noChatTemplate;
        this.templateStops = templateStops;
        this.notes = List.copyOf(notes);
    }

    /**
     * Recognises a path and reads a decoder's files.
     *
     * @param path a folder, or a {@code .safetensors}, {@code .onnx}, {@code .gguf}, {@code .jar} or {@code .zip}
     *     file
     * @return what the path holds
     * @throws UnreadablePathException if nothing is at the path, or it is a file of another type or a folder with
     *     no model in it
     * @throws IOException if a file cannot be read (a {@code Gguf.FormatException} or
     *     {@code Tokenizer.FormatException} for one that is not as its format says)
     * @throws IllegalArgumentException if a configuration is refused (an unknown key, an unsupported value)
     */
    public static Checkpoint open(Path path) throws IOException {
        return open(path, null);
    }

    /**
     * Recognises a path and, if it holds the kind of model asked for, reads a decoder's files; a path that holds the
     * other kind is refused before any of its files is read.
     *
     * @param path as for {@link #open(Path)}
     * @param expected the kind the caller runs, or null for either
     * @return what the path holds
     * @throws UnreadablePathException as {@link #open(Path)}
     * @throws IOException as {@link #open(Path)}
     * @throws IllegalArgumentException if the path holds the other kind (the message names what it holds), or a
     *     configuration is refused
     */
    public static Checkpoint open(Path path, Kind expected) throws IOException {
        Objects.requireNonNull(path, "Checkpoint.open: argument path is null");
        if (!Files.exists(path)) {
            throw new UnreadablePathException(path + ": no such file or folder; " + WHAT_IS_READ);
        }
        if (Files.isDirectory(path)) {
            return folder(path, Format.FOLDER, path, expected);
        }
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".gguf")) {
            return gguf(path, expected);
        }
        if (name.endsWith(".safetensors")) {
            Path dir = path.toAbsolutePath().getParent();
            return folder(path, Format.SAFETENSORS, dir, expected);
        }
        if (name.endsWith(".onnx")) {
            return encoder(path, Format.ONNX, "an ONNX file", expected);
        }
        if (name.endsWith(".jar") || name.endsWith(".zip")) {
            return encoder(path, Format.JAR, "a model jar", expected);
        }
        throw new UnreadablePathException(path + ": not a model file; " + WHAT_IS_READ);
    }

    private static Checkpoint encoder(Path path, Format format, String why, Kind expected) {
        if (expected == Kind.DECODER) {
            throw new IllegalArgumentException(path + ": an encoder (" + why + "), not a decoder");
        }
        return new Checkpoint(path, format, Kind.ENCODER, null, null, null, null, null, null, null, new int[0],
                List.of("an encoder: " + why));
    }

    private static Checkpoint folder(Path path, Format format, Path dir, Kind expected) throws IOException {
        Path configFile = dir.resolve("config.json");
        if (!Files.isRegularFile(configFile)) {
            if (hasOnnx(dir) || Files.isRegularFile(dir.resolve("modules.json"))) {
                return encoder(path, format, "an ONNX export or a sentence-transformers folder", expected);
            }
            throw new UnreadablePathException(path + ": a folder with no model in it (no config.json, no ONNX"
                    + " export); " + WHAT_IS_READ);
        }
        byte[] configJson = Files.readAllBytes(configFile);
        String modelType = modelType(configJson, configFile);
        boolean decoder = Arrays.stream(DecoderConfig.Type.values()).anyMatch(t -> t.modelType().equals(modelType));
        if (!decoder) {
            return encoder(format == Format.SAFETENSORS ? dir : path, format, "config.json's model_type "
                    + modelType, expected);
        }
        boolean sentenceTransformers = Files.isRegularFile(dir.resolve("modules.json"));
        if (modelType.equals(QWEN3) && expected != Kind.DECODER
                && (expected == Kind.ENCODER || sentenceTransformers)) {
            return encoder(format == Format.SAFETENSORS ? dir : path, format, "a qwen3 decoder read as an encoder ("
                    + (sentenceTransformers ? "a sentence-transformers folder" : "asked for as one")
                    + "): Qwen3-Embedding or Qwen3-Reranker", expected);
        }
        if (expected == Kind.ENCODER) {
            throw new IllegalArgumentException(path + ": a decoder (config.json's model_type " + modelType
                    + "), not an encoder");
        }
        List<String> notes = new ArrayList<>();
        DecoderConfig config = DecoderConfig.parse(configJson, configFile.toString());
        notes.add("configuration: " + configFile + " (model_type " + modelType + ")");
        Tokenizer tokenizer = null;
        boolean json = Files.isRegularFile(dir.resolve("tokenizer.json"));
        if (json || Files.isRegularFile(dir.resolve("vocab.json")) && Files.isRegularFile(dir.resolve("merges.txt"))) {
            tokenizer = Tokenizer.fromFolder(dir);
            notes.add("tokenizer: " + (json ? dir.resolve("tokenizer.json") : dir.resolve("vocab.json")
                    + " and merges.txt"));
        } else {
            notes.add("tokenizer: none (no tokenizer.json, no vocab.json and merges.txt)");
        }
        GenerationConfig generation = GenerationConfig.read(dir);
        notes.add("generation config: " + (Files.isRegularFile(dir.resolve("generation_config.json"))
                ? dir.resolve("generation_config.json") : "none (transformers' defaults)"));
        String noTemplate = null;
        int[] stops = new int[0];
        TokenizerConfig tokenizerConfig = TokenizerConfig.read(dir);
        if (tokenizer == null) {
            noTemplate = path + " has no tokenizer, which a chat needs";
        } else if (tokenizerConfig.chatTemplate().isEmpty()) {
            noTemplate = path + " has no chat template (tokenizer_config.json's chat_template)";
        } else {
            Tokenizer t = tokenizer;
            stops = tokenizerConfig.specialToken("eos_token").stream().mapToInt(s -> t.id(s).orElse(-1))
                    .filter(id -> id >= 0).toArray();
            notes.add("chat template: " + dir.resolve("tokenizer_config.json"));
        }
        return new Checkpoint(path, format, Kind.DECODER, dir, config, null, tokenizer, generation,
                tokenizerConfig, noTemplate, stops, notes);
    }

    private static Checkpoint gguf(Path path, Kind expected) throws IOException {
        if (expected == Kind.ENCODER) {
            throw new IllegalArgumentException(path + ": a decoder (a GGUF file), not an encoder");
        }
        Gguf.Contents contents = Gguf.read(path);
        List<String> notes = new ArrayList<>();
        notes.add("configuration, weights, tokenizer, generation config and chat template: " + path
                + " (one GGUF file)");
        notes.add("weights: " + fileMix(contents));
        Tokenizer tokenizer = contents.has("tokenizer.ggml.model") ? Tokenizer.fromGguf(contents) : null;
        String noTemplate = tokenizer == null ? path + " has no tokenizer (no tokenizer.ggml.* metadata)"
                : contents.has("tokenizer.chat_template") ? null
                : path + " has no chat template (tokenizer.chat_template)";
        DecoderConfig config = CausalLM.config(contents);
        return new Checkpoint(path, Format.GGUF, Kind.DECODER, null, config, contents, tokenizer,
                GenerationConfig.fromGguf(contents), null, noTemplate, new int[0], notes);
    }

    /**
     * @return a GGUF file's tensors counted by type under the name of its {@code general.file_type}, with their bytes
     *     in the file, as llama.cpp's loader lists them
     */
    private static WeightCensus fileMix(Gguf.Contents contents) throws Gguf.FormatException {
        String name = "no general.file_type";
        if (contents.has("general.file_type")) {
            name = QuantMix.nameOf(contents.integer("general.file_type"));
        }
        WeightCensus census = new WeightCensus(name, Map.of(), 0);
        for (Gguf.TensorInfo t : contents.infos()) {
            census = census.with(t.type(), t.byteSize());
        }
        return census;
    }

    private static boolean hasOnnx(Path dir) throws IOException {
        if (Files.isRegularFile(dir.resolve("onnx").resolve("model.onnx"))) {
            return true;
        }
        try (Stream<Path> listing = Files.list(dir)) {
            return listing.anyMatch(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".onnx"));
        }
    }

    private static String modelType(byte[] configJson, Path configFile) throws IOException {
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(configJson);
        } catch (JacksonException e) {
            throw new IOException(configFile + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode type = json == null ? null : json.get("model_type");
        return type != null && type.isTextual() ? type.textValue() : "(none)";
    }

    /** @return the path given to {@link #open} */
    public Path path() {
        return path;
    }

    /** @return the form it came in */
    public Format format() {
        return format;
    }

    /** @return what it holds */
    public Kind kind() {
        return kind;
    }

    /**
     * @return a decoder's configuration, its family in {@link DecoderConfig#type()}
     * @throws IllegalStateException for an encoder
     */
    public DecoderConfig decoderConfig() {
        requireDecoder("decoderConfig");
        return decoderConfig;
    }

    /** @return a decoder's tokenizer, if it has one; empty for an encoder, whose tokenizer its model reads */
    public Optional<Tokenizer> tokenizer() {
        return Optional.ofNullable(tokenizer);
    }

    /**
     * @return a decoder's generation config ({@link GenerationConfig#empty()} where the checkpoint has none)
     * @throws IllegalStateException for an encoder
     */
    public GenerationConfig generationConfig() {
        requireDecoder("generationConfig");
        return generation;
    }

    /** @return whether {@link #chatModel} can be built: a decoder with a tokenizer and a chat template */
    public boolean hasChatTemplate() {
        return kind == Kind.DECODER && noChatTemplate == null;
    }

    /** @return where each part came from, for people */
    public List<String> notes() {
        return notes;
    }

    /**
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64
     * @param storage every matrix's storage type, converted once, or null to keep the file's
     * @return the decoder, its weights bound
     * @throws IOException if a weight file cannot be read
     * @throws IllegalStateException for an encoder
     */
    public CausalLM causalLM(Backend backend, DType dtype, WeightType storage) throws IOException {
        requireDecoder("causalLM");
        if (gguf == null) {
            return CausalLM.load(decoderConfig, folder, backend, dtype, storage);
        }
        return CausalLM.loadReleasing(gguf, backend, dtype, storage, null);
    }

    /**
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32
     * @param mix the llama.cpp mix that chooses each matrix's type, quantized once here ({@link QuantMix#typeOf}), as
     *     {@code llama-quantize} would write the checkpoint
     * @return the decoder, its weights bound
     * @throws IOException if a weight file cannot be read
     * @throws IllegalStateException for an encoder
     * @throws IllegalArgumentException if the mix is not producible or the dtype is not F32
     */
    public CausalLM quantizedLM(Backend backend, DType dtype, QuantMix mix) throws IOException {
        requireDecoder("quantizedLM");
        if (gguf == null) {
            return CausalLM.quantized(decoderConfig, folder, backend, dtype, mix);
        }
        if (mix == null) {
            throw new IllegalArgumentException("quantizedLM: argument mix is null");
        }
        return CausalLM.loadReleasing(gguf, backend, dtype, null, mix);
    }

    /** Gives back the GGUF file's memory maps once its tensors are bound, so that loading holds them once. */
    private void releaseGguf() {
        gguf.tensors().asMap().values().forEach(HostTensor::release);
    }

    /**
     * @param backend where the weights go
     * @param dtype the element type of weights and activations
     * @return the chat model: the decoder, its tokenizer and chat template, the generation config's defaults and
     *     every stop id the checkpoint names
     * @throws IOException if a weight file cannot be read
     * @throws IllegalStateException for an encoder, or a folder without a tokenizer or a chat template
     * @throws IllegalArgumentException for a GGUF file without a chat template
     * @throws org.attn4j.models.chat.ChatTemplateException if the template does not parse
     * @throws org.attn4j.models.tokenize.Tokenizer.FormatException for a GGUF file whose tokenizer attn4j does not
     *     read
     */
    public ChatModel chatModel(Backend backend, DType dtype) throws IOException {
        requireDecoder("chatModel");
        if (gguf != null) {
            try {
                return ChatModel.load(gguf, backend, dtype);
            } finally {
                releaseGguf();
            }
        }
        if (noChatTemplate != null) {
            throw new IllegalStateException("chat: " + noChatTemplate);
        }
        ChatTemplate template = ChatTemplate.of(tokenizerConfig);
        return ChatModel.of(causalLM(backend, dtype, null), tokenizer, template, generation, templateStops);
    }

    /**
     * @param backend where the weights go
     * @param options pooling, normalisation, length, batch size
     * @return the sentence embedder
     * @throws IOException if a file cannot be read
     * @throws IllegalStateException for a decoder
     */
    public SentenceEmbedder sentenceEmbedder(Backend backend, EmbeddingOptions options) throws IOException {
        return SentenceEmbedder.load(encoderSource("sentenceEmbedder", null), backend, options);
    }

    /**
     * @param backend where the weights go
     * @param options pooling, normalisation, length, batch size
     * @param tokenizerFile a {@code tokenizer.json} or {@code vocab.txt} to read instead of the one beside the
     *     weights, or null for that one
     * @return the sentence embedder
     * @throws IOException if a file cannot be read
     * @throws IllegalStateException for a decoder
     */
    public SentenceEmbedder sentenceEmbedder(Backend backend, EmbeddingOptions options, Path tokenizerFile)
            throws IOException {
        return SentenceEmbedder.load(encoderSource("sentenceEmbedder", tokenizerFile), backend, options);
    }

    /**
     * @param backend where the weights go
     * @param options length, batch size, activation
     * @return the cross-encoder
     * @throws IOException if a file cannot be read
     * @throws IllegalStateException for a decoder
     */
    public CrossEncoder crossEncoder(Backend backend, RerankOptions options) throws IOException {
        return CrossEncoder.load(encoderSource("crossEncoder", null), backend, options);
    }

    /**
     * @param backend where the weights go
     * @param options length, batch size, activation
     * @param tokenizerFile a {@code tokenizer.json} or {@code vocab.txt} to read instead of the one beside the
     *     weights, or null for that one
     * @return the cross-encoder
     * @throws IOException if a file cannot be read
     * @throws IllegalStateException for a decoder
     */
    public CrossEncoder crossEncoder(Backend backend, RerankOptions options, Path tokenizerFile) throws IOException {
        return CrossEncoder.load(encoderSource("crossEncoder", tokenizerFile), backend, options);
    }

    private EncoderSource encoderSource(String what, Path tokenizerFile) {
        if (kind != Kind.ENCODER) {
            throw new IllegalStateException("Checkpoint." + what + ": " + path + " holds a decoder ("
                    + decoderConfig().type().modelType() + "), not an encoder");
        }
        EncoderSource source = EncoderSource.of(path);
        return tokenizerFile == null ? source : source.withTokenizer(tokenizerFile);
    }

    private void requireDecoder(String what) {
        if (kind != Kind.DECODER) {
            throw new IllegalStateException("Checkpoint." + what + ": " + path + " holds an encoder, not a decoder");
        }
    }

    @Override
    public String toString() {
        return "Checkpoint[" + path + ", " + format + ", " + kind + "]";
    }
}
