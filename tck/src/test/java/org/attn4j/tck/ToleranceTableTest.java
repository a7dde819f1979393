package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.attn4j.api.DType;
import org.junit.jupiter.api.Test;

class ToleranceTableTest {

    @Test
    void everyGoldenOpAndEveryCheckedOpHasAToleranceInEachDType() {
        ToleranceTable table = ToleranceTable.defaults();
        for (DType dtype : DType.values()) {
            for (GoldenCase c : GoldenFixtures.classpath().cases()) {
                if (GoldenSuite.GROUPS.contains(c.group())) {
                    assertFalse(table.lookup(c.op(), c.name(), dtype).reason().isBlank());
                }
            }
            for (String op : List.of("attention.weights", "law")) {
                assertFalse(table.lookup(op, "any", dtype).reason().isBlank());
            }
        }
    }

    @Test
    void aCaseSpecificEntryBeatsTheOpDefaultAndAnOverrideBeatsBoth() {
        ToleranceTable table = ToleranceTable.defaults();
        Tolerance general = table.lookup("layerNorm", "layerNorm_both", DType.F32);
        Tolerance offset = table.lookup("layerNorm", "layerNorm_offset1000", DType.F32);
        assertTrue(offset.abs() > general.abs());

        ToleranceTable overridden = table.withOverrides(List.of(
                new ToleranceOverride("layerNorm", DType.F32, ".*", 1, 1, "ours is approximate")));
        assertEquals(1, overridden.lookup("layerNorm", "layerNorm_offset1000", DType.F32).abs());
        assertEquals(table.lookup("layerNorm", "layerNorm_both", DType.F64),
                overridden.lookup("layerNorm", "layerNorm_both", DType.F64));
    }

    @Test
    void anOpWithoutAnEntryIsAKitBugNamedInTheMessage() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ToleranceTable.defaults().lookup("conv2d", "c", DType.F32));
        assertTrue(e.getMessage().contains("conv2d"), e.getMessage());
    }

    @Test
    void theReadmeShowsTheCurrentTable() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        assertTrue(readme.contains(ToleranceTable.defaults().toMarkdown()),
                "tck/README.md is out of date; paste ToleranceTable.defaults().toMarkdown() under 'Tolerances'");
    }

    @Test
    void aToleranceNeedsAReason() {
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(1e-6, 0, " "));
    }
}
