package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The vector pass of the norms gives every element the bits of the scalar double computation. */
class VectorNormsTest {

    @Test
    void everyElementHasTheBitsOfTheScalarDoubleLoop() {
        assumeTrue(Simd.enabled(), "the Vector API is not in use");
        Random random = new Random(44);
        for (int d : new int[] {1, 7, 8, 33, 384, 1000}) {
            float[] gamma = values(random, d, 3f);
            float[] beta = values(random, d, 1f);
            for (int variant = 0; variant < 4; variant++) {
                float[] g = (variant & 1) == 0 ? gamma : null;
                float[] b = (variant & 2) == 0 ? beta : null;
                float[] row = values(random, 3 + d, 100f);
                double mean = random.nextGaussian();
                double inv = 1 / (0.5 + random.nextDouble());
                float[] vector = row.clone();
                int from = VectorNorms.normalize(vector, 3, d, mean, inv, g, b);
                for (int j = 0; j < from; j++) {
                    double y = (row[3 + j] - mean) * inv;
                    if (g != null) {
                        y *= g[j];
                    }
                    if (b != null) {
                        y += b[j];
                    }
                    assertEquals(Float.floatToIntBits((float) y), Float.floatToIntBits(vector[3 + j]),
                            "d=" + d + ", gamma " + (g != null) + ", beta " + (b != null) + ", index " + j
                                    + ": expected " + (float) y + ", got " + vector[3 + j]);
                }
                for (int j = from; j < d; j++) {
                    assertEquals(row[3 + j], vector[3 + j], "index " + j + " past the vector part is left as it was");
                }
            }
        }
    }

    private static float[] values(Random random, int n, float scale) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (random.nextGaussian() * scale);
        }
        return x;
    }
}
