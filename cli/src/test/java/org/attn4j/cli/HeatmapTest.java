package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeatmapTest {
    private static final List<String> WORDS = List.of("Life", "is", "short", "eat", "dessert", "first");

    @TempDir
    Path dir;

    @BeforeAll
    static void headless() {
        Heatmap.useHeadlessGraphics();
    }

    /** Rows of random non-negative numbers that sum to one, like softmax output. */
    private static double[][] weights(int n, long seed) {
        Random r = new Random(seed);
        double[][] w = new double[n][n];
        for (double[] row : w) {
            double sum = 0;
            for (int j = 0; j < n; j++) {
                row[j] = r.nextDouble();
                sum += row[j];
            }
            for (int j = 0; j < n; j++) {
                row[j] /= sum;
            }
        }
        return w;
    }

    private static List<Heatmap.Panel> panels(String prefix, int count, long seed) {
        List<Heatmap.Panel> p = new ArrayList<>();
        for (int h = 0; h < count; h++) {
            p.add(new Heatmap.Panel(prefix + " " + (h + 1), WORDS, WORDS, weights(WORDS.size(), seed + h)));
        }
        return p;
    }

    @Test
    void pngDecodesToTheLaidOutSizeWithEveryCellColouredByItsWeight() throws IOException {
        List<Heatmap.Row> rows = List.of(new Heatmap.Row("single head", panels("step", 3, 1)),
                new Heatmap.Row("multi-head", panels("head", 4, 10)));
        Path file = dir.resolve("map.png");
        Heatmap.Layout layout = Heatmap.write("test", rows, file);

        BufferedImage image = ImageIO.read(file.toFile());
        assertNotNull(image, "ImageIO could not decode " + file);
        assertEquals(layout.width(), image.getWidth());
        assertEquals(layout.height(), image.getHeight());
        assertEquals(7, layout.grids().size());
        int k = 0;
        for (Heatmap.Row row : rows) {
            for (Heatmap.Panel p : row.panels()) {
                Heatmap.Box grid = layout.grids().get(k++);
                assertEquals(p.title(), grid.label());
                assertTrue(grid.x() + grid.width() <= image.getWidth() && grid.y() + grid.height()
                        <= image.getHeight(), "panel " + grid + " lies outside the image");
                for (int i = 0; i < WORDS.size(); i++) {
                    for (int j = 0; j < WORDS.size(); j++) {
                        int actual = image.getRGB(grid.x() + j * layout.cell() + 2, grid.y() + i * layout.cell() + 2)
                                & 0xFFFFFF;
                        int expected = Viridis.rgb(p.weights()[i][j]);
                        assertEquals(expected, actual, "panel " + p.title() + " cell [" + i + "][" + j + "] weight "
                                + p.weights()[i][j] + ": expected " + Integer.toHexString(expected) + ", actual "
                                + Integer.toHexString(actual));
                    }
                }
            }
        }
    }

    @Test
    void wordLabelsAreDrawnLeftOfAndBelowEachPanel() throws IOException {
        Path file = dir.resolve("labels.png");
        Heatmap.Layout layout = Heatmap.write("labels", List.of(new Heatmap.Row("r", panels("p", 1, 3))), file);
        BufferedImage image = ImageIO.read(file.toFile());
        Heatmap.Box grid = layout.grids().get(0);
        for (int i = 0; i < WORDS.size(); i++) {
            int y0 = grid.y() + i * layout.cell();
            assertTrue(hasInk(image, 0, y0, grid.x() - 1, y0 + layout.cell()), "no label left of row " + i);
        }
        for (int j = 0; j < WORDS.size(); j++) {
            int x0 = grid.x() + j * layout.cell();
            int bottom = grid.y() + grid.height();
            assertTrue(hasInk(image, x0, bottom + 1, x0 + layout.cell(), image.getHeight()),
                    "no label below column " + j);
        }
    }

    @Test
    void theColourScaleRunsFromYellowAtTheTopToPurpleAtTheBottom() throws IOException {
        Path file = dir.resolve("scale.png");
        Heatmap.Layout layout = Heatmap.write("scale", List.of(new Heatmap.Row("r", panels("p", 1, 4))), file);
        BufferedImage image = ImageIO.read(file.toFile());
        Heatmap.Box bar = layout.colourScale();
        int cx = bar.x() + bar.width() / 2;
        double step = 1.0 / (bar.height() - 1);
        assertEquals(Viridis.rgb(1.0 - step), image.getRGB(cx, bar.y() + 1) & 0xFFFFFF, "just below the top edge");
        assertEquals(Viridis.rgb(step), image.getRGB(cx, bar.y() + bar.height() - 2) & 0xFFFFFF,
                "just above the bottom edge");
        assertTrue(bar.x() > layout.grids().get(0).x() + layout.grids().get(0).width(), "scale overlaps the panel");
    }

    @Test
    void aBandWithManyPanelsWrapsAfterFourPerLine() throws IOException {
        Heatmap.Layout layout = Heatmap.write("wrap", List.of(new Heatmap.Row("heads", panels("head", 6, 7))),
                dir.resolve("wrap.png"));
        List<Heatmap.Box> g = layout.grids();
        assertEquals(6, g.size());
        for (int k = 1; k < Heatmap.PANELS_PER_LINE; k++) {
            assertEquals(g.get(0).y(), g.get(k).y(), "panel " + k + " is on the first line");
            assertTrue(g.get(k).x() > g.get(k - 1).x() + g.get(k - 1).width(), "panel " + k + " overlaps");
        }
        assertEquals(g.get(0).x(), g.get(4).x(), "the fifth panel starts the second line");
        assertTrue(g.get(4).y() > g.get(0).y() + g.get(0).height(), "the second line overlaps the first");
        assertTrue(layout.height() >= g.get(5).y() + g.get(5).height());
    }

    @Test
    void cellsShrinkForLongSentences() throws IOException {
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            many.add("w" + i);
        }
        Heatmap.Panel p = new Heatmap.Panel("long", many, many, weights(40, 5));
        Heatmap.Layout layout = Heatmap.write("long", List.of(new Heatmap.Row("r", List.of(p))),
                dir.resolve("long.png"));
        assertEquals(12, layout.cell());
        assertEquals(40 * 12, layout.grids().get(0).width());
    }

    @Test
    void aPanelWhoseLabelsDoNotMatchItsWeightsIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Heatmap.Panel("bad", WORDS, WORDS.subList(0, 2), weights(6, 1)));
        assertEquals("Heatmap.Panel 'bad': row 0 has 6 weights but there are 2 column labels", e.getMessage());
    }

    private static boolean hasInk(BufferedImage image, int x0, int y0, int x1, int y1) {
        for (int y = Math.max(0, y0); y < Math.min(image.getHeight(), y1); y++) {
            for (int x = Math.max(0, x0); x < Math.min(image.getWidth(), x1); x++) {
                int c = image.getRGB(x, y);
                if ((c >> 16 & 0xFF) < 128 && (c >> 8 & 0xFF) < 128 && (c & 0xFF) < 128) {
                    return true;
                }
            }
        }
        return false;
    }
}
