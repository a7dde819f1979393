package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

/**
 * {@code permute} puts element {@code x[i_0 … i_r]} at {@code out[i_axes[0] … i_axes[r]]}, whether it copies or, where
 * only axes of length one move, reshapes its operand.
 */
class PermuteTest extends ScopedTest {

    @Test
    void everyElementLandsWhereThePermutationPutsIt() {
        for (int c = 0; c < 300; c++) {
            int rank = 1 + random.nextInt(5);
            int[] dims = new int[rank];
            for (int i = 0; i < rank; i++) {
                dims[i] = random.nextInt(3) == 0 ? 1 : 1 + random.nextInt(5);
            }
            int[] axes = shuffled(rank);
            double[] values = new double[(int) Shape.of(dims).size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextDouble();
            }
            int[] outDims = new int[rank];
            for (int i = 0; i < rank; i++) {
                outDims[i] = dims[axes[i]];
            }
            String what = Arrays.toString(dims) + " by " + Arrays.toString(axes);
            double[] expected = permuted(values, dims, axes);
            float[] expectedFloats = new float[expected.length];
            float[] floats = new float[values.length];
            for (int i = 0; i < values.length; i++) {
                floats[i] = (float) values[i];
                expectedFloats[i] = (float) expected[i];
            }

            Tensor f32 = ops.permute(scope.tensor(floats, Shape.of(dims)), axes);
            Tensor f64 = ops.permute(scope.tensor(values, Shape.of(dims)), axes);

            assertEquals(Shape.of(outDims), f32.shape(), what);
            assertArrayEquals(expectedFloats, f32.toFloatArray(), "F32 " + what);
            assertEquals(Shape.of(outDims), f64.shape(), what);
            assertArrayEquals(expected, f64.toDoubleArray(), "F64 " + what);
        }
    }

    @Test
    void aPermutationKeepingTheLastAxesCopiesTheirRunsInTheNewOrder() {
        double[] values = new double[2 * 3 * 4 * 5];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        int[] dims = {2, 3, 4, 5};
        for (int[] axes : new int[][] {{0, 2, 1, 3}, {1, 0, 2, 3}, {2, 1, 0, 3}, {1, 2, 0, 3}}) {
            assertArrayEquals(permuted(values, dims, axes),
                    ops.permute(scope.tensor(values, Shape.of(dims)), axes).toDoubleArray(), Arrays.toString(axes));
        }
    }

    private int[] shuffled(int rank) {
        int[] axes = new int[rank];
        for (int i = 0; i < rank; i++) {
            axes[i] = i;
        }
        for (int i = rank - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = axes[i];
            axes[i] = axes[j];
            axes[j] = t;
        }
        return axes;
    }

    private static double[] permuted(double[] values, int[] dims, int[] axes) {
        int rank = dims.length;
        int[] outDims = new int[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = dims[axes[i]];
        }
        double[] out = new double[values.length];
        int[] index = new int[rank];
        for (int flat = 0; flat < values.length; flat++) {
            int rest = flat;
            for (int a = rank - 1; a >= 0; a--) {
                index[a] = rest % dims[a];
                rest /= dims[a];
            }
            int at = 0;
            for (int a = 0; a < rank; a++) {
                at = at * outDims[a] + index[axes[a]];
            }
            out[at] = values[flat];
        }
        return out;
    }
}
