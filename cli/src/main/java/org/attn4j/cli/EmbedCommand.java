package org.attn4j.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.attn4j.cli.TextTable.Align;
import org.attn4j.models.embed.Embedding;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.Pooling;
import org.attn4j.models.embed.SentenceEmbedder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j embed}: sentence embeddings of the given texts with a BERT-family encoder (the embedded
 * all-MiniLM-L6-v2, or a Hugging Face folder), printed as a table of pairwise cosine similarities and, with
 * {@code --json}, written with their token ids.
 */
@Command(name = "embed", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Embed texts with a sentence encoder and print the cosine similarity of every pair. Without "
                + "--model it runs the embedded all-MiniLM-L6-v2 (mean pooling, normalised, as sentence-transformers "
                + "does)."},
        footer = {"", "Exit codes: 0 ok, 1 failure (the backend cannot run, the JSON cannot be written), 2 bad input "
                + "(no text, an empty or too long text, a model folder that cannot be read)."})
final class EmbedCommand implements Callable<Integer> {
    /** The most whitespace-separated words a text may have; the model reads only its first tokens anyway. */
    static final int MAX_WORDS = 10_000;
    /** The most characters of a text shown in the table. */
    static final int SHOWN_CHARS = 60;

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "DIR",
            description = "A Hugging Face model folder: config.json (model_type bert), model.safetensors, "
                    + "tokenizer.json; default: the embedded all-MiniLM-L6-v2.")
    private Path model;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to run on (see 'attn4j backends'); default: the one -Dattn4j.backend, "
                    + "ATTN4J_BACKEND or the highest priority picks.")
    private String backend;

    @Option(names = "--pooling", paramLabel = "MODE",
            description = "How token vectors become one: mean (over the attention mask), cls or max "
                    + "(default: the model's own; mean for all-MiniLM-L6-v2).")
    private Pooling pooling;

    @Option(names = "--no-normalize", description = "Keep the pooled vectors as they are instead of scaling them "
            + "to unit length.")
    private boolean noNormalize;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write [{text, ids, embedding}, …] to FILE (ids include [CLS] and [SEP]).")
    private Path json;

    @Option(names = "--input", paramLabel = "FILE",
            description = "Read texts from FILE, one per line (blank lines skipped), or from standard input for -; "
                    + "they follow the TEXT arguments.")
    private String input;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "The texts to embed.")
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        List<String> texts = texts();
        checkModelFolder();
        checkJsonTarget();
        EmbeddingOptions options = EmbeddingOptions.defaults();
        if (pooling != null) {
            options = options.withPooling(pooling);
        }
        if (noNormalize) {
            options = options.withNormalize(false);
        }
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        try (SentenceEmbedder embedder = load(choice, options)) {
            List<Embedding> embeddings = embedder.embed(texts);
            print(choice, embedder, embeddings);
            if (json != null) {
                writeJson(embeddings);
                spec.commandLine().getOut().println("json: " + json);
            }
        }
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** The TEXT arguments, then --input's lines; refuses none at all, an empty one and an overly long one. */
    private List<String> texts() throws IOException {
        List<String> texts = new ArrayList<>(arguments);
        if (input != null) {
            List<String> lines = readInput();
            if (lines.stream().allMatch(String::isBlank)) {
                throw bad("--input " + input + " holds no text");
            }
            lines.stream().filter(l -> !l.isBlank()).forEach(texts::add);
        }
        if (texts.isEmpty()) {
            throw bad("no text to embed: give TEXT arguments or --input FILE");
        }
        for (int i = 0; i < texts.size(); i++) {
            String t = texts.get(i);
            if (t.isBlank()) {
                throw bad("text " + (i + 1) + " is empty");
            }
            long words = t.strip().split("\\s+").length;
            if (words > MAX_WORDS) {
                throw bad("text " + (i + 1) + " has " + words + " words; embed takes at most " + MAX_WORDS
                        + " per text (the model reads only its first tokens): split it");
            }
        }
        return texts;
    }

    private List<String> readInput() throws IOException {
        if (input.equals("-")) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            return in.lines().toList();
        }
        Path file = Path.of(input);
        if (!Files.isRegularFile(file)) {
            throw bad("--input " + input + (Files.exists(file) ? " is not a file" : " does not exist"));
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }

    /** Refuses a --model that is no folder or lacks the files a Hugging Face folder has, before any work. */
    private void checkModelFolder() {
        if (model == null) {
            return;
        }
        if (!Files.isDirectory(model)) {
            throw bad("--model " + model + (Files.exists(model) ? " is not a folder" : " does not exist"));
        }
        for (String file : List.of("config.json", "tokenizer.json")) {
            if (!Files.isRegularFile(model.resolve(file))) {
                throw bad("--model " + model + " has no " + file);
            }
        }
    }

    /** Rejects a --json target that can never be written, before the model is loaded. */
    private void checkJsonTarget() {
        if (json == null) {
            return;
        }
        if (Files.isDirectory(json)) {
            throw bad("--json " + json + " is a directory; name a file");
        }
        Directories.requireWritable(json.toAbsolutePath().getParent(), "--json " + json + ": its directory", spec);
    }

    /** Loads the model; what is wrong with the folder's contents (config, weights, tokenizer) is bad input. */
    private SentenceEmbedder load(BackendChoice choice, EmbeddingOptions options) throws IOException {
        if (model == null) {
            return SentenceEmbedder.loadDefault(choice.backend(), options);
        }
        try {
            return SentenceEmbedder.load(model, choice.backend(), options);
        } catch (NoSuchFileException e) {
            throw bad("--model " + model + ": " + e.getFile() + " is missing");
        } catch (IOException | IllegalArgumentException e) {
            throw bad("--model " + model + ": " + e.getMessage());
        }
    }

    private void print(BackendChoice choice, SentenceEmbedder embedder, List<Embedding> embeddings) {
        PrintWriter o = spec.commandLine().getOut();
        o.println("attn4j embed: " + (model == null ? "all-MiniLM-L6-v2 (embedded)" : model.toString()) + ", "
                + embedder.dimension() + " dimensions, " + embedder.pooling().name().toLowerCase(Locale.ROOT)
                + " pooling, " + (embedder.normalizes() ? "normalized" : "not normalized") + ", at most "
                + embedder.maxLength() + " tokens per text");
        o.println("backend: " + choice.backend().name() + " (" + choice.reason() + ")");
        o.println();
        TextTable list = new TextTable(List.of("#", "tokens", "text"), List.of(Align.RIGHT, Align.RIGHT, Align.LEFT));
        for (int i = 0; i < embeddings.size(); i++) {
            Embedding e = embeddings.get(i);
            list.row(List.of(Integer.toString(i + 1), Integer.toString(e.ids().length), shown(e.text())));
        }
        list.lines("").forEach(o::println);
        o.println();
        o.println("cosine similarity (row text · column text)");
        List<String> headers = new ArrayList<>();
        List<Align> aligns = new ArrayList<>();
        headers.add("#");
        aligns.add(Align.RIGHT);
        for (int j = 0; j < embeddings.size(); j++) {
            headers.add(Integer.toString(j + 1));
            aligns.add(Align.RIGHT);
        }
        TextTable cosines = new TextTable(headers, aligns);
        for (int i = 0; i < embeddings.size(); i++) {
            List<String> cells = new ArrayList<>();
            cells.add(Integer.toString(i + 1));
            for (Embedding other : embeddings) {
                cells.add(String.format(Locale.ROOT, "%.3f", embeddings.get(i).cosine(other)));
            }
            cosines.row(cells);
        }
        cosines.lines("").forEach(o::println);
        o.flush();
    }

    private static String shown(String text) {
        String oneLine = text.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= SHOWN_CHARS ? oneLine : oneLine.substring(0, SHOWN_CHARS - 1) + "…";
    }

    /** Writes the JSON next to its target and moves it into place, so the target is never half-written. */
    private void writeJson(List<Embedding> embeddings) throws IOException {
        Path target = json.toAbsolutePath();
        Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            try (JsonGenerator g = new JsonFactory().createGenerator(temp.toFile(), JsonEncoding.UTF8)) {
                g.useDefaultPrettyPrinter();
                g.writeStartArray();
                for (Embedding e : embeddings) {
                    g.writeStartObject();
                    g.writeStringField("text", e.text());
                    g.writeFieldName("ids");
                    g.writeArray(e.ids(), 0, e.ids().length);
                    g.writeArrayFieldStart("embedding");
                    for (float v : e.vector()) {
                        g.writeNumber(v);
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
