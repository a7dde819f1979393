package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.RepeatedTest;

/**
 * {@code permute} puts element {@code x[i_0 … i_r]} at {@code out[i_axes[0] … i_axes[r]]}, whether it copies or, where
 * only axes of length one move, reshapes its operand.
 */
class PermuteTest extends ScopedTest {

    @RepeatedTest(50)
    void everyElementLandsWhereThePermutationPutsIt() {
        int rank = 2 + random.nextInt(3);
        int[] dims = new int[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = random.nextInt(3) == 0 ? 1 : 1 + random.nextInt(4);
        }
        int[] axes = shuffled(rank);
        float[] values = new float[(int) Shape.of(dims).size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextFloat();
        }
        Tensor x = scope.tensor(values, Shape.of(dims));

        Tensor out = ops.permute(x, axes);

        int[] outDims = new int[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = dims[axes[i]];
        }
        assertEquals(Shape.of(outDims), out.shape(), Arrays.toString(dims) + " by " + Arrays.toString(axes));
        assertArrayEquals(permuted(values, dims, axes), out.toFloatArray(),
                Arrays.toString(dims) + " by " + Arrays.toString(axes));
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

    private static float[] permuted(float[] values, int[] dims, int[] axes) {
        int rank = dims.length;
        int[] outDims = new int[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = dims[axes[i]];
        }
        float[] out = new float[values.length];
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
