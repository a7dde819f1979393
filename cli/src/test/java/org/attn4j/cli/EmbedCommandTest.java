package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.Embedding;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbedCommandTest {

    private static final String CAT = "The cat sat on the mat.";
    private static final String KITTEN = "A kitten is sitting on a rug.";
    private static final String MARKETS = "Stock markets fell sharply on Monday.";

    @TempDir
    Path dir;

    @Test
    void printsTheTextsAndTheirCosineSimilarities() {
        Cli r = Cli.run("embed", "--backend", "ejml", CAT, KITTEN, MARKETS);
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j embed: all-MiniLM-L6-v2 (embedded), 384 dimensions, mean pooling, normalized, at most 256 "
                + "tokens per text",
                lines.get(0), r.transcript());
        assertEquals("backend: ejml (requested with --backend)", lines.get(1), r.transcript());
        assertTrue(lines.get(3).matches("# +tokens +text"), r.transcript());
        assertTrue(lines.get(4).matches("1 +\\d+ +" + java.util.regex.Pattern.quote(CAT)), r.transcript());
        int table = lines.indexOf("cosine similarity (row text · column text)");
        assertTrue(lines.get(table + 1).matches("# +1 +2 +3"), r.transcript());
        double[][] cos = new double[3][3];
        for (int i = 0; i < 3; i++) {
            String[] cells = lines.get(table + 2 + i).trim().split(" +");
            assertEquals(Integer.toString(i + 1), cells[0]);
            for (int j = 0; j < 3; j++) {
                cos[i][j] = Double.parseDouble(cells[j + 1]);
            }
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(1.0, cos[i][i], 1e-3, "diagonal " + i);
            for (int j = 0; j < 3; j++) {
                assertEquals(cos[i][j], cos[j][i], 0.0, "symmetry " + i + "," + j);
            }
        }
        assertTrue(cos[0][1] > cos[0][2] + 0.2, "cat~kitten " + cos[0][1] + " vs cat~markets " + cos[0][2]);
    }

    @Test
    void theJsonHoldsTextIdsAndTheSameEmbeddingsAsTheLibrary() throws IOException {
        Path json = dir.resolve("out/embeddings.json");
        Cli r = Cli.run("embed", "--backend", "ejml", "--json", json.toString(), CAT, MARKETS);
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().lines().toList().contains("json: " + json), r.transcript());
        JsonNode array = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, array.size());
        List<Embedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            expected = embedder.embed(java.util.Arrays.asList(CAT, MARKETS));
        }
        for (int i = 0; i < 2; i++) {
            JsonNode o = array.get(i);
            assertEquals(List.of("text", "ids", "embedding"), iterate(o.fieldNames()));
            assertEquals(expected.get(i).text(), o.get("text").asText());
            int[] ids = new int[o.get("ids").size()];
            for (int k = 0; k < ids.length; k++) {
                ids[k] = o.get("ids").get(k).asInt();
            }
            assertEquals(java.util.Arrays.toString(expected.get(i).ids()), java.util.Arrays.toString(ids));
            float[] vector = expected.get(i).vector();
            assertEquals(vector.length, o.get("embedding").size());
            for (int k = 0; k < vector.length; k++) {
                float actual = o.get("embedding").get(k).floatValue();
                if (actual != vector[k]) {
                    fail("text " + i + " index " + k + " expected " + vector[k] + " actual " + actual);
                }
            }
        }
        try (var files = Files.list(json.getParent())) {
            assertEquals(List.of(json), files.toList(), "only the JSON is left in its folder");
        }
    }

    @Test
    void poolingAndNormalizationFollowTheOptions() throws IOException {
        Path mean = dir.resolve("mean.json");
        Path cls = dir.resolve("cls.json");
        assertEquals(0, Cli.run("embed", "--backend", "ejml", "--no-normalize", "--json", mean.toString(), CAT)
                .exitCode());
        Cli r = Cli.run("embed", "--backend", "ejml", "--pooling", "cls", "--json", cls.toString(), CAT);
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().startsWith("attn4j embed: all-MiniLM-L6-v2 (embedded), 384 dimensions, cls pooling, "
                + "normalized, "), r.transcript());
        double meanNorm = norm(new ObjectMapper().readTree(mean.toFile()).get(0).get("embedding"));
        double clsNorm = norm(new ObjectMapper().readTree(cls.toFile()).get(0).get("embedding"));
        assertTrue(Math.abs(meanNorm - 1) > 1e-2, "--no-normalize left norm " + meanNorm);
        assertEquals(1.0, clsNorm, 1e-5);
    }

    @Test
    void inputReadsOneTextPerLineFromAFileOrStandardInput() throws IOException {
        Path file = Files.writeString(dir.resolve("texts.txt"), CAT + "\n\n  \n" + KITTEN + "\n");
        Cli r = Cli.run("embed", "--backend", "ejml", "--input", file.toString(), MARKETS);
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(4).endsWith(MARKETS) && lines.get(5).endsWith(CAT) && lines.get(6).endsWith(KITTEN),
                r.transcript());

        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream((KITTEN + "\n" + CAT).getBytes(StandardCharsets.UTF_8)));
            Cli s = Cli.run("embed", "--backend", "ejml", "--input", "-");
            assertEquals(0, s.exitCode(), s.transcript());
            assertTrue(s.out().lines().toList().get(4).endsWith(KITTEN), s.transcript());
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void aMissingModelFolderIsOneLineAndExitTwo() {
        Path missing = dir.resolve("no-model");
        assertBadInput("attn4j embed: --model " + missing + " does not exist", "--model", missing.toString(), CAT);
    }

    @Test
    void aModelFolderWithoutATokenizerIsOneLineAndExitTwo() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("bert"));
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"bert\"}");
        assertBadInput("attn4j embed: --model " + folder + " has no tokenizer.json", "--model", folder.toString(),
                CAT);
    }

    @Test
    void anUnknownModelTypeIsOneLineAndExitTwo() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("gpt"));
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"gpt2\", \"n_embd\": 768}");
        Files.writeString(folder.resolve("tokenizer.json"), "{}");
        Files.write(folder.resolve("model.safetensors"), new byte[] {8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ',
            ' ', ' ', ' ', ' '});
        Cli r = assertBadInput(null, "--backend", "ejml", "--model", folder.toString(), CAT);
        assertTrue(r.err().startsWith("attn4j embed: --model " + folder + ": ") && r.err().contains("gpt2"),
                r.transcript());
    }

    @Test
    void anEmptyInputIsOneLineAndExitTwo() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.txt"), "\n \n");
        assertBadInput("attn4j embed: --input " + empty + " holds no text", "--input", empty.toString());
        assertBadInput("attn4j embed: no text to embed: give TEXT arguments or --input FILE");
        assertBadInput("attn4j embed: text 2 is empty", CAT, "");
    }

    @Test
    void aHundredThousandWordTextIsOneLineAndExitTwo() {
        String huge = "word ".repeat(100_000);
        assertBadInput("attn4j embed: text 1 has 100000 words; embed takes at most " + EmbedCommand.MAX_WORDS
                + " per text (the model reads only its first tokens): split it", huge);
    }

    @Test
    void aJsonTargetThatIsADirectoryIsOneLineAndExitTwo() {
        assertBadInput("attn4j embed: --json " + dir + " is a directory; name a file", "--json", dir.toString(), CAT);
    }

    @Test
    void aFailedRunLeavesNoJsonBehind() throws IOException {
        Path json = dir.resolve("never.json");
        assertBadInput("attn4j embed: text 1 is empty", "--json", json.toString(), " ");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.toList());
        }
    }

    /** Runs with the given args and checks exit 2, one line on standard error (equal to {@code expected} if given). */
    private static Cli assertBadInput(String expected, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "embed";
        System.arraycopy(args, 0, all, 1, args.length);
        Cli r = Cli.run(all);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().strip().lines().count(), r.transcript());
        assertEquals("", r.out(), r.transcript());
        if (expected != null) {
            assertEquals(expected + " (see 'attn4j embed --help')", r.err().strip(), r.transcript());
        }
        assertFalse(r.err().contains("\tat "), r.transcript());
        return r;
    }

    private static double norm(JsonNode vector) {
        double s = 0;
        for (JsonNode v : vector) {
            s += v.asDouble() * v.asDouble();
        }
        return Math.sqrt(s);
    }

    private static List<String> iterate(java.util.Iterator<String> names) {
        List<String> out = new java.util.ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }
}
