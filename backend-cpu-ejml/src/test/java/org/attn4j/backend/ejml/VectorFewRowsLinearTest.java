package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The few-rows linear kernel against a double-precision loop: every row count it takes (groups of four and their
 * remainders, one row), odd and even feature counts, inner sizes with and without a vector tail, with and without
 * a bias, on one thread and on the pool. Runs only where the tests resolve {@code jdk.incubator.vector}.
 */
class VectorFewRowsLinearTest {
    private static final Parallel POOL = new Parallel(3);
    private static final Parallel ONE = new Parallel(1);

    @BeforeEach
    void needsTheVectorApi() {
        assumeTrue(Simd.enabled(), "the SIMD kernels are off in this run");
    }

    @Test
    void agreesWithADoubleLoopForEveryRowCountBelowTheLimit() {
        Random random = new Random(23);
        int[][] sizes = {{1, 1}, {7, 3}, {64, 8}, {37, 17}, {384, 33}, {5, 200}};
        for (int rows = 1; rows < VectorFewRowsLinearF32.MAX_ROWS; rows++) {
            for (int[] size : sizes) {
                check(random, rows, size[1], size[0], rows % 2 == 0, rows % 3 == 0 ? ONE : POOL);
            }
        }
    }

    private static void check(Random random, int rows, int features, int in, boolean withBias, Parallel pool) {
        float[] x = randoms(random, rows * in);
        float[] w = randoms(random, features * in);
        float[] bias = withBias ? randoms(random, features) : null;
        float[] out = new float[rows * features];
        VectorFewRowsLinearF32.linear(rows, features, in, x, w, bias, out, pool);
        double[] expected = new double[out.length];
        double[] actual = new double[out.length];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < features; j++) {
                double sum = withBias ? bias[j] : 0;
                for (int p = 0; p < in; p++) {
                    sum += (double) x[i * in + p] * w[j * in + p];
                }
                expected[i * features + j] = sum;
                actual[i * features + j] = out[i * features + j];
            }
        }
        Oracle.assertClose("linear rows=" + rows + " features=" + features + " in=" + in + " bias=" + withBias,
                expected, actual, new Oracle.Tolerance(1e-6 * (in + 1), 1e-5));
    }

    private static float[] randoms(Random random, int size) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) {
            x[i] = random.nextFloat() * 2 - 1;
        }
        return x;
    }
}
