package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.attn4j.backend.nd4j.Close.tolerance;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.Dropout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OpsTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private Scope scope;
    private Ops ops;

    @BeforeEach
    void open() {
        scope = BACKEND.newScope();
        ops = scope.ops();
    }

    @AfterEach
    void close() {
        scope.close();
    }

    /** Inputs rounded to the dtype, so the oracle sees exactly what the backend sees. */
    private static double[] data(long seed, Shape shape, DType dtype) {
        double[] d = Oracle.random(seed, (int) shape.size());
        if (dtype == DType.F32) {
            for (int i = 0; i < d.length; i++) {
                d[i] = (float) d[i];
            }
        }
        return d;
    }

    private Tensor tensor(double[] d, Shape shape, DType dtype) {
        return scope.tensor(d, shape, dtype);
    }

    private static double[] map(double[] x, DoubleUnaryOperator f) {
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = f.applyAsDouble(x[i]);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void matmulMatchesOracleWithTransposesAndBroadcastBatch(DType dtype) {
        Shape out = Shape.of(2, 3, 4, 6);
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                Shape as = ta ? Shape.of(2, 1, 5, 4) : Shape.of(2, 1, 4, 5);
                Shape bs = tb ? Shape.of(3, 6, 5) : Shape.of(3, 5, 6);
                double[] a = data(1, as, dtype);
                double[] b = data(2, bs, dtype);
                Tensor r = ops.matmul(tensor(a, as, dtype), tensor(b, bs, dtype), ta, tb);
                assertEquals(out, r.shape());
                assertClose("matmul ta=" + ta + " tb=" + tb, Oracle.matmul(a, as, b, bs, ta, tb, out),
                        r.toDoubleArray(), tolerance(dtype));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void arithmeticBroadcastsLikeNumpy(DType dtype) {
        Shape as = Shape.of(2, 3, 4);
        Shape bs = Shape.of(3, 1);
        double[] a = data(3, as, dtype);
        double[] b = data(4, bs, dtype);
        Tensor ta = tensor(a, as, dtype);
        Tensor tb = tensor(b, bs, dtype);
        double[][] expected = new double[4][a.length];
        for (int i = 0; i < a.length; i++) {
            double y = b[Oracle.broadcastIndex(i, as, bs)];
            expected[0][i] = a[i] + y;
            expected[1][i] = a[i] - y;
            expected[2][i] = a[i] * y;
            expected[3][i] = a[i] / y;
        }
        assertClose("add", expected[0], ops.add(ta, tb).toDoubleArray(), tolerance(dtype));
        assertClose("sub", expected[1], ops.sub(ta, tb).toDoubleArray(), tolerance(dtype));
        assertClose("mul", expected[2], ops.mul(ta, tb).toDoubleArray(), tolerance(dtype));
        assertClose("div", expected[3], ops.div(ta, tb).toDoubleArray(), tolerance(dtype));
        assertEquals(Shape.of(2, 3, 4), ops.add(tb, ta).shape());
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void elementwiseOpsMatchTheirFormulas(DType dtype) {
        Shape s = Shape.of(3, 7);
        double[] x = data(5, s, dtype);
        Tensor t = tensor(x, s, dtype);
        assertClose("scale", map(x, v -> v * 0.37), ops.scale(t, 0.37).toDoubleArray(), tolerance(dtype));
        assertClose("exp", map(x, Math::exp), ops.exp(t).toDoubleArray(), tolerance(dtype));
        assertClose("relu", map(x, v -> Math.max(v, 0)), ops.relu(t).toDoubleArray(), tolerance(dtype));
        assertClose("gelu none", map(x, v -> 0.5 * v * (1 + Oracle.erf(v / Math.sqrt(2)))),
                ops.gelu(t, GeluApproximation.NONE).toDoubleArray(), tolerance(dtype));
        assertClose("gelu tanh", map(x, v -> 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI)
                * (v + 0.044715 * v * v * v)))), ops.gelu(t, GeluApproximation.TANH).toDoubleArray(), tolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void reductionsMatchOracleOnEveryAxis(DType dtype) {
        Shape s = Shape.of(2, 3, 4);
        double[] x = data(6, s, dtype);
        Tensor t = tensor(x, s, dtype);
        for (int axis = -3; axis < 3; axis++) {
            int a = axis < 0 ? axis + 3 : axis;
            for (String kind : List.of("max", "sum", "mean", "variance")) {
                Tensor r = switch (kind) {
                    case "max" -> ops.max(t, axis, axis % 2 == 0);
                    case "sum" -> ops.sum(t, axis, axis % 2 == 0);
                    case "mean" -> ops.mean(t, axis, axis % 2 == 0);
                    default -> ops.variance(t, axis, axis % 2 == 0);
                };
                int[] dims = s.toArray();
                dims[a] = 1;
                Shape kept = Shape.of(dims);
                assertEquals(axis % 2 == 0 ? kept : org.attn4j.api.spi.ShapeChecks.reduce(kind, s, axis, false),
                        r.shape(), kind + " axis " + axis);
                assertClose(kind + " axis " + axis, Oracle.reduce(x, s, a, kind), r.toDoubleArray(), tolerance(dtype));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void maxPropagatesNaNOnlyInItsSlice(DType dtype) {
        double[] x = {1, Double.NaN, 3, 2, 5, 1};
        Tensor r = ops.max(tensor(x, Shape.of(2, 3), dtype), 1, false);
        assertClose("max with NaN", new double[] {Double.NaN, 5}, r.toDoubleArray(), 0);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void softmaxMatchesOracleAndSumsToOne(DType dtype) {
        Shape s = Shape.of(2, 5, 3);
        double[] x = data(7, s, dtype);
        for (int axis : new int[] {-1, 1, 0}) {
            Tensor r = ops.softmax(tensor(x, s, dtype), axis);
            assertClose("softmax axis " + axis, Oracle.softmax(x, s, axis < 0 ? axis + 3 : axis),
                    r.toDoubleArray(), tolerance(dtype));
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void softmaxOfAllMinusInfinityRowIsZeroAndNaNSpreadsOverItsRow(DType dtype) {
        double inf = Double.NEGATIVE_INFINITY;
        double[] x = {inf, inf, inf, 1, Double.NaN, 2, 0, inf, 0};
        Tensor r = ops.softmax(tensor(x, Shape.of(3, 3), dtype), -1);
        assertClose("softmax edges", new double[] {0, 0, 0, Double.NaN, Double.NaN, Double.NaN, 0.5, 0, 0.5},
                r.toDoubleArray(), tolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void layerNormAndLinearMatchTheirFormulas(DType dtype) {
        Shape s = Shape.of(2, 3, 8);
        double[] x = data(8, s, dtype);
        double[] g = data(9, Shape.of(8), dtype);
        double[] b = data(10, Shape.of(8), dtype);
        double[] mean = Oracle.reduce(x, s, 2, "mean");
        double[] var = Oracle.reduce(x, s, 2, "variance");
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = (x[i] - mean[i / 8]) / Math.sqrt(var[i / 8] + 1e-5) * g[i % 8] + b[i % 8];
        }
        Tensor xt = tensor(x, s, dtype);
        assertClose("layerNorm", expected, ops.layerNorm(xt, tensor(g, Shape.of(8), dtype),
                tensor(b, Shape.of(8), dtype), 1e-5).toDoubleArray(), tolerance(dtype) * 10);
        double[] w = data(11, Shape.of(5, 8), dtype);
        double[] bias = data(12, Shape.of(5), dtype);
        double[] lin = Oracle.matmul(x, Shape.of(6, 8), w, Shape.of(5, 8), false, true, Shape.of(6, 5));
        for (int i = 0; i < lin.length; i++) {
            lin[i] += bias[i % 5];
        }
        Tensor r = ops.linear(xt, tensor(w, Shape.of(5, 8), dtype), tensor(bias, Shape.of(5), dtype));
        assertEquals(Shape.of(2, 3, 5), r.shape());
        assertClose("linear", lin, r.toDoubleArray(), tolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void shapeOpsMoveElementsAsRowMajorDefines(DType dtype) {
        Shape s = Shape.of(2, 3, 4);
        double[] x = data(13, s, dtype);
        Tensor t = tensor(x, s, dtype);
        Tensor reshaped = ops.reshape(t, 4, -1);
        assertEquals(Shape.of(4, 6), reshaped.shape());
        assertArrayEquals(x, reshaped.toDoubleArray());
        Tensor permuted = ops.permute(t, 2, 0, 1);
        assertEquals(Shape.of(4, 2, 3), permuted.shape());
        double[] p = permuted.toDoubleArray();
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 4; k++) {
                    assertEquals(x[(i * 3 + j) * 4 + k], p[(k * 2 + i) * 3 + j], "permute at " + i + "," + j + "," + k);
                }
            }
        }
        List<Tensor> pieces = ops.split(t, new int[] {1, 2}, 1);
        assertEquals(Shape.of(2, 2, 4), pieces.get(1).shape());
        Tensor joined = ops.concat(pieces, 1);
        assertArrayEquals(x, joined.toDoubleArray());
        List<Tensor> chunks = ops.chunk(t, 3, -1);
        assertEquals(2, chunks.size());
        assertEquals(Shape.of(2, 3, 2), chunks.get(0).shape());
        double[] w = data(14, Shape.of(5, 3), dtype);
        Tensor emb = ops.embedding(tensor(w, Shape.of(5, 3), dtype), new int[] {4, 0, 4, 2}, Shape.of(2, 2));
        assertEquals(Shape.of(2, 2, 3), emb.shape());
        double[] e = emb.toDoubleArray();
        int[] ids = {4, 0, 4, 2};
        for (int i = 0; i < 12; i++) {
            assertEquals(w[ids[i / 3] * 3 + i % 3], e[i], "embedding at " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void castDropoutAndMasksFollowTheApi(DType dtype) {
        Shape s = Shape.of(4, 50);
        double[] x = data(15, s, dtype);
        Tensor t = tensor(x, s, dtype);
        DType other = dtype == DType.F32 ? DType.F64 : DType.F32;
        Tensor cast = ops.cast(t, other);
        assertEquals(other, cast.dtype());
        assertClose("cast", x, cast.toDoubleArray(), tolerance(DType.F32));
        double p = 0.3;
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = Dropout.keep(42, i, p) ? x[i] * Dropout.survivorScale(p) : 0;
        }
        assertClose("dropout", expected, ops.dropout(t, p, 42).toDoubleArray(), tolerance(dtype));
        assertArrayEquals(x, ops.dropout(t, 0, 42).toDoubleArray());
        assertClose("dropout p=1", new double[x.length], ops.dropout(t, 1, 42).toDoubleArray(), 0);
        Tensor additive = ops.additiveMask(Mask.causal(2, 3), dtype);
        double inf = Double.NEGATIVE_INFINITY;
        assertArrayEquals(new double[] {0, inf, inf, 0, 0, inf}, additive.toDoubleArray());
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void dropoutZeroesDroppedNaNAndInfinity(DType dtype) {
        double[] x = new double[64];
        java.util.Arrays.fill(x, Double.NaN);
        x[0] = Double.POSITIVE_INFINITY;
        double[] r = ops.dropout(tensor(x, Shape.of(64), dtype), 0.5, 7).toDoubleArray();
        for (int i = 0; i < x.length; i++) {
            if (!Dropout.keep(7, i, 0.5)) {
                assertEquals(0.0, r[i], "dropped element " + i);
            } else {
                assertEquals(x[i], r[i], "kept element " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void scalarsAndZerosKeepTheirShape(DType dtype) {
        Tensor scalar = tensor(new double[] {2.5}, Shape.scalar(), dtype);
        assertEquals(Shape.scalar(), ops.scale(scalar, 2).shape());
        assertArrayEquals(new double[] {5}, ops.scale(scalar, 2).toDoubleArray());
        assertEquals(Shape.scalar(), ops.sum(tensor(new double[] {1, 2}, Shape.of(2), dtype), 0, false).shape());
        assertArrayEquals(new double[6], scope.zeros(Shape.of(2, 3), dtype).toDoubleArray());
    }
}
