package org.attn4j.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.attn4j.cli.TextTable.Align;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.RerankOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j rerank}: scores passages against a query with a cross-encoder ({@link CrossEncoder}) and prints them
 * best first. Ranking needs every score, so the passages are held in memory (scored in batches).
 */
@Command(name = "rerank", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Score how well each passage answers a query with a cross-encoder (a BERT with a one-label "
                + "classification head, such as cross-encoder/ms-marco-MiniLM-L-6-v2) and list the passages best "
                + "first. Passages are the PASSAGE arguments, then the lines of --input (blank lines skipped).",
                "",
                "--model takes what embed takes: a Hugging Face folder (config.json with architectures "
                        + "BertForSequenceClassification or XLMRobertaForSequenceClassification, model.safetensors or model.onnx, tokenizer.json or "
                        + "vocab.txt), an .onnx file or a jar. Scores are the model's logits, or their sigmoid when "
                        + "its config.json names a Sigmoid activation (sentence_transformers.activation_fn) or with "
                        + "--sigmoid."},
        footer = {"", "Exit codes: 0 ok, 1 failure (the backend cannot run, the output cannot be written), 2 bad input "
                + "(no query or passage, a model that is no one-label cross-encoder or cannot be read)."})
final class RerankCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "PATH", required = true,
            description = "The cross-encoder: a folder (a BERT-family classifier, or a Qwen3-Reranker), an .onnx "
                    + "file or a jar.")
    private Path model;

    @Option(names = "--tokenizer", paramLabel = "FILE",
            description = "Its tokenizer.json or vocab.txt, instead of the one found beside the weights.")
    private Path tokenizer;

    @Option(names = "--query", paramLabel = "TEXT", required = true, description = "The query.")
    private String query;

    @Option(names = "--input", paramLabel = "FILE",
            description = "Read passages from FILE, one per line (blank lines skipped), or from standard input for -;"
                    + " they follow the PASSAGE arguments.")
    private String input;

    @Option(names = "--top", paramLabel = "K", description = "List only the K best passages (default: all).")
    private Integer top;

    @Option(names = "--sigmoid", description = "Map scores into (0, 1) with 1 / (1 + exp(-logit)).")
    private boolean sigmoid;

    @Option(names = "--instruction", paramLabel = "TEXT",
            description = "The task a Qwen3-Reranker judges each pair for (default: its model card's \"Given a web "
                    + "search query, retrieve relevant passages that answer the query\"); other cross-encoders read "
                    + "none.")
    private String instruction;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to run on (see 'attn4j backends').")
    private String backend;

    @Option(names = "--batch-size", paramLabel = "N", description = "Pairs per forward call (default: 32).")
    private int batchSize = 32;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the ranking as JSON Lines ({\"rank\", \"index\", \"score\", \"passage\"} a line) to FILE,"
                    + " or to standard output for -, instead of the table.")
    private String output;

    @Parameters(paramLabel = "PASSAGE", arity = "0..*", description = "The passages to rank.")
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        if (query.isBlank()) {
            throw bad("--query is empty");
        }
        if (top != null && top < 1) {
            throw bad("--top " + top + " must be at least 1");
        }
        if (batchSize < 1) {
            throw bad("--batch-size " + batchSize + " must be at least 1");
        }
        if (tokenizer != null && !Files.isRegularFile(tokenizer)) {
            throw bad("--tokenizer " + tokenizer + (Files.exists(tokenizer) ? " is not a file" : " does not exist"));
        }
        Checkpoint checkpoint = CheckpointOption.open(model, Checkpoint.Kind.ENCODER, tokenizer, spec);
        if (output != null && !output.equals("-")) {
            Path file = Path.of(output);
            if (Files.isDirectory(file)) {
                throw bad("--output " + output + " is a directory; name a file");
            }
            Directories.requireWritable(file.toAbsolutePath().getParent(), "--output " + output + ": its directory",
                    spec);
        }
        List<String> passages = passages();
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        RerankOptions options = RerankOptions.defaults().withBatchSize(batchSize);
        if (sigmoid) {
            options = options.withSigmoid(true);
        }
        if (instruction != null) {
            options = options.withInstruction(instruction);
        }
        try (CrossEncoder encoder = load(checkpoint, choice, options)) {
            List<CrossEncoder.Ranked> ranked = encoder.rank(query, passages);
            if (top != null && ranked.size() > top) {
                ranked = ranked.subList(0, top);
            }
            if (encoder.activationStatedBy().isEmpty()) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": note: scores are raw logits: "
                        + encoder.description() + " names no activation (config.json's "
                        + "sentence_transformers.activation_fn); --sigmoid maps them into (0, 1)");
                spec.commandLine().getErr().flush();
            }
            if (output == null) {
                table(choice, encoder, ranked);
            } else if (output.equals("-")) {
                jsonl(spec.commandLine().getOut(), ranked);
            } else {
                try (AtomicFile file = AtomicFile.create(Path.of(output))) {
                    Writer w = new OutputStreamWriter(file.stream(), StandardCharsets.UTF_8);
                    jsonl(w, ranked);
                    file.commit();
                }
            }
        }
        return 0;
    }

    private List<String> passages() throws IOException {
        List<String> passages = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            if (arguments.get(i).isBlank()) {
                throw bad("passage " + (i + 1) + " is empty");
            }
            passages.add(arguments.get(i));
        }
        if (input != null) {
            InputStream in;
            if (input.equals("-")) {
                in = System.in;
            } else {
                Path file = Path.of(input);
                if (!Files.exists(file) || Files.isDirectory(file)) {
                    throw bad("--input " + input + (Files.isDirectory(file) ? " is a directory" : " does not exist"));
                }
                in = Files.newInputStream(file);
            }
            try (TextSource source = TextSource.start(in, "--input " + input)) {
                for (List<TextSource.Text> chunk = source.next(TextSource.AHEAD, Long.MAX_VALUE); !chunk.isEmpty();
                     chunk = source.next(TextSource.AHEAD, Long.MAX_VALUE)) {
                    chunk.forEach(t -> passages.add(t.text()));
                }
            } catch (TextSource.BadInput e) {
                throw bad(e.getMessage());
            }
        }
        if (passages.isEmpty()) {
            throw bad("no passage to rank: give PASSAGE arguments or --input FILE");
        }
        return passages;
    }

    private CrossEncoder load(Checkpoint checkpoint, BackendChoice choice, RerankOptions options)
            throws IOException {
        try {
            return CrossEncoder.from(checkpoint, choice.backend(), options);
        } catch (NoSuchFileException e) {
            throw bad("--model " + model + ": " + CheckpointOption.missing(e));
        } catch (IOException | IllegalArgumentException e) {
            throw bad("--model " + model + ": " + EmbedCommand.oneLine(e.getMessage()));
        }
    }

    private void table(BackendChoice choice, CrossEncoder encoder, List<CrossEncoder.Ranked> ranked) {
        PrintWriter o = spec.commandLine().getOut();
        o.println("attn4j rerank: " + encoder.description() + ", " + (encoder.sigmoid() ? "sigmoid scores"
                : "logit scores") + ", at most " + encoder.maxLength() + " tokens per query and passage");
        o.println("backend: " + choice.backend().name() + " (" + choice.reason() + ")");
        o.println("query: " + query);
        o.println();
        TextTable t = new TextTable(List.of("rank", "score", "#", "passage"),
                List.of(Align.RIGHT, Align.RIGHT, Align.RIGHT, Align.LEFT));
        for (int i = 0; i < ranked.size(); i++) {
            CrossEncoder.Ranked r = ranked.get(i);
            String passage = r.passage().strip().replaceAll("\\s+", " ");
            t.row(List.of(Integer.toString(i + 1), String.format(Locale.ROOT, "%.4f", r.score()),
                    Integer.toString(r.index() + 1), passage.length() <= EmbedCommand.SHOWN_CHARS ? passage
                            : passage.substring(0, EmbedCommand.SHOWN_CHARS - 1) + "…"));
        }
        t.lines("").forEach(o::println);
        o.flush();
    }

    private static void jsonl(Writer out, List<CrossEncoder.Ranked> ranked) throws IOException {
        JsonGenerator g = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build()
                .createGenerator(out);
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        g.setRootValueSeparator(null);
        for (int i = 0; i < ranked.size(); i++) {
            CrossEncoder.Ranked r = ranked.get(i);
            g.writeStartObject();
            g.writeNumberField("rank", i + 1);
            g.writeNumberField("index", r.index() + 1);
            g.writeNumberField("score", r.score());
            g.writeStringField("passage", r.passage());
            g.writeEndObject();
            g.writeRaw('\n');
        }
        g.flush();
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
