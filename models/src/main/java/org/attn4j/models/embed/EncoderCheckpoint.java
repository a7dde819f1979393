package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertGraph;
import org.attn4j.models.bert.EncoderConfig;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxNode;
import org.attn4j.models.onnx.OnnxStateDict;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * An encoder as a user holds it ({@link EncoderSource}), read into what a model needs: the configuration, the
 * weights under Hugging Face names, the tokenizer, and what the files say about pooling. Which files are read, and
 * what is refused, is listed in {@link EncoderSource}; this is the one loading route for folders, ONNX files and
 * jars, shared by {@link SentenceEmbedder} and {@link CrossEncoder}.
 *
 * @param description what was loaded, for people: the weights file and, for a jar, the jar
 * @param config the hyper-parameters
 * @param weights the parameters on the host, under Hugging Face names (a classifier's {@code bert.} prefix kept)
 * @param tokenizer the tokenizer
 * @param setup what the files state about pooling, normalisation and length
 * @param configJson the {@code config.json}, or null when the configuration came from an ONNX graph alone
 * @param notes facts worth telling a user, for example where the head count came from
 */
record EncoderCheckpoint(String description, EncoderConfig config, StateDict weights, Tokenizer tokenizer,
                         ModelFolder setup, JsonNode configJson, List<String> notes) {

    /** Weight files of other frameworks, refused by name. */
    private static final List<String> UNREAD = List.of("pytorch_model.bin", "pytorch_model.bin.index.json",
            "tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "rust_model.ot");

    static EncoderCheckpoint read(EncoderSource source) throws IOException {
        Path path = source.path();
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null, "no such model: give a Hugging Face or "
                    + "sentence-transformers folder, an .onnx file, or a jar holding an .onnx model and its tokenizer");
        }
        if (Files.isDirectory(path)) {
            return folder(path, path.toString(), source, null, false);
        }
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".onnx")) {
            Path file = path.toAbsolutePath();
            Path dir = file.getParent();
            Path above = dir.getParent();
            if (dir.getFileName() != null && dir.getFileName().toString().equals("onnx") && above != null
                    && (Files.isRegularFile(above.resolve("config.json"))
                    || Files.isRegularFile(above.resolve("tokenizer.json")))) {
                dir = above;
            }
            return folder(dir, path.toString(), source, file, false);
        }
        if (name.endsWith(".jar") || name.endsWith(".zip")) {
            try (FileSystem jar = FileSystems.newFileSystem(path, (ClassLoader) null)) {
                return folder(jar.getPath("/"), path.toString(), source, null, true);
            } catch (java.nio.file.ProviderNotFoundException | java.util.zip.ZipException e) {
                throw new IOException(path + " is not a readable jar: " + e.getMessage(), e);
            }
        }
        throw new IOException(path + " is not a model: give a Hugging Face or sentence-transformers folder, an .onnx "
                + "file, or a jar holding an .onnx model and its tokenizer");
    }

    /**
     * @param dir the folder (or the jar's root)
     * @param label how messages name the model
     * @param onnxFile the ONNX file given directly, or null to look in the folder
     * @param jar whether {@code dir} is a jar's root
     */
    private static EncoderCheckpoint folder(Path dir, String label, EncoderSource source, Path onnxFile, boolean jar)
            throws IOException {
        List<String> notes = new ArrayList<>();
        Path configFile = dir.resolve("config.json");
        JsonNode configJson = null;
        if (Files.isRegularFile(configFile)) {
            try (InputStream in = Files.newInputStream(configFile)) {
                configJson = new ObjectMapper().readTree(in);
            }
        }
        boolean safetensors = onnxFile == null && (Files.isRegularFile(dir.resolve("model.safetensors"))
                || Files.isRegularFile(dir.resolve("model.safetensors.index.json")));
        Path onnx = onnxFile != null ? onnxFile : safetensors ? null : findOnnx(dir, label);
        if (!safetensors && onnx == null) {
            for (String unread : UNREAD) {
                if (Files.exists(dir.resolve(unread))) {
                    throw new IOException(label + " holds " + unread + ", which attn4j does not read: save the model "
                            + "as model.safetensors (or export it to ONNX)");
                }
            }
            throw new NoSuchFileException(label, null, "has no weights: expected model.safetensors, "
                    + "model.safetensors.index.json, model.onnx, onnx/model.onnx or one *.onnx file");
        }
        EncoderConfig config;
        StateDict weights;
        String description;
        if (safetensors) {
            if (configJson == null) {
                throw new NoSuchFileException(configFile.toString(), null, "no config.json beside the safetensors "
                        + "weights, which do not state the head count and the other hyper-parameters");
            }
            config = EncoderConfig.of(configJson, configFile.toString());
            weights = jar ? SafeTensors.read(Files.readAllBytes(single(dir, label))).tensors()
                    : SafeTensors.readCheckpoint(dir).tensors();
            description = label;
        } else {
            OnnxModel graph = dir.getFileSystem() == FileSystems.getDefault() ? OnnxModel.read(onnx)
                    : OnnxModel.read(Files.readAllBytes(onnx));
            String onnxLabel = jar ? onnx.getFileName() + " in " + label : onnx.toString();
            Map<String, HostTensor> mapped = OnnxStateDict.parameters(graph);
            BertGraph stated = BertGraph.of(graph, dims(mapped));
            if (configJson != null) {
                BertConfig declared = BertConfig.of(configJson, configFile.toString());
                config = declared;
                List<String> contradictions = stated.contradictions(declared);
                if (!contradictions.isEmpty()) {
                    throw new IllegalArgumentException(configFile + " contradicts " + onnxLabel + ": "
                            + String.join("; ", contradictions) + ". A model is never run with a configuration its "
                            + "weights contradict: fix or remove config.json");
                }
                if (stated.heads().isEmpty()) {
                    notes.add("num_attention_heads " + config.numAttentionHeads() + " comes from " + configFile
                            + "; the ONNX graph does not state it, so it is unchecked");
                }
            } else {
                BertConfig read = stated.config();
                config = read;
                notes.add("configuration read from the ONNX graph: " + read.numHiddenLayers() + " layers of width "
                        + read.hiddenSize() + ", " + read.numAttentionHeads() + " heads, feed-forward "
                        + read.intermediateSize());
            }
            weights = StateDict.of(mapped);
            description = onnxLabel;
        }
        Tokenizer tokenizer = tokenizer(dir, onnx, source, label, notes);
        ModelFolder setup = ModelFolder.read(dir);
        if (setup.pooling() == null && jar && onnx != null) {
            Optional<Langchain4jModelClass> stated = Langchain4jModelClass.find(dir,
                    dir.relativize(onnx).toString());
            if (stated.isPresent()) {
                setup = new ModelFolder(stated.get().pooling(), true, setup.maxLength(),
                        stated.get().className() + " (langchain4j's PoolingMode." + stated.get().pooling() + ")");
            }
        }
        return new EncoderCheckpoint(description, config, weights, tokenizer, setup, configJson, List.copyOf(notes));
    }

    /** @return the dims of each parameter, as {@link BertGraph#of} reads them */
    static Map<String, long[]> dims(Map<String, HostTensor> parameters) {
        Map<String, long[]> dims = new LinkedHashMap<>();
        parameters.forEach((k, v) -> dims.put(k, Arrays.stream(v.shape().toArray()).asLongStream().toArray()));
        return dims;
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

    private static Tokenizer tokenizer(Path dir, Path onnx, EncoderSource source, String label, List<String> notes)
            throws IOException {
        if (source.tokenizer().isPresent()) {
            Path t = source.tokenizer().get();
            if (!Files.isRegularFile(t)) {
                throw new NoSuchFileException(t.toString(), null, "no such tokenizer file");
            }
            return t.getFileName().toString().endsWith(".txt")
                    ? Tokenizer.fromVocabTxt(t, tokenizerConfig(t.toAbsolutePath().getParent()))
                    : Tokenizer.fromJson(t);
        }
        List<String> tried = new ArrayList<>();
        List<Path> folders = new ArrayList<>();
        if (onnx != null) {
            folders.add(onnx.getParent());
        }
        if (!folders.contains(dir)) {
            folders.add(dir);
        }
        String stem = onnx == null ? null : onnx.getFileName().toString().replaceFirst("(?i)\\.onnx$", "");
        for (Path folder : folders) {
            for (String name : names(stem, "tokenizer.json", "-tokenizer.json", "_tokenizer.json",
                    ".tokenizer.json")) {
                Path t = folder.resolve(name);
                tried.add(name);
                if (Files.isRegularFile(t)) {
                    return Tokenizer.fromJson(t);
                }
            }
        }
        for (Path folder : folders) {
            for (String name : names(stem, "vocab.txt", "-vocab.txt", "-vocabulary.txt", "_vocab.txt")) {
                Path t = folder.resolve(name);
                tried.add(name);
                if (Files.isRegularFile(t)) {
                    notes.add("tokenizer built from " + name + " (BERT WordPiece" + (Files.isRegularFile(
                            folder.resolve("tokenizer_config.json")) ? ", with tokenizer_config.json" : "") + ")");
                    return Tokenizer.fromVocabTxt(t, tokenizerConfig(folder));
                }
            }
        }
        throw new NoSuchFileException(label, null, "has no tokenizer: looked for " + String.join(", ",
                tried.stream().distinct().toList()) + "; give its path (EncoderSource.withTokenizer; --tokenizer on the command line)");
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

    private static Path tokenizerConfig(Path folder) {
        Path c = folder == null ? null : folder.resolve("tokenizer_config.json");
        return c != null && Files.isRegularFile(c) ? c : null;
    }
}
