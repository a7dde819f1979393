package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SIMD matrix product against a double-precision loop, on shapes that cross every block and tile edge, with
 * either transpose, offsets into larger arrays, a bias, and on one thread or the pool. Runs only where the tests
 * resolve {@code jdk.incubator.vector}.
 */
class VectorGemmTest {
    private static final Parallel POOL = new Parallel(3);

    @BeforeEach
    void needsTheVectorApi() {
        assumeTrue(Simd.enabled(), "the SIMD kernels are off in this run");
    }

    @Test
    void agreesWithADoubleLoopAcrossTileAndBlockEdges() {
        Random random = new Random(15);
        int[][] shapes = {
            {1, 1, 1}, {6, 16, 1}, {7, 17, 3}, {5, 15, 2}, {12, 32, 64}, {13, 33, 65}, {25, 47, 100},
            {VectorGemmF32.MR * 21 + 1, VectorGemmF32.NR * 3 + 5, VectorGemmF32.KC + 7},
            {VectorGemmF32.MC + 5, 40, 2 * VectorGemmF32.KC + 1}, {3, VectorGemmF32.NC + 21, 9},
        };
        for (int[] s : shapes) {
            for (int flags = 0; flags < 4; flags++) {
                check(random, s[0], s[1], s[2], (flags & 1) != 0, (flags & 2) != 0, false, flags % 2 == 0);
            }
        }
    }

    @Test
    void addsTheBiasToEveryRow() {
        Random random = new Random(16);
        check(random, 37, 50, 300, false, true, true, false);
        check(random, 128, 96, 64, false, true, true, true);
        check(random, 4, 9, 0, false, true, true, true);
    }

    @Test
    void anEmptyInnerDimensionGivesZeros() {
        Random random = new Random(17);
        check(random, 9, 20, 0, false, false, false, true);
        check(random, 9, 20, 0, true, true, false, false);
    }

    @Test
    void leavesEverythingOutsideTheOutputUntouched() {
        Random random = new Random(18);
        check(random, 31, 29, 77, true, false, false, true);
    }

    @Test
    void theRegisterTileAgreesWithADoubleLoop() {
        Random random = new Random(19);
        int nr = VectorGemmF32.NR;
        int rows = VectorGemmF32.MR;
        for (int kc : new int[] {1, 2, 37}) {
            float[] pa = randoms(random, rows * kc + 2);
            float[] pb = randoms(random, nr * kc + 3);
            int ldc = nr + 5;
            for (boolean accumulate : new boolean[] {false, true}) {
                float[] c = randoms(random, 1 + rows * ldc);
                float[] before = c.clone();
                VectorGemmF32.tile(kc, pa, 2, pb, 3, c, 1, ldc, accumulate);
                double[] expected = new double[c.length];
                double[] actual = new double[c.length];
                for (int x = 0; x < c.length; x++) {
                    expected[x] = before[x];
                    actual[x] = c[x];
                }
                for (int i = 0; i < rows; i++) {
                    for (int j = 0; j < nr; j++) {
                        double sum = accumulate ? before[1 + i * ldc + j] : 0;
                        for (int p = 0; p < kc; p++) {
                            sum += (double) pa[2 + p * rows + i] * pb[3 + p * nr + j];
                        }
                        expected[1 + i * ldc + j] = sum;
                    }
                }
                Oracle.assertClose("tile kc=" + kc + ", accumulate=" + accumulate, expected, actual,
                        new Oracle.Tolerance(1e-5, 1e-5));
            }
        }
    }

    @Test
    void packedRowsInterleaveTheRowsOfAPanelAndRepeatTheLastPastTheEnd() {
        Random random = new Random(21);
        int rows = VectorGemmF32.ROWS;
        int k = 7;
        int ldx = k + 3;
        for (int n : new int[] {1, rows - 1, rows, 2 * rows + 1}) {
            int panels = (n + rows - 1) / rows;
            float[] x = randoms(random, 2 + n * ldx);
            float[] pa = new float[panels * rows * k + 1];
            pa[pa.length - 1] = 42f;
            VectorGemmF32.packRows(x, 2, ldx, n, k, pa, 0, panels);
            for (int s = 0; s < panels; s++) {
                for (int i = 0; i < rows; i++) {
                    for (int p = 0; p < k; p++) {
                        int row = Math.min(s * rows + i, n - 1);
                        assertEquals(x[2 + row * ldx + p], pa[s * rows * k + p * rows + i],
                                "n=" + n + ", panel " + s + ", row " + i + ", p=" + p);
                    }
                }
            }
            assertEquals(42f, pa[pa.length - 1], "the element past the last panel");
        }
    }

    @Test
    void theRowTileIsEachRowsChainOfMultiplyAddsBitForBit() {
        Random random = new Random(20);
        int nr = VectorGemmF32.NR;
        int rows = VectorGemmF32.ROWS;
        for (int k : new int[] {1, 3, 50}) {
            float[] pa = randoms(random, 2 + rows * k);
            float[] pb = randoms(random, nr * k + 1);
            float[] tile = new float[rows * nr];
            VectorGemmF32.tileRows(k, pa, 2, pb, 1, tile);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < nr; j++) {
                    float sum = 0f;
                    for (int p = 0; p < k; p++) {
                        sum = Math.fma(pb[1 + p * nr + j], pa[2 + p * rows + i], sum);
                    }
                    int at = i * nr + j;
                    float expected = sum;
                    float got = tile[at];
                    assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(got),
                            () -> "row tile k=" + k + " at " + at + ": expected " + expected + ", actual " + got
                                    + ", abs error " + Math.abs(got - expected) + ", rel error "
                                    + Math.abs(got - expected) / Math.abs(expected));
                }
            }
        }
    }

    /**
     * Multiplies random operands placed at an offset inside larger arrays and compares with a double loop; the
     * elements of {@code c} outside the result must keep their sentinel.
     */
    private static void check(Random random, int m, int n, int k, boolean ta, boolean tb, boolean withBias,
                              boolean pooled) {
        int offA = random.nextInt(5);
        int offB = random.nextInt(5);
        int offC = random.nextInt(5);
        float[] a = randoms(random, offA + m * k + 3);
        float[] b = randoms(random, offB + k * n + 3);
        float[] bias = withBias ? randoms(random, n) : null;
        float[] c = new float[offC + m * n + 3];
        Arrays.fill(c, 42f);
        VectorGemmF32.multiply(m, n, k, a, offA, ta, b, offB, tb, bias, c, offC, pooled ? POOL : null);
        double[] expected = new double[m * n];
        double[] actual = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double sum = withBias ? bias[j] : 0;
                for (int p = 0; p < k; p++) {
                    double x = a[offA + (ta ? p * m + i : i * k + p)];
                    double y = b[offB + (tb ? j * k + p : p * n + j)];
                    sum += x * y;
                }
                expected[i * n + j] = sum;
                actual[i * n + j] = c[offC + i * n + j];
            }
        }
        String what = "multiply m=" + m + " n=" + n + " k=" + k + " transposeA=" + ta + " transposeB=" + tb
                + " bias=" + withBias + " pooled=" + pooled;
        Oracle.assertClose(what, expected, actual, new Oracle.Tolerance(1e-6 * (k + 1), 1e-5));
        double[] outside = new double[offC + 3];
        double[] outsideActual = new double[offC + 3];
        Arrays.fill(outside, 42);
        for (int i = 0; i < offC; i++) {
            outsideActual[i] = c[i];
        }
        for (int i = 0; i < 3; i++) {
            outsideActual[offC + i] = c[offC + m * n + i];
        }
        Oracle.assertClose(what + ", outside the result", outside, outsideActual, new Oracle.Tolerance(0, 0));
    }

    private static float[] randoms(Random random, int size) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) {
            x[i] = random.nextFloat() * 2 - 1;
        }
        return x;
    }
}
