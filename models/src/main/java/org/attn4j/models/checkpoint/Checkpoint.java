package org.attn4j.models.checkpoint;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxStateDict;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.WeightCensus;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.models.tokenize.TokenizerConfig;

/**
 * A model as a user holds it, recognised in one place: {@link #open(Path)} looks at a path once, decides what it is,
 * reads each of its files once and offers what they hold; every model ({@code SentenceEmbedder}, {@code CrossEncoder},
 * {@code CausalLM}, {@code ChatModel}) is built from a checkpoint by its {@code from(Checkpoint, …)}.
 *
 * <table>
 *   <caption>What {@code open} recognises</caption>
 *   <tr><th>path</th><th>{@link Format}</th><th>{@link Kind}</th></tr>
 *   <tr><td>a folder with {@code config.json} whose {@code model_type} is a decoder family</td><td>{@code FOLDER}</td>
 *       <td>{@code DECODER}</td></tr>
 *   <tr><td>a folder with {@code config.json} whose {@code model_type} is {@code qwen3}, opened for an encoder or
 *       holding a sentence-transformers {@code modules.json} (Qwen3-Embedding; Qwen3-Reranker when opened for an
 *       encoder)</td><td>{@code FOLDER}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>any other Hugging Face or sentence-transformers folder (a BERT-family {@code config.json}, or an ONNX
 *       export)</td><td>{@code FOLDER}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>a {@code .safetensors} file: the folder that holds it, as above</td><td>{@code SAFETENSORS}</td>
 *       <td>by its folder</td></tr>
 *   <tr><td>an {@code .onnx} file (in an {@code onnx/} folder: the folder above holds the other files)</td>
 *       <td>{@code ONNX}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>a {@code .gguf} file of {@code general.architecture} {@code bert} ({@code nomic-bert} and llama.cpp's
 *       other encoders refused by name)</td><td>{@code GGUF}</td><td>{@code ENCODER}</td></tr>
 *   <tr><td>a {@code .gguf} file of another {@code general.architecture}</td><td>{@code GGUF}</td>
 *       <td>{@code DECODER}</td></tr>
 *   <tr><td>a model jar ({@code .jar} or {@code .zip} holding an {@code .onnx} model or {@code model.safetensors}
 *       and its tokenizer)</td><td>{@code JAR}</td><td>{@code ENCODER}</td></tr>
 * </table>
 *
 * <p>What is read, once, at {@code open}:
 * <ul>
 *   <li>the configuration: {@code config.json}'s bytes ({@link #configJson()}) and its family ({@link #family()}:
 *       {@code model_type}, or a GGUF file's {@code general.architecture}); a GGUF file's header and tensor table
 *       ({@link #gguf()}); an ONNX graph ({@link #onnx()});</li>
 *   <li>an encoder's parameters ({@link #parameters()}: {@code model.safetensors} or the shards of
 *       {@code model.safetensors.index.json} memory-mapped, or the ONNX graph's initializers under Hugging Face
 *       names); a decoder folder's weight files are mapped by each call of {@link #parameters()}, so that every
 *       model built gives its maps back once bound;</li>
 *   <li>the tokenizer ({@link #tokenizer()}): a decoder's {@code tokenizer.json}, else GPT-2's {@code vocab.json}
 *       and {@code merges.txt}, or a GGUF file's {@code tokenizer.ggml.*}; an encoder's {@code tokenizer.json},
 *       {@code <name>-tokenizer.json}, {@code <name>_tokenizer.json}, {@code <name>.tokenizer.json} (for an ONNX file
 *       {@code <name>.onnx}), else {@code vocab.txt} (also {@code <name>-vocab.txt}, {@code <name>-vocabulary.txt},
 *       {@code <name>_vocab.txt}) with its {@code tokenizer_config.json}, or the file given to
 *       {@link #open(Path, Kind, Path)};</li>
 *   <li>a decoder's generation config ({@link #generationConfigJson()}: {@code generation_config.json}) and chat
 *       template ({@link #tokenizerConfig()}: {@code tokenizer_config.json}'s);</li>
 *   <li>an encoder's pooling, normalisation and length ({@link #setup()}: sentence-transformers' {@code modules.json},
 *       its pooling folder's {@code config.json} and {@code sentence_bert_config.json}, a langchain4j model
 *       jar's class, or a GGUF file's {@code bert.pooling_type}: 1 mean, 2 cls, 3 last; 0 and 4 refused).</li>
 * </ul>
 * {@link #notes()} says where each part came from. Weight files of other frameworks ({@code pytorch_model.bin},
 * {@code tf_model.h5} …) are refused by name.
 *
 * <pre>{@code
 * Checkpoint c = Checkpoint.open(Path.of("Qwen2.5-0.5B-Instruct"));
 * try (ChatModel chat = ChatModel.from(c, Backends.load(), DType.F32)) { ... }
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
        /** a jar or zip holding a model and its tokenizer */
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

    /** transformers' {@code model_type} of every decoder family {@code org.attn4j.models.decoder} runs. */
    private static final List<String> DECODER_MODEL_TYPES = List.of("gpt2", "llama", "mistral", "qwen2", "qwen3",
            "gemma", "gemma2", "gemma3_text", "gemma3", "phi3");

    /** {@code general.architecture} of the GGUF encoders attn4j runs. */
    private static final List<String> ENCODER_ARCHITECTURES = List.of("bert");

    /** llama.cpp's other encoder architectures, whose blocks are not BERT's: refused by name. */
    private static final List<String> UNREAD_ENCODER_ARCHITECTURES = List.of("nomic-bert", "nomic-bert-moe",
            "modern-bert", "jina-bert-v2", "jina-bert-v3", "neo-bert", "eurobert", "t5encoder");

    /** Weight files of other frameworks, refused by name. */
    private static final List<String> UNREAD = List.of("pytorch_model.bin", "pytorch_model.bin.index.json",
            "tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "rust_model.ot");

    private final Path path;
    private final Format format;
    private final Kind kind;
    private final List<String> notes = new ArrayList<>();
    private String family;
    private Path folder;
    private byte[] configJson;
    private String configSource;
    private Gguf.Contents gguf;
    private OnnxModel onnx;
    private String description;
    private StateDict parameters;
    private Tokenizer tokenizer;
    private String noTokenizer;
    private TokenizerConfig tokenizerConfig = TokenizerConfig.empty();
    private String generationJson;
    private String generationSource;
    private EncoderSetup setup = EncoderSetup.SILENT;

    private Checkpoint(Path path, Format format, Kind kind) {
        this.path = path;
        this.format = format;
        this.kind = kind;
    }

    /**
     * Recognises a path and reads its files.
     *
     * @param path a folder, or a {@code .safetensors}, {@code .onnx}, {@code .gguf}, {@code .jar} or {@code .zip}
     *     file
     * @return what the path holds
     * @throws UnreadablePathException if nothing is at the path, or it is a file of another type or a folder with
     *     no model in it
     * @throws NoSuchFileException if an encoder lacks a file it needs (its weights; {@code config.json} beside
     *     safetensors weights)
     * @throws IOException if a file cannot be read (a {@code Gguf.FormatException}, {@code OnnxModel.FormatException}
     *     or {@code Tokenizer.FormatException} for one that is not as its format says), or holds weights of another
     *     framework
     * @throws IllegalArgumentException if a file is refused (a {@code config.json} that is not JSON, a GGUF
     *     architecture attn4j does not run)
     */
    public static Checkpoint open(Path path) throws IOException {
        return open(path, null, null);
    }

    /**
     * Recognises a path and, if it holds the kind of model asked for, reads its files; a folder or a file named as
     * the other kind is refused before its files are read (a GGUF file after its header).
     *
     * @param path as for {@link #open(Path)}
     * @param expected the kind the caller runs, or null for either
     * @return what the path holds
     * @throws UnreadablePathException as {@link #open(Path)}
     * @throws IOException as {@link #open(Path)}
     * @throws IllegalArgumentException if the path holds the other kind (the message names what it holds), or a
     *     file is refused
     */
    public static Checkpoint open(Path path, Kind expected) throws IOException {
        return open(path, expected, null);
    }

    /**
     * Recognises a path as {@link #open(Path, Kind)} does, reading an encoder's tokenizer from the file given
     * instead of looking for one beside the weights.
     *
     * @param path as for {@link #open(Path)}
     * @param expected the kind the caller runs, or null for either
     * @param tokenizerFile a {@code tokenizer.json}, or a {@code vocab.txt} (any name ending in {@code .txt}) read
     *     with the {@code tokenizer_config.json} beside it; or null to look for the tokenizer beside the weights
     * @return what the path holds
     * @throws NoSuchFileException if the tokenizer file does not exist
     * @throws IOException as {@link #open(Path)}
     * @throws IllegalArgumentException if a tokenizer file is given for a decoder, or as {@link #open(Path, Kind)}
     */
    public static Checkpoint open(Path path, Kind expected, Path tokenizerFile) throws IOException {
        Objects.requireNonNull(path, "Checkpoint.open: argument path is null");
        if (!Files.exists(path)) {
            throw new UnreadablePathException(path + ": no such file or folder; " + WHAT_IS_READ);
        }
        Checkpoint c;
        if (Files.isDirectory(path)) {
            c = folder(path, Format.FOLDER, path, expected, tokenizerFile);
        } else {
            String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".gguf")) {
                c = gguf(path, expected);
            } else if (name.endsWith(".safetensors")) {
                c = folder(path, Format.SAFETENSORS, path.toAbsolutePath().getParent(), expected, tokenizerFile);
            } else if (name.endsWith(".onnx")) {
                require(path, Kind.ENCODER, "an ONNX file", expected);
                c = onnxFile(path, tokenizerFile);
            } else if (name.endsWith(".jar") || name.endsWith(".zip")) {
                require(path, Kind.ENCODER, "a model jar", expected);
                c = jar(path, tokenizerFile);
            } else {
                throw new UnreadablePathException(path + ": not a model file; " + WHAT_IS_READ);
            }
        }
        if (tokenizerFile != null && c.kind == Kind.DECODER) {
            throw new IllegalArgumentException(path + ": a tokenizer file is given for a decoder, whose tokenizer is"
                    + " read from its own files");
        }
        return c;
    }

    private static void require(Path path, Kind holds, String why, Kind expected) {
        if (expected != null && expected != holds) {
            throw new IllegalArgumentException(path + ": " + (holds == Kind.ENCODER ? "an encoder" : "a decoder")
                    + " (" + why + "), not " + (expected == Kind.ENCODER ? "an encoder" : "a decoder"));
        }
    }

    private static Checkpoint folder(Path path, Format format, Path dir, Kind expected, Path tokenizerFile)
            throws IOException {
        Path configFile = dir.resolve("config.json");
        if (!Files.isRegularFile(configFile)) {
            if (findOnnx(dir, path.toString()) != null || Files.isRegularFile(dir.resolve("modules.json"))) {
                require(path, Kind.ENCODER, "an ONNX export or a sentence-transformers folder", expected);
                Checkpoint c = new Checkpoint(path, format, Kind.ENCODER);
                c.readEncoder(dir, dir.toString(), null, false, tokenizerFile);
                return c;
            }
            if (Files.isRegularFile(dir.resolve("model.safetensors"))
                    || Files.isRegularFile(dir.resolve("model.safetensors.index.json"))) {
                throw noConfigBesideSafetensors(dir);
            }
            refuseOtherFrameworks(dir, path.toString());
            throw new UnreadablePathException(path + ": a folder with no model in it (no config.json, no ONNX"
                    + " export); " + WHAT_IS_READ);
        }
        byte[] config = Files.readAllBytes(configFile);
        String modelType = modelType(config, configFile);
        if (!DECODER_MODEL_TYPES.contains(modelType)) {
            require(path, Kind.ENCODER, "config.json's model_type " + modelType, expected);
            Checkpoint c = new Checkpoint(path, format, Kind.ENCODER);
            c.configJson = config;
            c.configSource = configFile.toString();
            c.family = modelType;
            c.readEncoder(dir, dir.toString(), null, false, tokenizerFile);
            return c;
        }
        boolean sentenceTransformers = Files.isRegularFile(dir.resolve("modules.json"));
        if (modelType.equals(QWEN3) && expected != Kind.DECODER
                && (expected == Kind.ENCODER || sentenceTransformers)) {
            Checkpoint c = new Checkpoint(path, format, Kind.ENCODER);
            c.configJson = config;
            c.configSource = configFile.toString();
            c.family = modelType;
            c.notes.add("a qwen3 decoder read as an encoder (" + (sentenceTransformers
                    ? "a sentence-transformers folder" : "asked for as one") + "): Qwen3-Embedding or Qwen3-Reranker");
            c.readEncoder(dir, dir.toString(), null, false, tokenizerFile);
            return c;
        }
        require(path, Kind.DECODER, "config.json's model_type " + modelType, expected);
        Checkpoint c = new Checkpoint(path, format, Kind.DECODER);
        c.folder = dir;
        c.configJson = config;
        c.configSource = configFile.toString();
        c.family = modelType;
        c.notes.add("configuration: " + configFile + " (model_type " + modelType + ")");
        c.tokenizerConfig = TokenizerConfig.read(dir);
        boolean json = Files.isRegularFile(dir.resolve("tokenizer.json"));
        if (json || Files.isRegularFile(dir.resolve("vocab.json")) && Files.isRegularFile(dir.resolve("merges.txt"))) {
            c.tokenizer = Tokenizer.fromFolder(dir, c.tokenizerConfig);
            c.notes.add("tokenizer: " + (json ? dir.resolve("tokenizer.json") : dir.resolve("vocab.json")
                    + " and merges.txt"));
        } else {
            c.noTokenizer = "has no tokenizer (no tokenizer.json, no vocab.json and merges.txt)";
            c.notes.add("tokenizer: none (no tokenizer.json, no vocab.json and merges.txt)");
        }
        Path generation = dir.resolve("generation_config.json");
        if (Files.isRegularFile(generation)) {
            c.generationJson = Files.readString(generation, StandardCharsets.UTF_8);
            c.generationSource = generation.toString();
            c.notes.add("generation config: " + generation);
        } else {
            c.notes.add("generation config: none (config.json's token ids, else transformers' defaults)");
        }
        if (c.tokenizer != null && c.tokenizerConfig.chatTemplate().isPresent()) {
            c.notes.add("chat template: " + dir.resolve("tokenizer_config.json"));
        }
        return c;
    }

    private static Checkpoint gguf(Path path, Kind expected) throws IOException {
        Gguf.Contents contents = Gguf.read(path);
        String architecture = contents.has("general.architecture") ? contents.string("general.architecture")
                : "(none)";
        if (UNREAD_ENCODER_ARCHITECTURES.contains(architecture)) {
            throw new IllegalArgumentException(path + ": general.architecture " + architecture + " is an encoder"
                    + " attn4j does not run (its blocks are not BERT's); the GGUF encoders attn4j reads: "
                    + String.join(", ", ENCODER_ARCHITECTURES));
        }
        Kind kind = ENCODER_ARCHITECTURES.contains(architecture) ? Kind.ENCODER : Kind.DECODER;
        require(path, kind, "a GGUF file of general.architecture " + architecture, expected);
        Checkpoint c = new Checkpoint(path, Format.GGUF, kind);
        c.gguf = contents;
        c.family = architecture;
        c.parameters = contents.tensors();
        c.notes.add("configuration, weights, tokenizer" + (kind == Kind.ENCODER ? " and pooling"
                : ", generation config and chat template") + ": " + path + " (one GGUF file, general.architecture "
                + architecture + ")");
        c.notes.add("weights: " + fileMix(contents));
        if (contents.has("tokenizer.ggml.model")) {
            c.tokenizer = Tokenizer.fromGguf(contents);
        } else {
            c.noTokenizer = "has no tokenizer (no tokenizer.ggml.* metadata)";
        }
        if (kind == Kind.ENCODER) {
            c.setup = ggufPooling(contents, architecture);
        }
        return c;
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

    /**
     * llama.cpp's {@code <arch>.pooling_type}: 1 mean, 2 cls, 3 last; 0 (none: a vector per token) and 4 (rank: a
     * reranker's head) are no sentence embedding and are refused. Absent, the file states no pooling.
     */
    private static EncoderSetup ggufPooling(Gguf.Contents contents, String architecture) throws IOException {
        String key = architecture + ".pooling_type";
        if (!contents.has(key)) {
            return EncoderSetup.SILENT;
        }
        long type = contents.integer(key);
        Pooling pooling = switch ((int) Math.max(-1, Math.min(type, 5))) {
            case 1 -> Pooling.MEAN;
            case 2 -> Pooling.CLS;
            case 3 -> Pooling.LAST_TOKEN;
            case 0 -> throw new IllegalArgumentException("gguf: " + key + " is 0 (none: one vector per token), which"
                    + " is no sentence embedding; attn4j pools mean (1), cls (2) or last (3)");
            case 4 -> throw new IllegalArgumentException("gguf: " + key + " is 4 (rank: a reranker's classifier"
                    + " head), which attn4j does not read from GGUF; it pools mean (1), cls (2) or last (3)");
            default -> throw new IllegalArgumentException("gguf: " + key + " is " + type + ", which is no pooling"
                    + " of llama.cpp's; attn4j pools mean (1), cls (2) or last (3)");
        };
        return new EncoderSetup(pooling, null, 0, key + " (" + pooling.name().toLowerCase(Locale.ROOT) + ")");
    }

    private static Checkpoint onnxFile(Path path, Path tokenizerFile) throws IOException {
        Path file = path.toAbsolutePath();
        Path dir = file.getParent();
        Path above = dir.getParent();
        if (dir.getFileName() != null && dir.getFileName().toString().equals("onnx") && above != null
                && (Files.isRegularFile(above.resolve("config.json"))
                || Files.isRegularFile(above.resolve("tokenizer.json")))) {
            dir = above;
        }
        Checkpoint c = new Checkpoint(path, Format.ONNX, Kind.ENCODER);
        c.readEncoderConfig(dir);
        c.readEncoder(dir, path.toString(), file, false, tokenizerFile);
        return c;
    }

    private static Checkpoint jar(Path path, Path tokenizerFile) throws IOException {
        Checkpoint c = new Checkpoint(path, Format.JAR, Kind.ENCODER);
        try (FileSystem jar = FileSystems.newFileSystem(path, (ClassLoader) null)) {
            Path root = jar.getPath("/");
            c.readEncoderConfig(root);
            c.readEncoder(root, path.toString(), null, true, tokenizerFile);
        } catch (java.nio.file.ProviderNotFoundException | java.util.zip.ZipException e) {
            throw new IOException(path + " is not a readable jar: " + e.getMessage(), e);
        }
        return c;
    }

    private void readEncoderConfig(Path dir) throws IOException {
        Path configFile = dir.resolve("config.json");
        if (Files.isRegularFile(configFile)) {
            configJson = Files.readAllBytes(configFile);
            configSource = configFile.toString();
            family = modelType(configJson, configFile);
        }
    }

    /**
     * @param dir the folder (or the jar's root)
     * @param label how messages name the model
     * @param onnxFile the ONNX file given directly, or null to look in the folder
     * @param jar whether {@code dir} is a jar's root (its files are read into memory: a zip entry cannot be mapped)
     * @param tokenizerFile the tokenizer named by the caller, or null
     */
    private void readEncoder(Path dir, String label, Path onnxFile, boolean jar, Path tokenizerFile)
            throws IOException {
        boolean safetensors = onnxFile == null && (Files.isRegularFile(dir.resolve("model.safetensors"))
                || Files.isRegularFile(dir.resolve("model.safetensors.index.json")));
        Path onnxPath = onnxFile != null ? onnxFile : safetensors ? null : findOnnx(dir, label);
        if (!safetensors && onnxPath == null) {
            refuseOtherFrameworks(dir, label);
            throw new NoSuchFileException(label, null, "has no weights: expected model.safetensors, "
                    + "model.safetensors.index.json, model.onnx, onnx/model.onnx or one *.onnx file");
        }
        if (safetensors) {
            if (configJson == null) {
                throw noConfigBesideSafetensors(dir);
            }
            parameters = jar ? SafeTensors.read(Files.readAllBytes(single(dir, label))).tensors()
                    : SafeTensors.readCheckpoint(dir).tensors();
            description = label;
            notes.add("configuration: " + configSource + " (model_type " + family + ")");
            notes.add("weights: " + (jar ? "model.safetensors in " + label
                    : Files.isRegularFile(dir.resolve("model.safetensors.index.json"))
                    ? dir.resolve("model.safetensors.index.json") + " and its shards" : dir.resolve("model.safetensors")));
        } else {
            onnx = dir.getFileSystem() == FileSystems.getDefault() ? OnnxModel.read(onnxPath)
                    : OnnxModel.read(Files.readAllBytes(onnxPath));
            description = jar ? onnxPath.getFileName() + " in " + label : onnxPath.toString();
            parameters = StateDict.of(OnnxStateDict.parameters(onnx));
            if (family == null) {
                family = "bert";
            }
            notes.add("configuration: " + (configJson == null ? "the ONNX graph of " + description
                    : configSource + ", checked against the ONNX graph of " + description));
            notes.add("weights: " + description);
        }
        readEncoderTokenizer(dir, onnxPath, label, tokenizerFile);
        setup = EncoderSetup.read(dir);
        if (setup.pooling() == null && jar && onnxPath != null) {
            Optional<Langchain4jModelClass> stated = Langchain4jModelClass.find(dir,
                    dir.relativize(onnxPath).toString());
            if (stated.isPresent()) {
                setup = new EncoderSetup(stated.get().pooling(), true, setup.maxLength(),
                        stated.get().className() + " (langchain4j's PoolingMode." + stated.get().pooling() + ")");
            }
        }
        if (setup.statedBy() != null) {
            notes.add("pooling: " + setup.statedBy());
        }
    }

    private void readEncoderTokenizer(Path dir, Path onnxPath, String label, Path named) throws IOException {
        if (named != null) {
            if (!Files.isRegularFile(named)) {
                throw new NoSuchFileException(named.toString(), null, "no such tokenizer file");
            }
            tokenizer = named.getFileName().toString().endsWith(".txt")
                    ? Tokenizer.fromVocabTxt(named, tokenizerConfigBeside(named.toAbsolutePath().getParent()))
                    : Tokenizer.fromJson(named);
            notes.add("tokenizer: " + named + " (given)");
            return;
        }
        List<String> tried = new ArrayList<>();
        List<Path> folders = new ArrayList<>();
        if (onnxPath != null) {
            folders.add(onnxPath.getParent());
        }
        if (!folders.contains(dir)) {
            folders.add(dir);
        }
        String stem = onnxPath == null ? null : onnxPath.getFileName().toString().replaceFirst("(?i)\\.onnx$", "");
        for (Path f : folders) {
            for (String name : names(stem, "tokenizer.json", "-tokenizer.json", "_tokenizer.json",
                    ".tokenizer.json")) {
                Path t = f.resolve(name);
                tried.add(name);
                if (Files.isRegularFile(t)) {
                    tokenizer = Tokenizer.fromJson(t);
                    notes.add("tokenizer: " + t);
                    return;
                }
            }
        }
        for (Path f : folders) {
            for (String name : names(stem, "vocab.txt", "-vocab.txt", "-vocabulary.txt", "_vocab.txt")) {
                Path t = f.resolve(name);
                tried.add(name);
                if (Files.isRegularFile(t)) {
                    Path config = tokenizerConfigBeside(f);
                    tokenizer = Tokenizer.fromVocabTxt(t, config);
                    notes.add("tokenizer built from " + name + " (BERT WordPiece"
                            + (config != null ? ", with tokenizer_config.json" : "") + ")");
                    return;
                }
            }
        }
        noTokenizer = "has no tokenizer: looked for " + String.join(", ", tried.stream().distinct().toList())
                + "; give its path (Checkpoint.open(path, kind, tokenizerFile); --tokenizer on the command line)";
        notes.add("tokenizer: none (looked for " + String.join(", ", tried.stream().distinct().toList()) + ")");
    }

    private static List<String> names(String stem, String plain, String... suffixes) {
        List<String> out = new ArrayList<>(List.of(plain));
        if (stem != null) {
            for (String s : suffixes) {
                out.add(stem + s);
            }
        }
        return out;
    }

    private static Path tokenizerConfigBeside(Path dir) {
        Path c = dir == null ? null : dir.resolve("tokenizer_config.json");
        return c != null && Files.isRegularFile(c) ? c : null;
    }

    private static NoSuchFileException noConfigBesideSafetensors(Path dir) {
        return new NoSuchFileException(dir.resolve("config.json").toString(), null, "no config.json beside the"
                + " safetensors weights, which do not state the head count and the other hyper-parameters");
    }

    private static void refuseOtherFrameworks(Path dir, String label) throws IOException {
        for (String unread : UNREAD) {
            if (Files.exists(dir.resolve(unread))) {
                throw new IOException(label + " holds " + unread + ", which attn4j does not read: save the model "
                        + "as model.safetensors (or export it to ONNX)");
            }
        }
    }

    private static Path findOnnx(Path dir, String label) throws IOException {
        for (Path p : List.of(dir.resolve("model.onnx"), dir.resolve("onnx").resolve("model.onnx"))) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        List<Path> found;
        try (Stream<Path> files = Files.list(dir)) {
            found = files.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".onnx")
                    && Files.isRegularFile(p)).sorted().toList();
        }
        if (found.size() > 1) {
            throw new IOException(label + " holds " + found.size() + " ONNX files (" + String.join(", ",
                    found.stream().map(p -> p.getFileName().toString()).toList()) + "): name one with the path "
                    + "of the .onnx file");
        }
        return found.isEmpty() ? null : found.get(0);
    }

    private static Path single(Path dir, String label) throws IOException {
        Path file = dir.resolve("model.safetensors");
        if (!Files.isRegularFile(file)) {
            throw new IOException(label + ": sharded safetensors are read from a folder, not from a jar: unpack it");
        }
        return file;
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
     * @return its family: {@code config.json}'s {@code model_type}, a GGUF file's {@code general.architecture}, or
     *     {@code bert} for an ONNX graph without a {@code config.json}
     */
    public String family() {
        return family;
    }

    /** @return the bytes of its {@code config.json}, if it has one; a copy */
    public Optional<byte[]> configJson() {
        return Optional.ofNullable(configJson).map(byte[]::clone);
    }

    /** @return where {@link #configJson()} came from, for messages; empty without one */
    public Optional<String> configSource() {
        return Optional.ofNullable(configSource);
    }

    /** @return a GGUF file's header and tensors, memory-mapped; empty for another format */
    public Optional<Gguf.Contents> gguf() {
        return Optional.ofNullable(gguf);
    }

    /** @return an encoder's ONNX graph; empty for another format */
    public Optional<OnnxModel> onnx() {
        return Optional.ofNullable(onnx);
    }

    /**
     * @return an encoder's weights file as people name it (for a jar, {@code <entry> in <jar>}); for a decoder, the
     *     path
     */
    public String description() {
        return description != null ? description : path.toString();
    }

    /**
     * The parameters in their storage types. An encoder's and a GGUF file's were read at {@code open} (a GGUF file's
     * under its own tensor names); a decoder folder's are mapped by each call ({@code model.safetensors}, the shards
     * of {@code model.safetensors.index.json}, else every {@code *.safetensors} of the folder), and the caller gives
     * each map back once the tensor is bound ({@link HostTensor#release()}).
     *
     * @return the parameters under the checkpoint's names
     * @throws IOException if a weight file cannot be read
     * @throws IllegalArgumentException if a decoder folder has no {@code .safetensors} file
     */
    public StateDict parameters() throws IOException {
        if (parameters != null) {
            return parameters;
        }
        if (Files.exists(folder.resolve("model.safetensors"))
                || Files.exists(folder.resolve("model.safetensors.index.json"))) {
            return SafeTensors.readCheckpoint(folder).tensors();
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(folder)) {
            files = listing.filter(f -> f.getFileName().toString().endsWith(".safetensors")).sorted().toList();
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("decoder: " + folder + " has no .safetensors file");
        }
        Map<String, HostTensor> all = new HashMap<>();
        try {
            for (Path f : files) {
                all.putAll(SafeTensors.read(f).tensors().asMap());
            }
        } catch (IOException | RuntimeException e) {
            all.values().forEach(HostTensor::release);
            throw e;
        }
        return StateDict.of(all);
    }

    /** @return its tokenizer, if it has one (a decoder may have none; an encoder's may be given at open) */
    public Optional<Tokenizer> tokenizer() {
        return Optional.ofNullable(tokenizer);
    }

    /**
     * @return its tokenizer
     * @throws NoSuchFileException if it has none; the message says where it was looked for
     */
    public Tokenizer requireTokenizer() throws NoSuchFileException {
        if (tokenizer == null) {
            throw new NoSuchFileException(description(), null, noTokenizer);
        }
        return tokenizer;
    }

    /**
     * @return a decoder folder's {@code tokenizer_config.json} (special tokens, chat template), or
     *     {@link TokenizerConfig#empty()} for another checkpoint
     */
    public TokenizerConfig tokenizerConfig() {
        return tokenizerConfig;
    }

    /** @return the text of a decoder folder's {@code generation_config.json}, if it has one */
    public Optional<String> generationConfigJson() {
        return Optional.ofNullable(generationJson);
    }

    /** @return where {@link #generationConfigJson()} came from, for messages; empty without one */
    public Optional<String> generationConfigSource() {
        return Optional.ofNullable(generationSource);
    }

    /**
     * @return whether a chat model can be built: a decoder with a tokenizer and a chat template (a folder's
     *     {@code tokenizer_config.json} {@code chat_template}, a GGUF file's {@code tokenizer.chat_template})
     */
    public boolean hasChatTemplate() {
        if (kind != Kind.DECODER || tokenizer == null) {
            return false;
        }
        return gguf != null ? gguf.has("tokenizer.chat_template") : tokenizerConfig.chatTemplate().isPresent();
    }

    /**
     * @return what an encoder's files state about pooling, normalisation and length ({@link EncoderSetup#SILENT}
     *     for a decoder, or an encoder whose files state nothing)
     */
    public EncoderSetup setup() {
        return setup;
    }

    /** @return where each part came from, for people */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    /**
     * @param what the model being built, for the message (for example {@code SentenceEmbedder.from})
     * @param needed the kind that model runs
     * @throws IllegalStateException if this checkpoint holds the other kind
     */
    public void requireKind(String what, Kind needed) {
        if (kind != needed) {
            throw new IllegalStateException(what + ": " + path + (kind == Kind.DECODER
                    ? " holds a decoder (" + family + "), not an encoder" : " holds an encoder, not a decoder"));
        }
    }

    @Override
    public String toString() {
        return "Checkpoint[" + path + ", " + format + ", " + kind + ", " + family + "]";
    }
}
