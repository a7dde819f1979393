package org.attn4j.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws attention weights as a heatmap with the JDK's own imaging ({@link BufferedImage}, {@link ImageIO}), headless.
 *
 * <p>Layout, top to bottom: a title and a legend line; then one horizontal band per {@link Row} (for the demo: the
 * single-head steps, then one panel per head of multi-head attention, then one per head of the transformer block),
 * each with a caption and at most {@value #PANELS_PER_LINE} panels per line; a {@link Viridis} colour scale from 0
 * to 1 on the right. In a panel of weights {@code w[i][j]}, row {@code i} is the query word (labelled on the left)
 * and column {@code j} the key word (labelled underneath, rotated); each cell is coloured by {@code w[i][j]} on the
 * fixed scale 0 to 1 (so panels are comparable) and, when cells are large enough, shows the value with two
 * decimals. Cells shrink as sentences grow: {@code cell = clamp(320 / words, 12, 44)} pixels.
 */
final class Heatmap {

    /**
     * One matrix of weights.
     *
     * @param title drawn above the panel, for example {@code "head 1"}
     * @param rowLabels the query words, one per row
     * @param columnLabels the key words, one per column
     * @param weights {@code [rows][columns]}, values in {@code [0, 1]}
     */
    record Panel(String title, List<String> rowLabels, List<String> columnLabels, double[][] weights) {
        Panel {
            rowLabels = shortened(rowLabels);
            columnLabels = shortened(columnLabels);
            if (weights.length != rowLabels.size()) {
                throw new IllegalArgumentException("Heatmap.Panel '" + title + "': " + weights.length
                        + " rows of weights but " + rowLabels.size() + " row labels");
            }
            for (int i = 0; i < weights.length; i++) {
                if (weights[i].length != columnLabels.size()) {
                    throw new IllegalArgumentException("Heatmap.Panel '" + title + "': row " + i + " has "
                            + weights[i].length + " weights but there are " + columnLabels.size()
                            + " column labels");
                }
            }
        }
    }

    /** The most characters (code points) of a label drawn; a longer word is cut and ends in an ellipsis. */
    static final int MAX_LABEL = 24;
    /** The most characters (code points) of the picture's title. */
    static final int MAX_TITLE = 120;

    private static List<String> shortened(List<String> labels) {
        return labels.stream().map(l -> shortened(l, MAX_LABEL)).toList();
    }

    /**
     * @param text a word or a title
     * @param max the most code points to keep
     * @return the text, or its first {@code max - 1} code points and "…" if it is longer
     */
    static String shortened(String text, int max) {
        if (text.codePointCount(0, text.length()) <= max) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, max - 1)) + "\u2026";
    }

    /**
     * A band of panels drawn side by side.
     *
     * @param caption drawn above the band, for example {@code "multi-head attention (4 heads)"}
     * @param panels left to right
     */
    record Row(String caption, List<Panel> panels) {
        Row {
            panels = List.copyOf(panels);
        }
    }

    /**
     * A rectangle of the image, in pixels.
     *
     * @param label what is drawn there
     * @param x left edge
     * @param y top edge
     * @param width width
     * @param height height
     */
    record Box(String label, int x, int y, int width, int height) {
    }

    /**
     * Where everything was drawn, so callers (and tests) can find a panel's cells without parsing the picture.
     *
     * @param width image width
     * @param height image height
     * @param grids one per panel in row-major order of the layout: the area of its coloured cells
     * @param cell the side of one cell
     * @param colourScale the area of the colour scale bar
     */
    record Layout(int width, int height, List<Box> grids, int cell, Box colourScale) {
        Layout {
            grids = List.copyOf(grids);
        }
    }

    /** A band with more panels continues on the next line. */
    static final int PANELS_PER_LINE = 4;
    private static final JsonFactory JSON = new JsonFactory();
    private static final int MARGIN = 16;
    private static final int GAP = 28;
    private static final int LABEL_PAD = 6;
    private static final int BAR_WIDTH = 18;
    private static final int BAR_HEIGHT = 240;
    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 16);
    private static final Font CAPTION = new Font(Font.SANS_SERIF, Font.BOLD, 14);
    private static final Font PANEL_TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 12);
    private static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Font VALUE = new Font(Font.SANS_SERIF, Font.PLAIN, 10);
    private static final Color TEXT = new Color(0x202020);
    private static final String LEGEND = "rows: query word, columns: key word, colour: attention weight (0 to 1)";

    private Heatmap() {
    }

    /** Makes AWT work without a display, unless the user asked otherwise with {@code -Djava.awt.headless}. */
    static void useHeadlessGraphics() {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    /**
     * Renders and writes a PNG.
     *
     * @param title the first line of the picture
     * @param rows the bands of panels, top to bottom; at least one panel in all
     * @param file the PNG to write; its directory must exist; replaced whole, or left untouched on failure
     * @return where the panels were drawn
     * @throws IOException if the file cannot be written
     */
    static Layout write(String title, List<Row> rows, Path file) throws IOException {
        BufferedImage image = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Layout layout = draw(title, rows, image, true);
        image = new BufferedImage(layout.width(), layout.height(), BufferedImage.TYPE_INT_RGB);
        draw(title, rows, image, false);
        BufferedImage drawn = image;
        AtomicFile.write(file, out -> {
            if (!ImageIO.write(drawn, "png", out)) {
                throw new IOException("Heatmap: the JDK has no PNG writer (ImageIO) for " + file);
            }
        });
        return layout;
    }

    /**
     * The numbers behind a picture, for tools and tests that should not parse pixels:
     * <pre>
     * {"title": "...", "width": W, "height": H, "cell": C, "scale": [0, 1],
     *  "panels": [{"band": "...", "title": "...", "x": X, "y": Y, "width": W, "height": H,
     *              "rows": ["Life", ...], "columns": ["Life", ...], "weights": [[0.25, ...], ...]}, ...]}
     * </pre>
     * {@code x, y, width, height} of a panel bound its coloured cells; panels are in drawing order. A weight that
     * is NaN or infinite is written as the string {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"}, the
     * project's one rule (SEMANTICS.md).
     *
     * @param title the picture's title
     * @param rows what was drawn
     * @param layout where {@link #write} drew it
     * @return a JSON object
     */
    static String json(String title, List<Row> rows, Layout layout) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeStringField("title", title);
            g.writeNumberField("width", layout.width());
            g.writeNumberField("height", layout.height());
            g.writeNumberField("cell", layout.cell());
            g.writeArrayFieldStart("scale");
            g.writeNumber(0);
            g.writeNumber(1);
            g.writeEndArray();
            g.writeArrayFieldStart("panels");
            int k = 0;
            for (Row row : rows) {
                for (Panel p : row.panels()) {
                    Box box = layout.grids().get(k++);
                    g.writeStartObject();
                    g.writeStringField("band", row.caption());
                    g.writeStringField("title", p.title());
                    g.writeNumberField("x", box.x());
                    g.writeNumberField("y", box.y());
                    g.writeNumberField("width", box.width());
                    g.writeNumberField("height", box.height());
                    strings(g, "rows", p.rowLabels());
                    strings(g, "columns", p.columnLabels());
                    g.writeArrayFieldStart("weights");
                    for (double[] line : p.weights()) {
                        g.writeStartArray();
                        for (double w : line) {
                            g.writeNumber((float) w);
                        }
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append('\n').toString();
    }

    private static void strings(JsonGenerator g, String field, List<String> values) throws IOException {
        g.writeArrayFieldStart(field);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    /** Lays out and, unless {@code measureOnly}, draws into {@code image}, which must be large enough. */
    private static Layout draw(String title, List<Row> rows, BufferedImage image, boolean measureOnly) {
        if (rows.stream().allMatch(r -> r.panels().isEmpty())) {
            throw new IllegalArgumentException("Heatmap: no panels to draw");
        }
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            if (!measureOnly) {
                g.setColor(Color.WHITE);
                g.fillRect(0, 0, image.getWidth(), image.getHeight());
            }
            int words = 1;
            int labelWidth = 0;
            FontMetrics labels = g.getFontMetrics(LABEL);
            for (Row row : rows) {
                for (Panel p : row.panels()) {
                    words = Math.max(words, Math.max(p.rowLabels().size(), p.columnLabels().size()));
                    for (String s : p.rowLabels()) {
                        labelWidth = Math.max(labelWidth, labels.stringWidth(s));
                    }
                    for (String s : p.columnLabels()) {
                        labelWidth = Math.max(labelWidth, labels.stringWidth(s));
                    }
                }
            }
            int cell = Math.max(12, Math.min(44, 320 / words));
            int labelSpace = labelWidth + LABEL_PAD;

            int y = MARGIN;
            y += text(g, measureOnly, TITLE, title, MARGIN, y);
            y += text(g, measureOnly, LABEL, LEGEND, MARGIN, y) + GAP / 2;
            int contentTop = y;
            int right = MARGIN + g.getFontMetrics(TITLE).stringWidth(title);
            List<Box> grids = new ArrayList<>();
            for (Row row : rows) {
                if (row.panels().isEmpty()) {
                    continue;
                }
                y += text(g, measureOnly, CAPTION, row.caption(), MARGIN, y) + 4;
                int x = MARGIN;
                int lineHeight = 0;
                for (int k = 0; k < row.panels().size(); k++) {
                    if (k > 0 && k % PANELS_PER_LINE == 0) {
                        x = MARGIN;
                        y += lineHeight;
                        lineHeight = 0;
                    }
                    Panel p = row.panels().get(k);
                    int titleHeight = text(g, true, PANEL_TITLE, p.title(), 0, 0) + 2;
                    int gx = x + labelSpace;
                    int gy = y + titleHeight;
                    Box grid = new Box(p.title(), gx, gy, p.columnLabels().size() * cell, p.rowLabels().size() * cell);
                    if (!measureOnly) {
                        int tw = g.getFontMetrics(PANEL_TITLE).stringWidth(p.title());
                        text(g, false, PANEL_TITLE, p.title(), gx + (grid.width() - tw) / 2, y);
                        drawPanel(g, p, grid, cell);
                    }
                    grids.add(grid);
                    x = gx + grid.width() + GAP;
                    right = Math.max(right, x - GAP);
                    lineHeight = Math.max(lineHeight, titleHeight + grid.height() + labelSpace);
                }
                y += lineHeight + GAP / 2;
            }
            Box bar = new Box("attention weight", right + GAP, contentTop, BAR_WIDTH, BAR_HEIGHT);
            int barRight = bar.x() + BAR_WIDTH + 6 + g.getFontMetrics(LABEL).stringWidth("0.75");
            if (!measureOnly) {
                drawScale(g, bar);
            }
            int width = Math.max(right, barRight) + MARGIN;
            int height = Math.max(y, bar.y() + BAR_HEIGHT + GAP) + MARGIN - GAP / 2;
            return new Layout(width, height, grids, cell, bar);
        } finally {
            g.dispose();
        }
    }

    /** Draws one line of text with its top at {@code top} (unless {@code measureOnly}); returns its height. */
    private static int text(Graphics2D g, boolean measureOnly, Font font, String s, int x, int top) {
        FontMetrics m = g.getFontMetrics(font);
        if (!measureOnly) {
            g.setFont(font);
            g.setColor(TEXT);
            g.drawString(s, x, top + m.getAscent());
        }
        return m.getHeight();
    }

    private static void drawPanel(Graphics2D g, Panel p, Box grid, int cell) {
        FontMetrics values = g.getFontMetrics(VALUE);
        boolean showValues = cell >= values.stringWidth("0.00") + 6;
        for (int i = 0; i < p.weights().length; i++) {
            for (int j = 0; j < p.weights()[i].length; j++) {
                double w = p.weights()[i][j];
                int rgb = Viridis.rgb(w);
                int cx = grid.x() + j * cell;
                int cy = grid.y() + i * cell;
                g.setColor(new Color(rgb));
                g.fillRect(cx, cy, cell, cell);
                if (showValues) {
                    String s = Double.isNaN(w) ? "NaN" : String.format(Locale.ROOT, "%.2f", w);
                    g.setFont(VALUE);
                    g.setColor(Viridis.isLight(rgb) ? Color.BLACK : Color.WHITE);
                    g.drawString(s, cx + (cell - values.stringWidth(s)) / 2,
                            cy + (cell + values.getAscent() - values.getDescent()) / 2);
                }
            }
        }
        g.setColor(Color.WHITE);
        g.setStroke(new BasicStroke(1f));
        for (int k = 1; k < p.columnLabels().size(); k++) {
            g.drawLine(grid.x() + k * cell, grid.y(), grid.x() + k * cell, grid.y() + grid.height() - 1);
        }
        for (int k = 1; k < p.rowLabels().size(); k++) {
            g.drawLine(grid.x(), grid.y() + k * cell, grid.x() + grid.width() - 1, grid.y() + k * cell);
        }

        FontMetrics m = g.getFontMetrics(LABEL);
        g.setFont(LABEL);
        g.setColor(TEXT);
        int centre = (m.getAscent() - m.getDescent()) / 2;
        for (int i = 0; i < p.rowLabels().size(); i++) {
            String s = p.rowLabels().get(i);
            g.drawString(s, grid.x() - LABEL_PAD - m.stringWidth(s), grid.y() + i * cell + cell / 2 + centre);
        }
        AffineTransform saved = g.getTransform();
        for (int j = 0; j < p.columnLabels().size(); j++) {
            String s = p.columnLabels().get(j);
            g.setTransform(saved);
            g.translate(grid.x() + j * cell + cell / 2 + centre, grid.y() + grid.height() + LABEL_PAD);
            g.rotate(-Math.PI / 2);
            g.drawString(s, -m.stringWidth(s), 0);
        }
        g.setTransform(saved);
    }

    private static void drawScale(Graphics2D g, Box bar) {
        for (int k = 0; k < bar.height(); k++) {
            g.setColor(new Color(Viridis.rgb(1.0 - k / (double) (bar.height() - 1))));
            g.drawLine(bar.x(), bar.y() + k, bar.x() + bar.width() - 1, bar.y() + k);
        }
        FontMetrics m = g.getFontMetrics(LABEL);
        g.setFont(LABEL);
        g.setColor(TEXT);
        g.drawRect(bar.x(), bar.y(), bar.width() - 1, bar.height() - 1);
        for (int t = 0; t <= 4; t++) {
            double v = t / 4.0;
            int ty = bar.y() + (int) Math.round((1.0 - v) * (bar.height() - 1));
            g.drawLine(bar.x() + bar.width(), ty, bar.x() + bar.width() + 3, ty);
            g.drawString(String.format(Locale.ROOT, "%.2f", v).replaceAll("0$", ""), bar.x() + bar.width() + 6,
                    ty + (m.getAscent() - m.getDescent()) / 2);
        }
    }
}
