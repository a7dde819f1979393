package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.attn4j.api.BackendSelection;
import org.attn4j.api.Backends;
import org.attn4j.api.ProviderReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);
    private static final List<String> WORDS = List.of("Life", "is", "short", "eat", "dessert", "first");
    /** The pure-Java backend: always available, quick to start. */
    private static final String EJML = "ejml";

    @TempDir
    Path dir;

    @Test
    void walksTheDefaultSentenceThroughEveryStepWithWordLabelledTables() {
        Cli r = Cli.run("demo", "--backend", EJML, "--out", dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("", r.err(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j demo: \"Life is short, eat dessert first\"", lines.get(0), r.transcript());
        assertEquals("backend: ejml (" + BackendChoice.BY_OPTION + ")", lines.get(1), r.transcript());
        for (String step : List.of("1. Vocabulary and embedding", "2. Simplified self-attention",
                "3. Scaled self-attention", "4. Causal self-attention", "5. Multi-head attention (4 heads of 4)",
                "6. Transformer block")) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(step)), "no line starts with '" + step + "'\n"
                    + r.transcript());
        }
        assertTrue(lines.stream().anyMatch(l -> l.matches(" {3}x +\\[6, 16] +one row per word")), r.transcript());
        assertTrue(lines.stream().anyMatch(l -> l.matches(" {3}weights +\\[4, 6, 6] +\\[H, L, L], one matrix per "
                + "head")), r.transcript());
        String header = "             Life     is  short    eat  dessert  first";
        assertEquals(3 + 4 + 4, lines.stream().filter(header::equals).count(), "weight-table headers\n"
                + r.transcript());
        int causal = lines.indexOf("   causal (row: query word attends to column: key word; rows sum to 1)");
        assertTrue(causal > 0, r.transcript());
        assertEquals("   Life     1.000  0.000  0.000  0.000    0.000  0.000", lines.get(causal + 2),
                "the first word can only attend to itself\n" + r.transcript());
        for (int i = 0; i < WORDS.size(); i++) {
            String row = lines.get(causal + 2 + i);
            assertTrue(row.startsWith("   " + WORDS.get(i) + " "), row);
            double sum = 0;
            String[] cells = row.trim().split("\\s+");
            for (int j = 1; j < cells.length; j++) {
                double w = Double.parseDouble(cells[j]);
                sum += w;
                if (j - 1 > i) {
                    assertEquals(0.0, w, "causal weight [" + i + "][" + (j - 1) + "] above the diagonal: " + row);
                }
            }
            assertEquals(1.0, sum, 0.003, "row " + i + " of the causal table sums to " + sum + ": " + row);
        }
    }

    @Test
    void writesAHeatmapWithOnePanelPerStepAndPerHeadColouredByTheWeights() throws IOException {
        Cli r = Cli.run("demo", "--backend", EJML, "--heads", "2", "--out", dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        Path png = dir.resolve(DemoCommand.HEATMAP);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "ImageIO cannot decode " + png);
        Map<?, ?> sidecar = JSON.readValue(Files.readString(dir.resolve(DemoCommand.SIDECAR)), Map.class);
        assertEquals(((Number) sidecar.get("width")).intValue(), image.getWidth());
        assertEquals(((Number) sidecar.get("height")).intValue(), image.getHeight());
        String pretrainedHeads = java.util.stream.IntStream.rangeClosed(1, 12).mapToObj(h -> "head " + h)
                .collect(java.util.stream.Collectors.joining(", "));
        assertTrue(r.out().contains("heatmap: " + png + " (" + image.getWidth() + "x" + image.getHeight()
                + " px, 19 panels: simplified, scaled, causal, head 1, head 2, head 1, head 2, " + pretrainedHeads
                + ")"), r.transcript());

        List<?> panels = (List<?>) sidecar.get("panels");
        assertEquals(3 + 2 + 2 + 12, panels.size(),
                "three single-head steps, two random heads twice, then the pretrained model's twelve heads");
        List<String> tokens = List.of("[CLS]", "life", "is", "short", ",", "eat", "dessert", "first", "[SEP]");
        int cell = ((Number) sidecar.get("cell")).intValue();
        for (int n = 0; n < panels.size(); n++) {
            Map<?, ?> p = (Map<?, ?>) panels.get(n);
            List<String> labels = n < 7 ? WORDS : tokens;
            assertEquals(labels, p.get("rows"));
            assertEquals(labels, p.get("columns"));
            List<?> weights = (List<?>) p.get("weights");
            int x = ((Number) p.get("x")).intValue();
            int y = ((Number) p.get("y")).intValue();
            for (int i = 0; i < labels.size(); i++) {
                for (int j = 0; j < labels.size(); j++) {
                    double w = ((Number) ((List<?>) weights.get(i)).get(j)).doubleValue();
                    int actual = image.getRGB(x + j * cell + 2, y + i * cell + 2) & 0xFFFFFF;
                    assertEquals(Viridis.rgb(w), actual, "panel '" + p.get("title") + "' cell [" + i + "][" + j
                            + "] weight " + w + ": expected " + Integer.toHexString(Viridis.rgb(w)) + ", actual "
                            + Integer.toHexString(actual));
                }
            }
        }
    }

    @Test
    void theDefaultBackendIsTheSelectedOneAndTheReasonIsPrinted() {
        BackendSelection expected = Backends.select();
        Cli r = Cli.run("demo", "--out", dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("backend: " + expected.backend().name() + " (" + expected.reason() + ")",
                r.out().lines().skip(1).findFirst().orElse(""), r.transcript());
    }

    @Test
    void theSameSeedGivesTheSameNumbersAndAnotherSeedOthers() {
        String a = Cli.run("demo", "--backend", EJML, "--seed", "7", "--out", dir.toString()).out();
        String b = Cli.run("demo", "--backend", EJML, "--seed", "7", "--out", dir.toString()).out();
        String c = Cli.run("demo", "--backend", EJML, "--seed", "8", "--out", dir.toString()).out();
        assertEquals(a, b);
        assertFalse(a.equals(c), "seed 8 printed the same as seed 7");
    }

    @Test
    void anotherSentenceLabelsTheTablesWithItsWords() {
        Cli r = Cli.run("demo", "--backend", EJML, "--text", "the cat sat", "--heads", "1", "--dim", "8",
                "--out", dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("          the    cat    sat")), r.transcript());
        assertTrue(r.out().contains("\n5. Multi-head attention (1 head of 8)\n"), r.transcript());
    }

    @Test
    void emptyTextIsAOneLineUsageError() {
        for (String text : List.of("", "   ", ",;!")) {
            Cli r = Cli.run("demo", "--text", text, "--out", dir.toString());
            assertUsageError(r, "attn4j demo: --text is empty: give a sentence with at least one word");
        }
    }

    @Test
    void moreHeadsThanTheDimensionAllowsIsAOneLineUsageError() {
        assertUsageError(Cli.run("demo", "--heads", "32", "--out", dir.toString()),
                "attn4j demo: --heads 32 is not possible with --dim 16: each head needs at least one dimension, so "
                        + "use 1 to 16");
        assertUsageError(Cli.run("demo", "--heads", "0", "--out", dir.toString()),
                "attn4j demo: --heads 0 is not possible with --dim 16: each head needs at least one dimension, so "
                        + "use 1 to 16");
        assertUsageError(Cli.run("demo", "--heads", "3", "--out", dir.toString()),
                "attn4j demo: --heads 3 does not divide --dim 16: use one of 1, 2, 4, 8, 16");
    }

    @Test
    void limitsKeepTheTablesReadableAndThePictureASensibleSize() {
        String words = "w ".repeat(DemoCommand.MAX_WORDS + 1);
        assertUsageError(Cli.run("demo", "--text", words, "--out", dir.toString()),
                "attn4j demo: --text has 65 words; the demo shows at most 64");
        assertUsageError(Cli.run("demo", "--dim", "4096", "--out", dir.toString()),
                "attn4j demo: --dim is 4096: use 1 to 1024");
        assertUsageError(Cli.run("demo", "--dim", "64", "--heads", "32", "--out", dir.toString()),
                "attn4j demo: --heads 32 is more than the demo draws: use at most 16 (one heatmap panel per head)");
    }

    @Test
    void aVeryLongWordIsCutWithAnEllipsisAndThePictureStaysSmall() throws IOException {
        String longWord = "x".repeat(40_000);
        Cli r = Cli.run("demo", "--backend", EJML, "--text", "a " + longWord + " b", "--out", dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        BufferedImage image = ImageIO.read(dir.resolve(DemoCommand.HEATMAP).toFile());
        assertTrue(image.getWidth() <= 4096 && image.getHeight() <= 4096,
                "picture of " + image.getWidth() + "x" + image.getHeight());
        Map<?, ?> sidecar = JSON.readValue(Files.readString(dir.resolve(DemoCommand.SIDECAR)), Map.class);
        Map<?, ?> first = (Map<?, ?>) ((List<?>) sidecar.get("panels")).get(0);
        assertEquals(List.of("a", "x".repeat(Heatmap.MAX_LABEL - 1) + "\u2026", "b"), first.get("rows"));
    }

    @Test
    void emojiAreWordsOfTheVocabulary() throws IOException {
        Cli r = Cli.run("demo", "--backend", EJML, "--text", "I \u2764\uFE0F tea \uD83C\uDF75", "--out",
                dir.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        Map<?, ?> sidecar = JSON.readValue(Files.readString(dir.resolve(DemoCommand.SIDECAR)), Map.class);
        Map<?, ?> first = (Map<?, ?>) ((List<?>) sidecar.get("panels")).get(0);
        assertEquals(List.of("I", "\u2764\uFE0F", "tea", "\uD83C\uDF75"), first.get("rows"));
    }

    @Test
    void anUnknownBackendIsAOneLineUsageErrorListingTheKnownOnes() {
        String known = Backends.describe().stream().map(ProviderReport::name).collect(Collectors.joining(", "));
        assertTrue(known.contains(EJML), known);
        assertUsageError(Cli.run("demo", "--backend", "tpu", "--out", dir.toString()),
                "attn4j demo: unknown backend 'tpu'; known backends: " + known);
    }

    @Test
    void aBackendThatCannotRunHereIsAFailureThatSaysWhy() {
        Cli r = Cli.run("demo", "--backend", UnpluggedProvider.NAME, "--out", dir.toString());
        assertEquals(1, r.exitCode(), r.transcript());
        assertTrue(r.err().startsWith("attn4j demo: The attn4j backend 'unplugged' (requested by name) is not "
                + "usable: " + UnpluggedProvider.REASON), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }

    @Test
    void anOutputDirectoryThatCannotBeCreatedIsAOneLineUsageError() throws IOException {
        Path file = Files.writeString(dir.resolve("taken"), "not a directory");
        assertUsageError(Cli.run("demo", "--out", file.toString()),
                "attn4j demo: --out " + file + " is a file, not a directory");
        Path below = file.resolve("sub");
        Cli r = Cli.run("demo", "--out", below.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertTrue(r.err().startsWith("attn4j demo: --out " + below + " cannot be created: "), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
    }

    private static void assertUsageError(Cli r, String message) {
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(message + " (see 'attn4j demo --help')", r.err().strip(), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }
}
