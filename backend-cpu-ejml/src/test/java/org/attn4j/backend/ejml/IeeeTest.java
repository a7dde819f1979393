package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class IeeeTest {
    private static final Backend BACKEND = new EjmlBackendProvider().create();
    private static final double NAN = Double.NaN;
    private static final double INF = Double.POSITIVE_INFINITY;

    private static void assertAllNaN(String what, double[] values, int from, int to) {
        for (int i = from; i < to; i++) {
            assertTrue(Double.isNaN(values[i]), what + ": index " + i + " is " + values[i] + ", expected NaN");
        }
    }

    private static void assertNoNaN(String what, double[] values, int from, int to) {
        for (int i = from; i < to; i++) {
            assertTrue(!Double.isNaN(values[i]), what + ": index " + i + " is NaN");
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void nanInARowMakesThatSoftmaxRowNaNOnly(DType dtype) {
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            Tensor x = s.tensor(new double[] {1, NAN, 2, 1, 2, 3}, Shape.of(2, 3), dtype);
            double[] r = ops.softmax(x, -1).toDoubleArray();
            assertAllNaN("softmax row 0", r, 0, 3);
            assertNoNaN("softmax row 1", r, 3, 6);
            double[] inf = ops.softmax(s.tensor(new double[] {-INF, -INF, 0, -INF}, Shape.of(2, 2), dtype), -1)
                    .toDoubleArray();
            assertEquals(0.0, inf[0]);
            assertEquals(0.0, inf[1]);
            assertEquals(1.0, inf[2]);
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void nanInAQueryRowMakesThatAttentionRowNaNOnly(DType dtype) {
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            double[] q = new double[2 * 4];
            for (int i = 0; i < q.length; i++) {
                q[i] = 0.1 * i;
            }
            q[1] = NAN;
            Tensor qt = s.tensor(q, Shape.of(1, 1, 2, 4), dtype);
            Tensor kt = s.tensor(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape.of(1, 1, 3, 4), dtype);
            for (boolean weights : new boolean[] {false, true}) {
                double[] out = ops.attention(qt, kt, kt, AttentionOptions.defaults().withWeights(weights)).output()
                        .toDoubleArray();
                assertAllNaN("attention row 0", out, 0, 4);
                assertNoNaN("attention row 1", out, 4, 8);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void infinitiesPropagateThroughElementwiseOps(DType dtype) {
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            Tensor x = s.tensor(new double[] {INF, -INF, NAN, 0}, Shape.of(4), dtype);
            double[] sum = ops.add(x, x).toDoubleArray();
            assertEquals(INF, sum[0]);
            assertEquals(-INF, sum[1]);
            assertTrue(Double.isNaN(sum[2]));
            assertTrue(Double.isNaN(ops.sub(x, x).toDoubleArray()[0]));
            double[] exp = ops.exp(x).toDoubleArray();
            assertEquals(INF, exp[0]);
            assertEquals(0.0, exp[1]);
            assertTrue(Double.isNaN(exp[2]));
            double[] relu = ops.relu(x).toDoubleArray();
            assertEquals(INF, relu[0]);
            assertEquals(0.0, relu[1]);
            assertTrue(Double.isNaN(relu[2]));
            assertEquals(INF, ops.gelu(x, GeluApproximation.NONE).toDoubleArray()[0]);
            assertTrue(Double.isNaN(ops.gelu(x, GeluApproximation.TANH).toDoubleArray()[2]));
            assertEquals(INF, ops.div(s.tensor(new double[] {1}, Shape.of(1), dtype),
                    s.tensor(new double[] {0}, Shape.of(1), dtype)).toDoubleArray()[0]);
            assertTrue(Double.isNaN(ops.max(x, 0, false).toDoubleArray()[0]));
            assertTrue(Double.isNaN(ops.matmul(s.tensor(new double[] {NAN, 1}, Shape.of(1, 2), dtype),
                    s.tensor(new double[] {1, 1}, Shape.of(2, 1), dtype)).toDoubleArray()[0]));
        }
    }
}
