package org.attn4j.backend.ejml;

import static org.attn4j.backend.ejml.Oracle.assertClose;
import static org.attn4j.backend.ejml.Oracle.ravelBroadcast;
import static org.attn4j.backend.ejml.Oracle.size;
import static org.attn4j.backend.ejml.Oracle.tensor;
import static org.attn4j.backend.ejml.Oracle.unravel;
import static org.attn4j.backend.ejml.Oracle.values;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.backend.ejml.Oracle.Tolerance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code matmul} and {@code linear} through the ops at the sizes where this backend's GEMM changes path: past its
 * packed panels and register tiles ({@code 40×300·300×400}, {@code 70×80·80×90}, {@code 62×70·70×45}), with every
 * transpose and broadcast batches, against a double loop. The op semantics at small sizes are the TCK's goldens;
 * these shapes are this kernel's boundaries.
 */
class MatmulShapesTest extends ScopedTest {

    private void checkMatmul(DType dtype, int[] aDims, int[] bDims, boolean ta, boolean tb) {
        double[] a = values(dtype, (int) size(aDims), random);
        double[] b = values(dtype, (int) size(bDims), random);
        Tensor out = ops.matmul(tensor(scope, dtype, a, aDims), tensor(scope, dtype, b, bDims), ta, tb);
        int[] od = out.shape().toArray();
        int r = od.length;
        int m = od[r - 2];
        int n = od[r - 1];
        int k = ta ? aDims[aDims.length - 2] : aDims[aDims.length - 1];
        int[] aBatch = Arrays.copyOf(aDims, aDims.length - 2);
        int[] bBatch = Arrays.copyOf(bDims, bDims.length - 2);
        double[] expected = new double[(int) size(od)];
        for (int flat = 0; flat < expected.length; flat++) {
            int[] idx = unravel(flat, od);
            int[] batch = Arrays.copyOf(idx, r - 2);
            int ab = ravelBroadcast(batch, aBatch) * m * k;
            int bb = ravelBroadcast(batch, bBatch) * k * n;
            int i = idx[r - 2];
            int j = idx[r - 1];
            double s = 0;
            for (int p = 0; p < k; p++) {
                s += a[ab + (ta ? p * m + i : i * k + p)] * b[bb + (tb ? j * k + p : p * n + j)];
            }
            expected[flat] = s;
        }
        assertClose("matmul " + Arrays.toString(aDims) + "x" + Arrays.toString(bDims) + " ta=" + ta
                + " tb=" + tb, expected, out, Tolerance.of(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void matmulMatchesOracleWithTransposesAndBroadcastBatches(DType dtype) {
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                checkMatmul(dtype, ta ? new int[] {5, 3} : new int[] {3, 5}, tb ? new int[] {4, 5} : new int[] {5, 4},
                        ta, tb);
                checkMatmul(dtype, ta ? new int[] {2, 3, 7, 6} : new int[] {2, 3, 6, 7},
                        tb ? new int[] {3, 5, 7} : new int[] {3, 7, 5}, ta, tb);
                checkMatmul(dtype, ta ? new int[] {2, 1, 9, 4} : new int[] {2, 1, 4, 9},
                        tb ? new int[] {1, 3, 6, 9} : new int[] {1, 3, 9, 6}, ta, tb);
                checkMatmul(dtype, ta ? new int[] {2, 3, 50, 40} : new int[] {2, 3, 40, 50},
                        tb ? new int[] {3, 30, 50} : new int[] {3, 50, 30}, ta, tb);
                checkMatmul(dtype, ta ? new int[] {2, 1, 40, 300} : new int[] {2, 1, 300, 40},
                        tb ? new int[] {1, 1, 400, 40} : new int[] {1, 1, 40, 400}, ta, tb);
            }
        }
        checkMatmul(dtype, new int[] {1, 1, 70, 80}, new int[] {80, 90}, false, false);
        checkMatmul(dtype, new int[] {1, 1}, new int[] {1, 1}, false, false);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void linearIsXTimesWeightTransposedPlusBias(DType dtype) {
        checkLinear(dtype, 3, 6, 5);
        checkLinear(dtype, 31, 70, 45);
    }

    private void checkLinear(DType dtype, int rows, int in, int outF) {
        double[] x = values(dtype, 2 * rows * in, random);
        double[] w = values(dtype, outF * in, random);
        double[] b = values(dtype, outF, random);
        for (boolean bias : new boolean[] {false, true}) {
            double[] expected = new double[2 * rows * outF];
            for (int r = 0; r < 2 * rows; r++) {
                for (int o = 0; o < outF; o++) {
                    double s = bias ? b[o] : 0;
                    for (int i = 0; i < in; i++) {
                        s += x[r * in + i] * w[o * in + i];
                    }
                    expected[r * outF + o] = s;
                }
            }
            Tensor out = ops.linear(tensor(scope, dtype, x, 2, rows, in), tensor(scope, dtype, w, outF, in),
                    bias ? tensor(scope, dtype, b, outF) : null);
            assertEquals(Shape.of(2, rows, outF), out.shape());
            assertClose("linear [2, " + rows + ", " + in + "]·[" + outF + ", " + in + "]ᵀ bias=" + bias, expected,
                    out, Tolerance.of(dtype));
        }
    }
}
