package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.attn4j.api.Backends;
import org.attn4j.api.WeightType;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.GgufEncoders;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbedCommandTest {

    private static final String CAT = "The cat sat on the mat.";
    private static final String KITTEN = "A kitten is sitting on a rug.";
    private static final String MARKETS = "Stock markets fell sharply on Monday.";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path shared;

    private static Path tiny;

    @TempDir
    Path dir;

    @BeforeAll
    static void writeTinyModel() throws IOException {
        tiny = TinyBert.write(shared.resolve("tiny"), 8, false);
    }

    @Test
    void printsTheTextsAndTheirCosineSimilarities() {
        Cli r = Cli.run("embed", "--backend", "ejml", CAT, KITTEN, MARKETS);
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("", r.err(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j embed: all-MiniLM-L6-v2 (embedded), 384 dimensions, mean pooling, normalized, at most 256 "
                + "tokens per text", lines.get(0), r.transcript());
        assertEquals("backend: ejml (requested with --backend)", lines.get(1), r.transcript());
        assertEquals("pooling: stated by all-MiniLM-L6-v2's sentence-transformers configuration", lines.get(2));
        assertTrue(lines.get(4).matches("# +tokens +text"), r.transcript());
        assertTrue(lines.get(5).matches("1 +\\d+ +" + java.util.regex.Pattern.quote(CAT)), r.transcript());
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
    void anInputStreamsToStandardOutputAsJsonLinesWithTheLibrarysEmbeddingsInInputOrder() throws IOException {
        Path file = Files.writeString(dir.resolve("texts.txt"), CAT + "\n\n  \n" + KITTEN + "\n" + MARKETS + "\n");
        Cli r = Cli.run("embed", "--backend", "ejml", "--input", file.toString(), "Hello");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("", r.err(), r.transcript());
        List<String> texts = List.of("Hello", CAT, KITTEN, MARKETS);
        List<SentenceEmbedding> expected = new ArrayList<>();
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            expected.addAll(embedder.embed(texts.subList(0, 1)));
            expected.addAll(embedder.embed(texts.subList(1, 4)));
        }
        List<String> lines = r.out().lines().toList();
        assertEquals(texts.size(), lines.size(), r.transcript());
        for (int i = 0; i < texts.size(); i++) {
            JsonNode o = JSON.readTree(lines.get(i));
            assertEquals(List.of("text", "tokens", "embedding"), names(o));
            assertEquals(texts.get(i), o.get("text").asText());
            assertEquals(expected.get(i).ids().length, o.get("tokens").asInt());
            assertVector("line " + i, expected.get(i).vector(), o.get("embedding"));
        }
    }

    @Test
    void everyFormatHoldsTheSameEmbeddings() throws IOException {
        String tricky = "a \"quoted\", comma text";
        Path input = Files.writeString(dir.resolve("in.txt"), CAT + "\n" + tricky + "\nÜber café\n");
        List<SentenceEmbedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.load(tiny, Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            expected = embedder.embed(List.of(CAT, tricky, "Über café"));
        }
        // the three lines of a file are one chunk, embedded as the library embeds the list
        Path jsonl = dir.resolve("e.jsonl");
        Path json = dir.resolve("e.json");
        Path csv = dir.resolve("e.csv");
        Path npy = dir.resolve("e.npy");
        for (String[] run : new String[][] {{"jsonl", jsonl.toString(), "--ids"}, {"json", json.toString(), "--ids"},
                {"csv", csv.toString(), "--ids"}, {"npy", npy.toString()}}) {
            List<String> args = new ArrayList<>(List.of("embed", "--backend", "ejml", "--model", tiny.toString(),
                    "--input", input.toString(), "--format", run[0], "--output", run[1]));
            args.addAll(List.of(run).subList(2, run.length));
            Cli r = Cli.run(args.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r.transcript());
            assertTrue(r.out().contains("embeddings: " + run[1] + " (" + run[0] + ")"), r.transcript());
        }
        List<String> jsonLines = Files.readAllLines(jsonl);
        JsonNode array = JSON.readTree(json.toFile());
        assertEquals(3, jsonLines.size());
        assertEquals(3, array.size());
        List<String> csvLines = Files.readAllLines(csv);
        assertTrue(csvLines.get(0).startsWith("text,tokens,ids,e0,e1,"), csvLines.get(0));
        assertEquals("\"a \"\"quoted\"\", comma text\"", csvLines.get(2).substring(0, 26));
        float[][] matrix = npy(npy);
        for (int i = 0; i < 3; i++) {
            JsonNode line = JSON.readTree(jsonLines.get(i));
            assertEquals(expected.get(i).text(), line.get("text").asText());
            assertEquals(line, array.get(i), "json and jsonl agree on text " + i);
            assertArrayEquals(expected.get(i).ids(), ints(line.get("ids")));
            assertVector("jsonl " + i, expected.get(i).vector(), line.get("embedding"));
            assertArrayEquals(expected.get(i).vector(), matrix[i], "npy row " + i);
            String[] cells = csvLines.get(i + 1).split(",");
            float[] fromCsv = new float[expected.get(i).vector().length];
            for (int j = 0; j < fromCsv.length; j++) {
                fromCsv[j] = Float.parseFloat(cells[cells.length - fromCsv.length + j]);
            }
            assertArrayEquals(expected.get(i).vector(), fromCsv, "csv row " + i);
        }
    }

    @Test
    void filesGetTheUmasksPermissionsAndAFailedRunLeavesTheTargetUntouched() throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        Set<PosixFilePermission> umask = Files.getPosixFilePermissions(probe);
        Path out = dir.resolve("out.jsonl");
        Cli ok = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--output", out.toString(), CAT);
        assertEquals(0, ok.exitCode(), ok.transcript());
        assertEquals(umask, Files.getPosixFilePermissions(out), "the permissions a new file gets, not 0600");
        String before = Files.readString(out);

        Path broken = dir.resolve("broken.txt");
        Files.write(broken, new byte[] {'o', 'k', '\n', 'f', 'i', 'n', 'e', '\n', (byte) 0xff, 'x', '\n'});
        Cli r = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--input", broken.toString(),
                "--output", out.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j embed: --input " + broken + ": line 3 is not valid UTF-8 (see 'attn4j embed --help')",
                r.err().strip(), r.transcript());
        assertEquals(before, Files.readString(out), "the earlier result is left as it was");
        try (var files = Files.list(dir)) {
            assertEquals(Set.of("probe", "out.jsonl", "broken.txt"),
                    Set.copyOf(files.map(p -> p.getFileName().toString()).toList()), "no temporary file is left");
        }
    }

    @Test
    void outputIsWrittenAsTheTextsArriveNotAtTheEnd() throws Exception {
        PipedOutputStream typing = new PipedOutputStream();
        InputStream stdin = System.in;
        StringWriter out = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        System.setIn(new PipedInputStream(typing));
        try {
            Thread command = new Thread(() -> exit.set(Main.commandLine(new PrintWriter(out, true),
                    new PrintWriter(new StringWriter(), true)).execute("embed", "--model", tiny.toString(),
                    "--backend", "ejml", "--input", "-")));
            command.start();
            typing.write((CAT + "\n" + KITTEN + "\n").getBytes(StandardCharsets.UTF_8));
            typing.flush();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!out.toString().endsWith("\n") || out.toString().lines().count() < 2) {
                assertTrue(System.nanoTime() < deadline, "no line came out while the input stayed open: " + out);
                Thread.sleep(20);
            }
            assertEquals(-1, exit.get(), "the command is still reading");
            typing.write((MARKETS + "\n").getBytes(StandardCharsets.UTF_8));
            typing.close();
            command.join(60_000);
            assertEquals(0, exit.get());
            List<String> lines = out.toString().lines().toList();
            assertEquals(3, lines.size(), out.toString());
            assertEquals(MARKETS, JSON.readTree(lines.get(2)).get("text").asText());
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void aModelThatStatesNoPoolingGetsMeanPoolingAndANoteSayingHowToChangeIt() {
        Cli r = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", CAT);
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("attn4j embed: note: " + tiny + " states no pooling (no sentence-transformers "
                + "1_Pooling/config.json, no langchain4j model class), so mean pooling is used; if the model was "
                + "trained with another, pass --pooling cls or --pooling max", r.err().strip(), r.transcript());
        assertTrue(r.out().contains("note: tokenizer built from vocab.txt (BERT WordPiece)"), r.transcript());
        Cli cls = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--pooling", "cls", CAT);
        assertEquals("", cls.err(), cls.transcript());
        assertTrue(cls.out().contains("pooling: stated by the options"), cls.transcript());
    }

    @Test
    void longTextsAreTruncatedWithANoteOrReadWholeInWindows() throws IOException {
        String longText = "the cat sat on the mat . ".repeat(20).strip();
        Cli truncated = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--output", "-",
                "--pooling", "mean", longText);
        assertEquals(0, truncated.exitCode(), truncated.transcript());
        assertEquals(64, JSON.readTree(truncated.out()).get("tokens").asInt());
        assertTrue(truncated.err().contains("1 text reached the limit of 64 tokens, so longer ones were truncated; "
                + "--long split reads a text whole"), truncated.transcript());
        Cli split = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--output", "-",
                "--pooling", "mean", "--long", "split", longText);
        assertEquals(0, split.exitCode(), split.transcript());
        assertEquals("", split.err(), split.transcript());
        assertEquals(142, JSON.readTree(split.out()).get("tokens").asInt(), "every token, [CLS] and [SEP] once");
    }

    @Test
    void theSimilarityTableIsPrintedForAHandfulOfTextsOrWhenAsked() throws IOException {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < EmbedCommand.HANDFUL + 2; i++) {
            many.append("the cat sat on mat number ").append(i).append('\n');
        }
        Path input = Files.writeString(dir.resolve("many.txt"), many);
        Path out = dir.resolve("many.jsonl");
        Cli quiet = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--pooling", "mean",
                "--input", input.toString(), "--output", out.toString());
        assertEquals(0, quiet.exitCode(), quiet.transcript());
        assertFalse(quiet.out().contains("cosine similarity"), quiet.transcript());
        assertTrue(quiet.out().contains("12 texts embedded"), quiet.transcript());
        Cli asked = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--pooling", "mean",
                "--input", input.toString(), "--output", out.toString(), "--similarity");
        assertEquals(0, asked.exitCode(), asked.transcript());
        assertTrue(asked.out().contains("cosine similarity (row text · column text)"), asked.transcript());
        assertTrue(asked.out().lines().anyMatch(l -> l.matches("12 +(-?[01]\\.\\d{3} +){11}1\\.000")),
                asked.transcript());
    }

    @Test
    void aProgressLineIsDrawnWhenStandardErrorIsATerminal() throws IOException {
        Path input = Files.writeString(dir.resolve("p.txt"), "the cat\nthe dog\n");
        String before = System.getProperty(Terminal.PROPERTY);
        System.setProperty(Terminal.PROPERTY, "true");
        try {
            Cli r = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--pooling", "mean",
                    "--input", input.toString(), "--output", dir.resolve("p.jsonl").toString());
            assertEquals(0, r.exitCode(), r.transcript());
            assertTrue(r.err().startsWith("\r") && r.err().endsWith("\n"), r.transcript());
            String last = r.err().substring(r.err().lastIndexOf('\r') + 1);
            assertTrue(last.matches("2 texts +[\\d,]+ texts/s +\\[#{24}\\] 100% +in 0:\\d\\d *\n"), last);
        } finally {
            if (before == null) {
                System.clearProperty(Terminal.PROPERTY);
            } else {
                System.setProperty(Terminal.PROPERTY, before);
            }
        }
    }

    @Test
    void standardInputIsReadWithDash() {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream((KITTEN + "\n" + CAT).getBytes(StandardCharsets.UTF_8)));
            Cli s = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--input", "-");
            assertEquals(0, s.exitCode(), s.transcript());
            assertEquals(2, s.out().lines().count(), s.transcript());
            assertTrue(s.out().startsWith("{\"text\":\"" + KITTEN + "\""), s.transcript());
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void dimensionsKeepTheFirstFeaturesNormalisedAgainAndAPromptGoesBeforeEveryText() throws IOException {
        Cli r = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--output", "-", "--dimensions",
                "4", "--prompt", "query: ", CAT);
        assertEquals(0, r.exitCode(), r.transcript());
        SentenceEmbedding expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.load(tiny, Backends.load("ejml"),
                EmbeddingOptions.defaults().withDimensions(4).withPrompt("query: "))) {
            expected = embedder.embed(CAT);
        }
        JsonNode o = JSON.readTree(r.out().lines().toList().get(0));
        assertEquals(CAT, o.get("text").asText());
        assertEquals(expected.ids().length, o.get("tokens").asInt());
        assertEquals(4, o.get("embedding").size());
        assertVector("--dimensions 4 --prompt", expected.vector(), o.get("embedding"));
        double norm = 0;
        for (JsonNode x : o.get("embedding")) {
            norm += x.asDouble() * x.asDouble();
        }
        assertEquals(1, norm, 1e-6, "a truncated vector is normalised again");
        Cli report = Cli.run("embed", "--model", tiny.toString(), "--backend", "ejml", "--prompt", "query: ", CAT);
        assertTrue(report.out().contains("prompt: 'query: ' before every text"), report.transcript());
    }

    @Test
    void promptsAndDimensionsTheModelCannotHonourAreOneLineAndExitTwo() {
        assertBadInput("attn4j embed: --dimensions 0 must be at least 1", "--model", tiny.toString(),
                "--dimensions", "0", CAT);
        assertBadInput("attn4j embed: --prompt-name and --prompt both choose the prompt; give one", "--model",
                tiny.toString(), "--prompt-name", "query", "--prompt", "q: ", CAT);
        assertBadInput("attn4j embed: --model " + tiny + ": SentenceEmbedder: prompt name 'query' is not one of the"
                + " model's prompts [] (config_sentence_transformers.json)", "--model", tiny.toString(),
                "--prompt-name", "query", CAT);
        assertBadInput("attn4j embed: --model " + tiny + ": SentenceEmbedder: dimensions 99 exceeds the model's 8"
                + " output features", "--model", tiny.toString(), "--dimensions", "99", CAT);
    }

    @Test
    void badInputIsOneLineAndExitTwoBeforeAnyWork() throws IOException {
        Path missing = dir.resolve("no-model");
        assertBadInput("attn4j embed: --model " + missing + ": no such file or folder; attn4j reads a Hugging Face or"
                + " sentence-transformers folder, a .safetensors, .onnx or .gguf file, or a model jar (.jar, .zip)",
                "--model", missing.toString(), CAT);
        Path empty = Files.writeString(dir.resolve("empty.txt"), "\n \n");
        assertBadInput("attn4j embed: --input " + empty + " holds no text", "--input", empty.toString());
        assertBadInput("attn4j embed: no text to embed: give TEXT arguments or --input FILE");
        assertBadInput("attn4j embed: text 2 is empty", CAT, "");
        assertBadInput("attn4j embed: --output " + dir + " is a directory; name a file", "--output", dir.toString(),
                CAT);
        assertBadInput("attn4j embed: --format npy needs --output FILE: its header states the number of rows, known "
                + "only at the end", "--format", "npy", CAT);
        assertBadInput("attn4j embed: --ids cannot go into npy, which holds only the float32 matrix; use jsonl, json "
                + "or csv", "--format", "npy", "--ids", "--output", dir.resolve("x.npy").toString(), CAT);
        assertBadInput("attn4j embed: --similarity prints a table on standard output, which the embeddings fill; "
                + "write them with --output FILE", "--output", "-", "--similarity", CAT);
        assertBadInput("attn4j embed: --tokenizer needs --model: the embedded model has its own", "--tokenizer",
                tiny.resolve("vocab.txt").toString(), CAT);
        try (var files = Files.list(dir)) {
            assertEquals(List.of("empty.txt"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void weightsQ8WritesTheLibrarysInt8VectorsAndAnUnknownTypeIsRefusedByName() throws IOException {
        List<SentenceEmbedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.load(tiny, Backends.load("ejml"),
                EmbeddingOptions.defaults().withWeights(WeightType.I8))) {
            expected = embedder.embed(List.of(CAT));
        }
        Cli r = Cli.run("embed", "--backend", "ejml", "--model", tiny.toString(), "--weights", "q8", "--output", "-",
                CAT);
        assertEquals(0, r.exitCode(), r.transcript());
        assertVector("q8", expected.get(0).vector(), JSON.readTree(r.out()).get("embedding"));
        assertBadInput("attn4j embed: --weights q4_0 is not one of as-file, f32, q8", "--weights", "q4_0", CAT);
    }

    @Test
    void aGgufEncoderEmbedsAsItsFolderWithThePoolingItsMetadataStates() throws IOException {
        Path gguf = dir.resolve("tiny.gguf");
        GgufEncoders.gguf(tiny, WeightType.F32, 2).write(gguf);
        List<SentenceEmbedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.load(tiny, Backends.load("ejml"),
                EmbeddingOptions.defaults().withPooling(Pooling.CLS))) {
            expected = embedder.embed(List.of(CAT));
        }
        Path out = dir.resolve("e.jsonl");
        Cli r = Cli.run("embed", "--backend", "ejml", "--model", gguf.toString(), "--output", out.toString(),
                "--ids", CAT);
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().contains("cls pooling"), r.transcript());
        assertTrue(r.out().contains("pooling: stated by bert.pooling_type (cls)"), r.transcript());
        JsonNode line = JSON.readTree(Files.readAllLines(out).get(0));
        assertArrayEquals(expected.get(0).ids(), ints(line.get("ids")));
        assertVector("gguf", expected.get(0).vector(), line.get("embedding"));
    }

    @Test
    void aPromptNameTheModelDoesNotHaveIsOneLineAndExitTwo() {
        Cli r = Cli.run("embed", "--backend", "ejml", "--prompt-name", "query", CAT);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().strip().lines().count(), r.transcript());
        assertTrue(r.err().contains("the embedded model: SentenceEmbedder: prompt name 'query' is not one of the "
                + "model's prompts []"), r.transcript());
    }

    @Test
    void aPromptIsReadBeforeEveryTextAndAnEscapedNewLineIsALineBreak() throws IOException {
        Cli plain = Cli.run("embed", "--backend", "ejml", "--ids", "--output", "-", "query: a\ncat");
        Cli prompted = Cli.run("embed", "--backend", "ejml", "--ids", "--output", "-", "--prompt", "query: a\\n",
                "cat");
        assertEquals(0, plain.exitCode(), plain.transcript());
        assertEquals(0, prompted.exitCode(), prompted.transcript());
        JsonNode a = JSON.readTree(plain.out());
        JsonNode b = JSON.readTree(prompted.out());
        assertEquals("cat", b.get("text").asText());
        assertEquals(a.get("ids"), b.get("ids"));
        assertEquals(a.get("embedding"), b.get("embedding"));
    }

    @Test
    void aModelItsFilesContradictIsOneLineAndExitTwo() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("gpt"));
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"gpt2\", \"n_embd\": 768}");
        Files.writeString(folder.resolve("tokenizer.json"), "{}");
        Files.write(folder.resolve("model.safetensors"), new byte[] {8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ',
            ' ', ' ', ' ', ' '});
        Cli r = assertBadInput(null, "--backend", "ejml", "--model", folder.toString(), CAT);
        assertTrue(r.err().startsWith("attn4j embed: --model " + folder + ": ") && r.err().contains("gpt2"),
                r.transcript());

        Path wrongHeads = TinyBert.write(dir.resolve("wrong"), 8, false);
        Files.writeString(wrongHeads.resolve("config.json"), Files.readString(wrongHeads.resolve("config.json"))
                .replace("\"hidden_size\": 8", "\"hidden_size\": 12"));
        Cli w = assertBadInput(null, "--backend", "ejml", "--model", wrongHeads.toString(), CAT);
        assertTrue(w.err().contains("embeddings.word_embeddings.weight"), w.transcript());
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

    static float[][] npy(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[6];
        b.get(magic);
        assertEquals("\u0093NUMPY", new String(magic, StandardCharsets.ISO_8859_1));
        assertEquals(1, b.get());
        assertEquals(0, b.get());
        int headerLength = b.getShort() & 0xffff;
        byte[] header = new byte[headerLength];
        b.get(header);
        assertEquals(0, (10 + headerLength) % 64, "NumPy aligns the data on 64 bytes");
        String dict = new String(header, StandardCharsets.US_ASCII);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "\\{'descr': '<f4', 'fortran_order': False, 'shape': \\((\\d+), (\\d+)\\), \\} *\n").matcher(dict);
        assertTrue(m.matches(), dict);
        int rows = Integer.parseInt(m.group(1));
        int cols = Integer.parseInt(m.group(2));
        assertEquals(10L + headerLength + 4L * rows * cols, Files.size(file));
        float[][] out = new float[rows][cols];
        for (float[] row : out) {
            for (int j = 0; j < cols; j++) {
                row[j] = b.getFloat();
            }
        }
        return out;
    }

    private static void assertVector(String what, float[] expected, JsonNode actual) {
        assertEquals(expected.length, actual.size(), what);
        for (int k = 0; k < expected.length; k++) {
            float a = actual.get(k).floatValue();
            if (a != expected[k]) {
                fail(what + " index " + k + " expected " + expected[k] + " actual " + a);
            }
        }
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    private static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
