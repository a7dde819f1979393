package org.attn4j.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with aligned columns: a header row, then data rows; columns are separated by two spaces,
 * each left- or right-aligned (numbers right), and no line has trailing spaces.
 */
final class TextTable {

    /** How a column's cells are padded. */
    enum Align { LEFT, RIGHT }

    private final List<String> headers;
    private final List<Align> aligns;
    private final List<List<String>> rows = new ArrayList<>();

    /**
     * @param headers one per column
     * @param aligns one per column
     */
    TextTable(List<String> headers, List<Align> aligns) {
        if (headers.size() != aligns.size()) {
            throw new IllegalArgumentException("TextTable: " + headers.size() + " headers but " + aligns.size()
                    + " alignments");
        }
        this.headers = List.copyOf(headers);
        this.aligns = List.copyOf(aligns);
    }

    /**
     * @param cells one per column
     * @return this table
     */
    TextTable row(List<String> cells) {
        if (cells.size() != headers.size()) {
            throw new IllegalArgumentException("TextTable.row: " + cells.size() + " cells but " + headers.size()
                    + " columns");
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    /**
     * @param indent put before every line
     * @return the header line followed by one line per row
     */
    List<String> lines(String indent) {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = headers.get(c).length();
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        List<String> lines = new ArrayList<>(rows.size() + 1);
        lines.add(line(indent, headers, widths));
        for (List<String> row : rows) {
            lines.add(line(indent, row, widths));
        }
        return lines;
    }

    private String line(String indent, List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder(indent);
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) {
                b.append("  ");
            }
            String cell = cells.get(c);
            String pad = " ".repeat(widths[c] - cell.length());
            b.append(aligns.get(c) == Align.RIGHT ? pad + cell : cell + pad);
        }
        return b.toString().stripTrailing();
    }
}
