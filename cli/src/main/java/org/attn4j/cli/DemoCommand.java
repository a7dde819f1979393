package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.cli.TextTable.Align;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j demo}: the {@link Walkthrough} on one backend, printed step by step with word-labelled weight
 * tables, and drawn as {@code attention-heatmap.png} in the output directory.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Walk a sentence through embedding, simplified, scaled and causal self-attention, multi-head "
                + "attention and a transformer block. Prints each step's shapes and attention weights, labelled "
                + "with the words, and writes a heatmap of the weights to DIR/" + DemoCommand.HEATMAP + " (and the "
                + "numbers to DIR/" + DemoCommand.SIDECAR + ")."},
        footer = {"", "Exit codes: 0 ok, 1 failure (the backend cannot run, the picture cannot be written), "
                + "2 bad input."})
final class DemoCommand implements Callable<Integer> {
    static final String HEATMAP = "attention-heatmap.png";
    static final String SIDECAR = "attention-heatmap.json";
    /** Limits that keep the tables readable and the picture a sensible size. */
    static final int MAX_WORDS = 64;
    static final int MAX_DIM = 1024;
    static final int MAX_HEADS = 16;

    @Spec
    private CommandSpec spec;

    @Option(names = "--text", paramLabel = "TEXT", defaultValue = Walkthrough.DEFAULT_TEXT,
            description = "The sentence, 1 to " + MAX_WORDS + " words; punctuation is dropped (default: "
                    + "${DEFAULT-VALUE}).")
    private String text;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to run on (see 'attn4j backends'); default: the one -Dattn4j.backend, "
                    + "ATTN4J_BACKEND or the highest priority picks.")
    private String backend;

    @Option(names = "--heads", paramLabel = "N", defaultValue = "4",
            description = "Heads of the multi-head step and the transformer block, 1 to " + MAX_HEADS
                    + "; must divide --dim (default: ${DEFAULT-VALUE}).")
    private int heads;

    @Option(names = "--dim", paramLabel = "D", defaultValue = "16",
            description = "The embedding (model) dimension, 1 to " + MAX_DIM + " (default: ${DEFAULT-VALUE}).")
    private int dim;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "123",
            description = "The seed of every random weight, so runs repeat exactly (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "attn4j-demo",
            description = "Where the heatmap is written; created if missing (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Override
    public Integer call() throws IOException {
        validate();
        Path dir = outputDirectory();
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        PrintWriter o = spec.commandLine().getOut();
        printHeader(o, choice);
        List<Walkthrough.Step> steps = new ArrayList<>(Walkthrough.run(choice.backend(), text, dim, heads, seed));
        steps.add(PretrainedAttention.run(choice.backend(), text));
        for (int i = 0; i < steps.size(); i++) {
            printStep(o, i + 1, steps.get(i));
        }

        List<Heatmap.Row> rows = heatmapRows(steps);
        String title = "attn4j attention weights of \"" + Heatmap.shortened(text.strip(), Heatmap.MAX_TITLE) + "\" on "
                + choice.backend().name() + ": random weights (seed " + seed + "), then the pretrained"
                + " all-MiniLM-L6-v2";
        Path file = dir.resolve(HEATMAP);
        Heatmap.Layout layout = Heatmap.write(title, rows, file);
        Path sidecar = dir.resolve(SIDECAR);
        String json = Heatmap.json(title, rows, layout);
        AtomicFile.write(sidecar, out -> out.write(json.getBytes(StandardCharsets.UTF_8)));
        o.println();
        o.println("heatmap: " + file + " (" + layout.width() + "x" + layout.height() + " px, "
                + layout.grids().size() + " panels: " + layout.grids().stream().map(Heatmap.Box::label)
                .collect(Collectors.joining(", ")) + ")");
        o.println("weights: " + sidecar + " (the same numbers and the panels' positions, as JSON)");
        o.flush();
        return 0;
    }

    private void validate() {
        int words = Walkthrough.words(text).size();
        if (words == 0) {
            throw bad("--text is empty: give a sentence with at least one word");
        }
        if (words > MAX_WORDS) {
            throw bad("--text has " + words + " words; the demo shows at most " + MAX_WORDS);
        }
        if (dim < 1 || dim > MAX_DIM) {
            throw bad("--dim is " + dim + ": use 1 to " + MAX_DIM);
        }
        if (heads < 1 || heads > dim) {
            throw bad("--heads " + heads + " is not possible with --dim " + dim + ": each head needs at least one "
                    + "dimension, so use 1 to " + dim);
        }
        if (heads > MAX_HEADS) {
            throw bad("--heads " + heads + " is more than the demo draws: use at most " + MAX_HEADS
                    + " (one heatmap panel per head)");
        }
        if (dim % heads != 0) {
            throw bad("--heads " + heads + " does not divide --dim " + dim + ": use one of "
                    + IntStream.rangeClosed(1, dim).filter(h -> dim % h == 0).mapToObj(Integer::toString)
                    .collect(Collectors.joining(", ")));
        }
    }

    private void printHeader(PrintWriter o, BackendChoice choice) {
        Capabilities c = choice.backend().capabilities();
        o.println("attn4j demo: \"" + text.strip() + "\"");
        o.println("backend: " + choice.backend().name() + " (" + choice.reason() + ")");
        o.println("         device " + c.device() + ", dtypes " + c.dtypes().stream().map(Enum::name).sorted()
                .collect(Collectors.joining(",")) + ", fused attention " + (c.has(Feature.FUSED_ATTENTION) ? "yes" : "no")
                + ", up to " + c.maxThreads() + " thread" + (c.maxThreads() == 1 ? "" : "s"));
        o.println("model:   d_model " + dim + ", " + heads + " head" + (heads == 1 ? "" : "s") + " of "
                + dim / heads + ", seed " + seed + ", F32, inference (no dropout)");
        o.flush();
    }

    private static void printStep(PrintWriter o, int number, Walkthrough.Step s) {
        o.println();
        o.println(number + ". " + s.title());
        s.formula().forEach(f -> o.println("   " + f));
        TextTable shapes = new TextTable(List.of("tensor", "shape", "what"), List.of(Align.LEFT, Align.LEFT,
                Align.LEFT));
        s.tensors().forEach(t -> shapes.row(List.of(t.name(), t.shape().toString(), t.what())));
        shapes.lines("   ").forEach(o::println);
        for (Heatmap.Panel p : s.weights()) {
            o.println();
            o.println("   " + p.title() + " (row: query word attends to column: key word; rows sum to 1)");
            weightTable(p).lines("   ").forEach(o::println);
        }
        o.flush();
    }

    /** One heatmap row per band; consecutive steps of the same band share it. */
    private static List<Heatmap.Row> heatmapRows(List<Walkthrough.Step> steps) {
        List<Heatmap.Row> rows = new ArrayList<>();
        for (Walkthrough.Step s : steps) {
            if (s.heatmapBand() == null) {
                continue;
            }
            Heatmap.Row last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            if (last != null && last.caption().equals(s.heatmapBand())) {
                List<Heatmap.Panel> panels = new ArrayList<>(last.panels());
                panels.addAll(s.weights());
                rows.set(rows.size() - 1, new Heatmap.Row(last.caption(), panels));
            } else {
                rows.add(new Heatmap.Row(s.heatmapBand(), s.weights()));
            }
        }
        return rows;
    }

    private static TextTable weightTable(Heatmap.Panel p) {
        List<String> headers = new ArrayList<>();
        List<Align> aligns = new ArrayList<>();
        headers.add("");
        aligns.add(Align.LEFT);
        for (String w : p.columnLabels()) {
            headers.add(w);
            aligns.add(Align.RIGHT);
        }
        TextTable t = new TextTable(headers, aligns);
        for (int i = 0; i < p.weights().length; i++) {
            List<String> cells = new ArrayList<>();
            cells.add(p.rowLabels().get(i));
            for (double w : p.weights()[i]) {
                cells.add(String.format(Locale.ROOT, "%.3f", w));
            }
            t.row(cells);
        }
        return t;
    }

    /** Creates the output directory and checks it can take the picture, before any work is done. */
    private Path outputDirectory() {
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw bad("--out " + out + " is a file, not a directory");
        }
        Directories.requireWritable(out, "--out " + out, spec);
        return out;
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
