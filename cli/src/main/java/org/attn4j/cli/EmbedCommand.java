package org.attn4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.attn4j.api.WeightType;
import org.attn4j.cli.TextTable.Align;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.LongTexts;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j embed}: sentence embeddings with a BERT-family encoder (the embedded all-MiniLM-L6-v2, or a model as
 * the user holds it: a folder, an {@code .onnx} file, a jar). Texts are read, embedded in chunks and written as they
 * go, so memory stays flat whatever the input's length: the reader runs ahead by at most
 * {@value TextSource#AHEAD} texts, one chunk is embedded at a time, and only the first {@value #HANDFUL} embeddings
 * (or, with {@code --similarity}, at most {@value #SIMILARITY_LIMIT}) are kept for the report.
 */
@Command(name = "embed", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Embed texts with a sentence encoder. Texts are the TEXT arguments, then the lines of --input "
                + "(blank lines skipped); they are embedded in batches and written as they go, in input order.",
                "",
                "Where the embeddings go: --output FILE or - (standard output) in --format jsonl (default), json, csv "
                        + "or npy. With --input and no --output they stream to standard output as JSON Lines. With "
                        + "TEXT arguments only, the command prints a report instead: the texts, their token counts "
                        + "and, for up to " + EmbedCommand.HANDFUL + " texts or with --similarity, the cosine "
                        + "similarity of every pair. A file is written under a temporary name and moved into place "
                        + "when complete, with the permissions of your umask. A progress line (texts/s, ETA) is drawn "
                        + "on standard error when it is a terminal.",
                "",
                "Models (--model): a Hugging Face folder (config.json with model_type bert, xlm-roberta or mpnet; "
                        + "model.safetensors, a "
                        + "sharded index, model.onnx or onnx/model.onnx); a sentence-transformers folder (modules.json,"
                        + " 1_Pooling/config.json, a Dense projection, Normalize, sentence_bert_config.json and "
                        + "config_sentence_transformers.json set pooling, projection, normalisation, length and "
                        + "prompts); a Qwen3-Embedding folder (model_type qwen3: the last token's hidden state, "
                        + "queries with --prompt-name query); an"
                        + " .onnx file (its configuration read from the graph: sizes from the weights, the head count "
                        + "from the attention reshapes; a config.json beside it that contradicts the graph is refused);"
                        + " a jar holding an .onnx model and its tokenizer, such as langchain4j's "
                        + "langchain4j-embeddings-* jars (whose model class states the pooling). The tokenizer is "
                        + "tokenizer.json, NAME-tokenizer.json, NAME_tokenizer.json or NAME.tokenizer.json beside the "
                        + "weights, else vocab.txt (with tokenizer_config.json); --tokenizer names one. When the "
                        + "model's files state no pooling, mean pooling is used and a note on standard error says so:"
                        + " --pooling changes it. int8-quantized ONNX models (langchain4j's -q jars) load dequantized."},
        footer = {"", "Exit codes: 0 ok, 1 failure (the backend cannot run, the output cannot be written), 2 bad input "
                + "(no text, an empty text, an option that cannot work, a model that cannot be read or whose files "
                + "contradict each other)."})
final class EmbedCommand implements Callable<Integer> {
    /** Up to this many texts the report lists them and prints their cosine similarities. */
    static final int HANDFUL = 10;
    /** The most texts {@code --similarity} compares (it keeps their vectors). */
    static final int SIMILARITY_LIMIT = 1000;
    /** The most characters of a text shown in the table. */
    static final int SHOWN_CHARS = 60;
    /** How long a chunk from standard input waits for one more text. */
    static final long LINGER_MS = 100;

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "PATH",
            description = "A model folder, an .onnx file or a model jar (see above); default: the embedded "
                    + "all-MiniLM-L6-v2.")
    private Path model;

    @Option(names = "--tokenizer", paramLabel = "FILE",
            description = "The model's tokenizer.json, or a vocab.txt (a name ending in .txt), instead of the one "
                    + "found beside the weights.")
    private Path tokenizer;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to run on (see 'attn4j backends'); default: the one -Dattn4j.backend, "
                    + "ATTN4J_BACKEND or the highest priority picks.")
    private String backend;

    @Option(names = "--weights", paramLabel = "TYPE", defaultValue = "as-file",
            description = "How the encoder's weights are held: as-file (each in its file's type, the default), f32 "
                    + "(every matrix widened or dequantized to F32 at load) or q8 (every projection of an F32, F16 or "
                    + "BF16 bert, xlm-roberta or mpnet encoder quantized to int8 at load, one scale per output "
                    + "feature, and multiplied in integers, as langchain4j's -q models are run).")
    private String weights;

    @Option(names = "--pooling", paramLabel = "MODE",
            description = "How token vectors become one: mean (over the attention mask), cls, max, mean_sqrt_len, "
                    + "weighted_mean or last_token (default: what "
                    + "the model's files state, else mean).")
    private Pooling pooling;

    @Option(names = "--no-normalize", description = "Keep the pooled vectors as they are instead of scaling them "
            + "to unit length.")
    private boolean noNormalize;

    @Option(names = "--dimensions", paramLabel = "N",
            description = "Keep the first N features of each vector (Matryoshka models), then scale it to unit "
                    + "length unless --no-normalize.")
    private Integer dimensions;

    @Option(names = "--prompt-name", paramLabel = "NAME",
            description = "Put the model's prompt NAME (config_sentence_transformers.json, for example query or "
                    + "passage) before every text (default: the model's default_prompt_name, if any).")
    private String promptName;

    @Option(names = "--prompt", paramLabel = "TEXT",
            description = "Put TEXT before every text instead of the model's prompt (\"\" for none), such as "
                    + "Qwen3-Embedding's instruction for queries: \"Instruct: TASK\\nQuery:\" (a \\n in TEXT stands "
                    + "for a line break).")
    private String prompt;

    @Option(names = "--long", paramLabel = "MODE",
            description = "A text longer than the model reads at once: truncate (keep its first tokens, the default) "
                    + "or split (read it whole in windows of the model's length and average them by their tokens, "
                    + "as langchain4j does).")
    private LongTexts longTexts = LongTexts.TRUNCATE;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "Texts per forward call (default: 32); texts are sorted by length within each chunk.")
    private int batchSize = 32;

    @Option(names = "--input", paramLabel = "FILE",
            description = "Read texts from FILE, one per line (blank lines skipped), or from standard input for -; "
                    + "they follow the TEXT arguments.")
    private String input;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the embeddings to FILE, or to standard output for -.")
    private String output;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "jsonl (default: {\"text\", \"tokens\", \"embedding\"} a line), json (the same objects "
                    + "in one array), csv (text,tokens,e0,e1,…) or npy (a float32 [N, d] matrix, to a file only).")
    private EmbeddingFormat format;

    @Option(names = "--ids", description = "Also write each text's token ids ([CLS] and [SEP] included); not with "
            + "npy.")
    private boolean ids;

    @Option(names = "--similarity", description = "Print the cosine similarity of every pair of texts (at most "
            + SIMILARITY_LIMIT + " texts), also beyond " + HANDFUL + ".")
    private boolean similarity;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "The texts to embed.")
    private List<String> arguments = new ArrayList<>();

    /** Where the embeddings go: a file, standard output ({@code "-"}), or nowhere (the report only). */
    private String target;
    private EmbeddingFormat effectiveFormat;

    @Override
    public Integer call() throws IOException {
        checkArguments();
        checkOutput();
        checkModelPaths();
        Checkpoint checkpoint = model == null ? null
                : CheckpointOption.open(model, Checkpoint.Kind.ENCODER, tokenizer, spec);
        if (batchSize < 1) {
            throw bad("--batch-size " + batchSize + " must be at least 1");
        }
        EmbeddingOptions options = EmbeddingOptions.defaults().withLongTexts(longTexts).withBatchSize(batchSize);
        if (pooling != null) {
            options = options.withPooling(pooling);
        }
        if (noNormalize) {
            options = options.withNormalize(false);
        }
        if (dimensions != null) {
            if (dimensions < 1) {
                throw bad("--dimensions " + dimensions + " must be at least 1");
            }
            options = options.withDimensions(dimensions);
        }
        if (promptName != null && prompt != null) {
            throw bad("--prompt-name and --prompt both choose the prompt; give one");
        }
        if (promptName != null) {
            options = options.withPromptName(promptName);
        }
        if (prompt != null) {
            options = options.withPrompt(prompt.replace("\\n", "\n"));
        }
        WeightType storage = storage();
        if (storage != null) {
            options = options.withWeights(storage);
        }
        long inputBytes = -1;
        TextSource source = null;
        List<TextSource.Text> firstChunk = List.of();
        int chunk = Math.max(256, 16 * batchSize);
        try {
            if (input != null) {
                source = openInput();
                inputBytes = input.equals("-") || !Files.isRegularFile(Path.of(input)) ? -1 : Files.size(Path.of(input));
                firstChunk = next(source, chunk);
                if (firstChunk.isEmpty() && arguments.isEmpty()) {
                    throw bad("--input " + input + " holds no text");
                }
            }
            BackendChoice choice = BackendChoice.resolve(backend, spec);
            long start = System.nanoTime();
            try (SentenceEmbedder embedder = load(checkpoint, choice, options)) {
                CommandLog.loaded(spec.qualifiedName(), embedder.description(), start);
                run(choice, embedder, source, firstChunk, chunk, inputBytes);
            }
        } finally {
            if (source != null) {
                source.close();
            }
        }
        return 0;
    }

    private void run(BackendChoice choice, SentenceEmbedder embedder, TextSource source,
                     List<TextSource.Text> firstChunk, int chunk, long inputBytes) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (embedder.poolingStatedBy().isEmpty()) {
            err.println(spec.qualifiedName() + ": note: " + embedder.description() + " states no pooling (no "
                    + "sentence-transformers 1_Pooling/config.json, no langchain4j model class), so "
                    + embedder.pooling().name().toLowerCase(Locale.ROOT) + " pooling is used; if the model was "
                    + "trained with another, pass --pooling cls or --pooling max");
            err.flush();
        }
        boolean report = !"-".equals(target);
        Progress progress = new Progress(err, source != null && Terminal.stderrIsTerminal(), inputBytes,
                System::nanoTime);
        List<SentenceEmbedding> kept = new ArrayList<>();
        long count = 0;
        long atLimit = 0;
        long bytesRead = 0;
        try (AtomicFile file = target == null || target.equals("-") ? null : AtomicFile.create(Path.of(target))) {
            EmbeddingFormat.Sink sink = target == null ? null
                    : file == null ? effectiveFormat.on(out, ids) : effectiveFormat.on(file, ids);
            List<String> pending = new ArrayList<>(arguments);
            List<TextSource.Text> next = firstChunk;
            while (true) {
                List<String> texts = new ArrayList<>();
                if (!pending.isEmpty()) {
                    int n = Math.min(chunk, pending.size());
                    texts.addAll(pending.subList(0, n));
                    pending.subList(0, n).clear();
                } else {
                    if (next.isEmpty() && source != null) {
                        next = next(source, chunk);
                    }
                    for (TextSource.Text t : next) {
                        texts.add(t.text());
                        bytesRead = t.bytesRead();
                    }
                    next = List.of();
                }
                if (texts.isEmpty()) {
                    break;
                }
                long start = System.nanoTime();
                List<SentenceEmbedding> done = embedder.embed(texts);
                if (count == 0) {
                    CommandLog.firstCall(spec.qualifiedName(), texts.size() + (texts.size() == 1 ? " text" : " texts"),
                            start);
                }
                for (SentenceEmbedding e : done) {
                    count++;
                    if (longTexts == LongTexts.TRUNCATE && e.ids().length >= embedder.maxLength()) {
                        atLimit++;
                    }
                    if (similarity ? count <= SIMILARITY_LIMIT : count <= HANDFUL) {
                        kept.add(e);
                    } else if (similarity) {
                        throw bad("--similarity compares at most " + SIMILARITY_LIMIT + " texts (it keeps every "
                                + "vector and prints a table of their pairs); this input has more");
                    }
                    if (sink != null) {
                        sink.write(e);
                    }
                }
                if (sink != null) {
                    sink.flush();
                }
                progress.update(count, bytesRead);
            }
            if (sink != null) {
                sink.finish();
            }
            if (file != null) {
                file.commit();
            }
        }
        progress.finish(count, bytesRead);
        if (atLimit > 0) {
            err.println(spec.qualifiedName() + ": note: " + atLimit + " text" + (atLimit == 1 ? "" : "s")
                    + " reached the limit of " + embedder.maxLength() + " tokens, so longer ones were truncated; "
                    + "--long split reads a text whole");
        }
        err.flush();
        if (report) {
            print(out, choice, embedder, kept, count);
        }
        out.flush();
    }

    /** Refuses empty TEXT arguments and a missing input, before any work. */
    private void checkArguments() {
        for (int i = 0; i < arguments.size(); i++) {
            if (arguments.get(i).isBlank()) {
                throw bad("text " + (i + 1) + " is empty");
            }
        }
        if (arguments.isEmpty() && input == null) {
            throw bad("no text to embed: give TEXT arguments or --input FILE");
        }
        if (input != null && !input.equals("-")) {
            Path file = Path.of(input);
            if (!Files.exists(file)) {
                throw bad("--input " + input + " does not exist");
            }
            if (Files.isDirectory(file) || !Files.isReadable(file)) {
                throw bad("--input " + input + (Files.isDirectory(file) ? " is a directory" : " is not readable"));
            }
        }
    }

    /** Decides where the embeddings go and refuses what cannot work, before the model is loaded. */
    private void checkOutput() {
        target = output != null ? output : format != null || input != null ? "-" : null;
        effectiveFormat = format != null ? format : EmbeddingFormat.JSONL;
        if (target == null) {
            if (ids) {
                throw bad("--ids needs --output (or --format) to write the ids to");
            }
            return;
        }
        if (effectiveFormat == EmbeddingFormat.NPY && ids) {
            throw bad("--ids cannot go into npy, which holds only the float32 matrix; use jsonl, json or csv");
        }
        if (target.equals("-")) {
            if (effectiveFormat == EmbeddingFormat.NPY) {
                throw bad("--format npy needs --output FILE: its header states the number of rows, known only at the "
                        + "end");
            }
            if (similarity) {
                throw bad("--similarity prints a table on standard output, which the embeddings fill; write them "
                        + "with --output FILE");
            }
            return;
        }
        Path file = Path.of(target);
        if (Files.isDirectory(file)) {
            throw bad("--output " + target + " is a directory; name a file");
        }
        Directories.requireWritable(file.toAbsolutePath().getParent(), "--output " + target + ": its directory",
                spec);
    }

    private void checkModelPaths() {
        if (tokenizer != null && !Files.isRegularFile(tokenizer)) {
            throw bad("--tokenizer " + tokenizer + (Files.exists(tokenizer) ? " is not a file" : " does not exist"));
        }
        if (tokenizer != null && model == null) {
            throw bad("--tokenizer needs --model: the embedded model has its own");
        }
    }

    /**
     * The next chunk of the input: full chunks from a regular file (so that the batches, and the numbers, do not
     * depend on timing), what has arrived within {@value #LINGER_MS} ms from standard input or a pipe (so that a
     * text typed or piped in slowly is embedded without waiting for more).
     */
    private List<TextSource.Text> next(TextSource source, int chunk) throws IOException {
        boolean file = !input.equals("-") && Files.isRegularFile(Path.of(input));
        try {
            return source.next(chunk, file ? Long.MAX_VALUE : LINGER_MS);
        } catch (TextSource.BadInput e) {
            throw bad(e.getMessage());
        }
    }

    private TextSource openInput() throws IOException {
        InputStream in = input.equals("-") ? System.in : Files.newInputStream(Path.of(input));
        return TextSource.start(in, "--input " + input);
    }

    /** @return the weight type {@code --weights} asks for, or null to keep the files' */
    private WeightType storage() {
        return switch (weights.trim().toLowerCase(Locale.ROOT)) {
            case "as-file" -> null;
            case "f32" -> WeightType.F32;
            case "q8" -> WeightType.I8;
            default -> throw bad("--weights " + weights + " is not one of as-file, f32, q8");
        };
    }

    /** Loads the model; what is wrong with its files is bad input, on one line. */
    private SentenceEmbedder load(Checkpoint checkpoint, BackendChoice choice, EmbeddingOptions options)
            throws IOException {
        try {
            if (checkpoint == null) {
                return SentenceEmbedder.loadDefault(choice.backend(), options);
            }
            return SentenceEmbedder.from(checkpoint, choice.backend(), options);
        } catch (NoSuchFileException e) {
            throw bad("--model " + model + ": " + CheckpointOption.missing(e));
        } catch (IOException | IllegalArgumentException e) {
            throw bad((model == null ? "the embedded model" : "--model " + model) + ": " + oneLine(e.getMessage()));
        }
    }

    static String oneLine(String message) {
        return String.valueOf(message).strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    private void print(PrintWriter o, BackendChoice choice, SentenceEmbedder embedder, List<SentenceEmbedding> kept,
                       long count) {
        o.println("attn4j embed: " + embedder.description() + ", " + embedder.dimension() + " dimensions, "
                + embedder.pooling().name().toLowerCase(Locale.ROOT) + " pooling, "
                + (embedder.normalizes() ? "normalized" : "not normalized") + ", at most " + embedder.maxLength()
                + " tokens per text" + (embedder.longTexts() == LongTexts.SPLIT ? " (longer texts read in windows)"
                : ""));
        o.println("backend: " + choice.backend().name() + " (" + choice.reason() + ")");
        embedder.poolingStatedBy().ifPresent(s -> o.println("pooling: stated by " + s));
        if (!embedder.prompt().isEmpty()) {
            o.println("prompt: '" + embedder.prompt() + "' before every text");
        }
        embedder.notes().forEach(n -> o.println("note: " + n));
        o.println();
        if (count <= HANDFUL) {
            TextTable list = new TextTable(List.of("#", "tokens", "text"),
                    List.of(Align.RIGHT, Align.RIGHT, Align.LEFT));
            for (int i = 0; i < kept.size(); i++) {
                SentenceEmbedding e = kept.get(i);
                list.row(List.of(Integer.toString(i + 1), Integer.toString(e.ids().length), shown(e.text())));
            }
            list.lines("").forEach(o::println);
        } else {
            o.println(String.format(Locale.ROOT, "%,d texts embedded", count));
        }
        if (target != null) {
            o.println("embeddings: " + target + " (" + effectiveFormat.label() + ")");
        } else if (count > HANDFUL) {
            o.println("the embeddings were not written: add --output FILE, or --output - for standard output");
        }
        if (similarity || count <= HANDFUL) {
            o.println();
            o.println("cosine similarity (row text · column text)");
            similarityTable(kept).lines("").forEach(o::println);
        }
        o.flush();
    }

    private static TextTable similarityTable(List<SentenceEmbedding> embeddings) {
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
            for (SentenceEmbedding other : embeddings) {
                cells.add(String.format(Locale.ROOT, "%.3f", embeddings.get(i).cosine(other)));
            }
            cosines.row(cells);
        }
        return cosines;
    }

    private static String shown(String text) {
        String oneLine = text.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= SHOWN_CHARS ? oneLine : oneLine.substring(0, SHOWN_CHARS - 1) + "…";
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
