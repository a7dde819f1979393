package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.attn4j.cli.TextTable.Align;
import org.junit.jupiter.api.Test;

class TextTableTest {

    @Test
    void columnsAreAlignedAndLinesHaveNoTrailingSpaces() {
        TextTable t = new TextTable(List.of("word", "weight", "note"), List.of(Align.LEFT, Align.RIGHT, Align.LEFT))
                .row(List.of("Life", "0.125", ""))
                .row(List.of("dessert", "1.000", "max"));
        assertEquals(List.of(
                "> word     weight  note",
                "> Life      0.125",
                "> dessert   1.000  max"), t.lines("> "));
    }

    @Test
    void aRowWithTheWrongNumberOfCellsIsRejected() {
        TextTable t = new TextTable(List.of("a", "b"), List.of(Align.LEFT, Align.LEFT));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.row(List.of("x")));
        assertEquals("TextTable.row: 1 cells but 2 columns", e.getMessage());
    }
}
