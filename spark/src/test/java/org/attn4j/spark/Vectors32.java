package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/** Float-vector comparisons whose failure says where, what was expected and how far off it is. */
final class Vectors32 {

    private Vectors32() {
    }

    static void assertClose(String where, float[] expected, float[] actual, double tolerance) {
        assertEquals(expected.length, actual.length, where + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs((double) expected[i] - actual[i]);
            if (!(abs <= tolerance)) {
                fail(where + ": index " + i + " expected " + expected[i] + " actual " + actual[i] + " abs err "
                        + abs + " rel err " + abs / Math.max(Math.abs(expected[i]), Float.MIN_NORMAL));
            }
        }
    }

    /** @return the {@code array<float>} value of {@code row}'s column {@code name}, or null */
    static float[] floats(Row row, String name) {
        if (row.isNullAt(row.fieldIndex(name))) {
            return null;
        }
        List<Float> values = row.getList(row.fieldIndex(name));
        float[] v = new float[values.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = values.get(i);
        }
        return v;
    }

    /** @return the ML vector value of {@code row}'s column {@code name} as floats */
    static float[] floats(Vector vector) {
        double[] d = vector.toArray();
        float[] v = new float[d.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) d[i];
        }
        return v;
    }
}
