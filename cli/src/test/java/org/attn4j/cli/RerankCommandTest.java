package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.RerankOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code attn4j rerank} on a small random-weight cross-encoder folder; the numbers are the library's. */
class RerankCommandTest {
    private static final String QUERY = "how do plants make food?";
    private static final List<String> PASSAGES = List.of("green leaves use sun light and water.", "the cat sat.",
            "stock markets fell.", "paris is the capital of france.");

    @TempDir
    static Path shared;

    private static Path model;
    private static double[] scores;

    @TempDir
    Path dir;

    @BeforeAll
    static void writeModel() throws IOException {
        model = TinyBert.write(shared.resolve("cross"), 8, true);
        try (CrossEncoder r = CrossEncoder.load(model, Backends.load("ejml"), RerankOptions.defaults())) {
            scores = r.score(QUERY, PASSAGES);
        }
    }

    private static int[] bestFirst() {
        Integer[] order = {0, 1, 2, 3};
        java.util.Arrays.sort(order, (a, b) -> Double.compare(scores[b], scores[a]));
        return java.util.Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    }

    @Test
    void printsThePassagesBestFirstWithTheirScores() {
        List<String> all = new java.util.ArrayList<>(List.of("rerank", "--backend", "ejml", "--model",
                model.toString(), "--query", QUERY));
        all.addAll(PASSAGES);
        Cli r = Cli.run(all.toArray(new String[0]));
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j rerank: " + model + ", logit scores, at most 64 tokens per query and passage",
                lines.get(0));
        assertEquals("query: " + QUERY, lines.get(2));
        assertTrue(lines.get(4).matches("rank +score +# +passage"), r.transcript());
        int[] order = bestFirst();
        for (int k = 0; k < order.length; k++) {
            String[] cells = lines.get(5 + k).trim().split(" +", 4);
            assertEquals(Integer.toString(k + 1), cells[0]);
            assertEquals(String.format(Locale.ROOT, "%.4f", scores[order[k]]), cells[1]);
            assertEquals(Integer.toString(order[k] + 1), cells[2]);
            assertEquals(PASSAGES.get(order[k]), cells[3]);
        }
        assertTrue(r.err().startsWith("attn4j rerank: note: scores are raw logits: " + model + " names no activation"),
                r.transcript());
    }

    @Test
    void jsonLinesTopAndSigmoidFromAnInputFile() throws IOException {
        Path input = Files.writeString(dir.resolve("passages.txt"), String.join("\n\n", PASSAGES) + "\n");
        Path out = dir.resolve("ranked.jsonl");
        Cli r = Cli.run("rerank", "--backend", "ejml", "--model", model.toString(), "--query", QUERY, "--input",
                input.toString(), "--top", "2", "--sigmoid", "--output", out.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("", r.err(), r.transcript());
        List<String> lines = Files.readAllLines(out);
        assertEquals(2, lines.size());
        int[] order = bestFirst();
        for (int k = 0; k < 2; k++) {
            JsonNode o = new ObjectMapper().readTree(lines.get(k));
            assertEquals(k + 1, o.get("rank").asInt());
            assertEquals(order[k] + 1, o.get("index").asInt());
            assertEquals(1 / (1 + Math.exp(-scores[order[k]])), o.get("score").asDouble(), 1e-12);
            assertEquals(PASSAGES.get(order[k]), o.get("passage").asText());
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws IOException {
        Path encoder = TinyBert.write(dir.resolve("plain"), 8, false);
        for (List<String> args : List.of(
                List.of("--query", QUERY, "--model", model.toString()),
                List.of("--query", " ", "--model", model.toString(), "a"),
                List.of("--query", QUERY, "--model", dir.resolve("absent").toString(), "a"),
                List.of("--query", QUERY, "--model", model.toString(), "--top", "0", "a"),
                List.of("--query", QUERY, "--model", encoder.toString(), "a"),
                List.of("--query", QUERY, "--model", model.toString(), "--instruction", "judge", "a"),
                List.of("--model", model.toString(), "a"))) {
            List<String> all = new java.util.ArrayList<>(List.of("rerank", "--backend", "ejml"));
            all.addAll(args);
            Cli r = Cli.run(all.toArray(new String[0]));
            assertEquals(2, r.exitCode(), args + "\n" + r.transcript());
            assertEquals(1, r.err().strip().lines().count(), r.transcript());
            assertFalse(r.err().contains("\tat "), r.transcript());
        }
        Cli r = Cli.run("rerank", "--backend", "ejml", "--query", QUERY, "--model", encoder.toString(), "a");
        assertTrue(r.err().contains("is not a cross-encoder: it has no classifier.weight"), r.transcript());
        r = Cli.run("rerank", "--backend", "ejml", "--query", QUERY, "--model", model.toString(), "--instruction",
                "judge", "a");
        assertTrue(r.err().contains("which reads no instruction"), r.transcript());
    }
}
