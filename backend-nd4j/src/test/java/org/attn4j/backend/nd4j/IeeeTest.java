package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
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
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final double INF = Double.POSITIVE_INFINITY;
    private static final double NAN = Double.NaN;

    @ParameterizedTest
    @EnumSource(DType.class)
    void elementwiseOpsFollowIeeeOnNaNAndInfinity(DType dtype) {
        try (Scope scope = BACKEND.newScope()) {
            Ops ops = scope.ops();
            Tensor x = scope.tensor(new double[] {NAN, INF, -INF, 0}, Shape.of(4), dtype);
            assertClose("exp", new double[] {NAN, INF, 0, 1}, ops.exp(x).toDoubleArray(), 0);
            assertClose("relu", new double[] {NAN, INF, 0, 0}, ops.relu(x).toDoubleArray(), 0);
            assertClose("x + (-x)", new double[] {NAN, NAN, NAN, 0}, ops.add(x, ops.scale(x, -1)).toDoubleArray(), 0);
            assertClose("sum", new double[] {NAN}, ops.sum(x, 0, true).toDoubleArray(), 0);
            double[] gelu = ops.gelu(x, GeluApproximation.NONE).toDoubleArray();
            assertTrue(Double.isNaN(gelu[0]), "gelu(NaN) is NaN");
            assertEquals(INF, gelu[1], "gelu(+inf)");
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void nanInOneQueryPoisonsOnlyItsOwnOutputRow(DType dtype) {
        double[] q = Oracle.random(51, 3 * 4);
        q[4] = NAN;
        try (Scope scope = BACKEND.newScope()) {
            Tensor qt = scope.tensor(q, Shape.of(3, 4), dtype);
            Tensor kv = scope.tensor(Oracle.random(52, 5 * 4), Shape.of(5, 4), dtype);
            double[] out = scope.ops().attention(qt, kv, kv, AttentionOptions.defaults()).output().toDoubleArray();
            for (int i = 0; i < out.length; i++) {
                assertEquals(i / 4 == 1, Double.isNaN(out[i]), "output element " + i + " is " + out[i]);
            }
        }
    }
}
