package org.attn4j.backend.ejml;

import static org.attn4j.backend.ejml.Oracle.assertClose;
import static org.attn4j.backend.ejml.Oracle.ravelBroadcast;
import static org.attn4j.backend.ejml.Oracle.size;
import static org.attn4j.backend.ejml.Oracle.tensor;
import static org.attn4j.backend.ejml.Oracle.unravel;
import static org.attn4j.backend.ejml.Oracle.values;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.backend.ejml.Oracle.Tolerance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OpsTest extends ScopedTest {

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

    private void checkBinary(DType dtype, String name, int[] aDims, int[] bDims, DoubleBinaryOperator f) {
        double[] a = values(dtype, (int) size(aDims), random);
        double[] b = values(dtype, (int) size(bDims), random);
        Tensor x = tensor(scope, dtype, a, aDims);
        Tensor y = tensor(scope, dtype, b, bDims);
        Tensor out = switch (name) {
            case "add" -> ops.add(x, y);
            case "sub" -> ops.sub(x, y);
            case "mul" -> ops.mul(x, y);
            default -> ops.div(x, y);
        };
        int[] od = out.shape().toArray();
        double[] expected = new double[(int) size(od)];
        for (int i = 0; i < expected.length; i++) {
            int[] idx = unravel(i, od);
            double r = f.applyAsDouble(a[ravelBroadcast(idx, aDims)], b[ravelBroadcast(idx, bDims)]);
            expected[i] = dtype == DType.F32 ? (float) r : r;
        }
        assertClose(name + Arrays.toString(aDims) + Arrays.toString(bDims), expected, out,
                Tolerance.of(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void binaryOpsBroadcastLikeNumpy(DType dtype) {
        int[][][] pairs = {
            {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}}, {{2, 1, 4}, {3, 1}}, {{1}, {5, 2}}, {{3, 1}, {1, 6}},
            {{}, {2, 2}}, {{2, 3}, {}}, {{4, 1, 3, 1}, {2, 1, 5}},
        };
        for (int[][] p : pairs) {
            checkBinary(dtype, "add", p[0], p[1], Double::sum);
            checkBinary(dtype, "sub", p[0], p[1], (u, v) -> u - v);
            checkBinary(dtype, "mul", p[0], p[1], (u, v) -> u * v);
            checkBinary(dtype, "div", p[0], p[1], (u, v) -> u / v);
        }
        Tensor x = tensor(scope, dtype, new double[] {1, 2}, 2);
        assertEquals(Shape.of(2), ops.add(x, tensor(scope, dtype, new double[] {3}, 1)).shape());
    }

    private void checkUnary(DType dtype, String name, Tensor out, double[] in, DoubleUnaryOperator f,
                            Tolerance tolerance) {
        double[] expected = new double[in.length];
        for (int i = 0; i < in.length; i++) {
            expected[i] = f.applyAsDouble(in[i]);
        }
        assertClose(name, expected, out, tolerance);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void unaryOpsMatchTheirFormulas(DType dtype) {
        double[] a = values(dtype, 60, random);
        for (int i = 0; i < a.length; i++) {
            a[i] *= 3;
        }
        Tensor x = tensor(scope, dtype, a, 3, 4, 5);
        Tolerance t = Tolerance.of(dtype);
        checkUnary(dtype, "scale", ops.scale(x, 0.125), a, v -> v * 0.125, t);
        checkUnary(dtype, "scale by 1", ops.scale(x, 1.0), a, v -> v, t);
        checkUnary(dtype, "exp", ops.exp(x), a, Math::exp, t);
        checkUnary(dtype, "relu", ops.relu(x), a, v -> v > 0 ? v : 0, t);
        checkUnary(dtype, "gelu none", ops.gelu(x, GeluApproximation.NONE), a,
                v -> 0.5 * v * (1 + integratedErf(v / Math.sqrt(2))), t);
        checkUnary(dtype, "gelu tanh", ops.gelu(x, GeluApproximation.TANH), a,
                v -> 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))), t);
        assertEquals(Shape.of(3, 4, 5), ops.gelu(x, GeluApproximation.NONE).shape());
    }

    /** {@code erf(x) = 2/√π ∫₀ˣ e^{-t²} dt} by composite Simpson with 4000 panels. */
    static double integratedErf(double x) {
        int n = 4000;
        double h = x / n;
        double s = 1 + Math.exp(-x * x);
        for (int i = 1; i < n; i++) {
            double t = i * h;
            s += (i % 2 == 1 ? 4 : 2) * Math.exp(-t * t);
        }
        return 2 / Math.sqrt(Math.PI) * s * h / 3;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void reductionsMatchOracleOnEveryAxis(DType dtype) {
        int[] dims = {3, 4, 5};
        double[] a = values(dtype, 60, random);
        Tensor x = tensor(scope, dtype, a, dims);
        for (int axis = -3; axis < 3; axis++) {
            int ax = axis < 0 ? axis + 3 : axis;
            for (boolean keep : new boolean[] {false, true}) {
                int[] kd = dims.clone();
                kd[ax] = 1;
                double[] max = new double[(int) size(kd)];
                double[] sum = new double[max.length];
                double[] mean = new double[max.length];
                double[] var = new double[max.length];
                for (int o = 0; o < max.length; o++) {
                    int[] idx = unravel(o, kd);
                    double m = Double.NEGATIVE_INFINITY;
                    double s = 0;
                    for (int j = 0; j < dims[ax]; j++) {
                        idx[ax] = j;
                        double v = a[ravelBroadcast(idx, dims)];
                        m = Math.max(m, v);
                        s += v;
                    }
                    double mu = s / dims[ax];
                    double q = 0;
                    for (int j = 0; j < dims[ax]; j++) {
                        idx[ax] = j;
                        double d = a[ravelBroadcast(idx, dims)] - mu;
                        q += d * d;
                    }
                    max[o] = m;
                    sum[o] = s;
                    mean[o] = mu;
                    var[o] = q / dims[ax];
                }
                String w = " axis " + axis + " keepDims " + keep;
                Tolerance t = Tolerance.of(dtype);
                assertClose("max" + w, max, ops.max(x, axis, keep), t);
                assertClose("sum" + w, sum, ops.sum(x, axis, keep), t);
                assertClose("mean" + w, mean, ops.mean(x, axis, keep), t);
                assertClose("variance" + w, var, ops.variance(x, axis, keep), t);
                Shape expectedShape = keep ? Shape.of(kd) : Shape.of(removeAxis(dims, ax));
                assertEquals(expectedShape, ops.mean(x, axis, keep).shape(), "shape" + w);
            }
        }
    }

    private static int[] removeAxis(int[] dims, int axis) {
        int[] out = new int[dims.length - 1];
        for (int i = 0, j = 0; i < dims.length; i++) {
            if (i != axis) {
                out[j++] = dims[i];
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void softmaxMatchesOracleAndRowsSumToOne(DType dtype) {
        int[] dims = {2, 3, 7};
        double[] a = values(dtype, 42, random);
        Tensor x = tensor(scope, dtype, a, dims);
        for (int axis : new int[] {-1, 1, 0}) {
            int ax = axis < 0 ? axis + 3 : axis;
            double[] expected = new double[a.length];
            for (int flat = 0; flat < a.length; flat++) {
                int[] idx = unravel(flat, dims);
                double s = 0;
                for (int j = 0; j < dims[ax]; j++) {
                    idx[ax] = j;
                    s += Math.exp(a[ravelBroadcast(idx, dims)]);
                }
                expected[flat] = Math.exp(a[flat]) / s;
            }
            assertClose("softmax axis " + axis, expected, ops.softmax(x, axis), Tolerance.of(dtype));
        }
        double[] rows = ops.sum(ops.softmax(x, -1), -1, false).toDoubleArray();
        double[] ones = new double[rows.length];
        Arrays.fill(ones, 1.0);
        assertClose("softmax row sums", ones, rows, Tolerance.of(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void softmaxIsStableForLargeLogits(DType dtype) {
        Tensor x = tensor(scope, dtype, new double[] {1000, 1001, 1002, -1000}, 1, 4);
        double e = Math.exp(-1) + Math.exp(-2) + 1;
        assertClose("softmax large", new double[] {Math.exp(-2) / e, Math.exp(-1) / e, 1 / e, 0},
                ops.softmax(x, -1), Tolerance.of(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void layerNormMatchesOracleWithAndWithoutAffine(DType dtype) {
        int d = 7;
        double[] a = values(dtype, 3 * d, random);
        double[] g = values(dtype, d, random);
        double[] b = values(dtype, d, random);
        Tensor x = tensor(scope, dtype, a, 3, d);
        for (boolean affine : new boolean[] {false, true}) {
            double[] expected = new double[a.length];
            for (int r = 0; r < 3; r++) {
                double mu = 0;
                for (int j = 0; j < d; j++) {
                    mu += a[r * d + j] / d;
                }
                double var = 0;
                for (int j = 0; j < d; j++) {
                    var += (a[r * d + j] - mu) * (a[r * d + j] - mu) / d;
                }
                for (int j = 0; j < d; j++) {
                    double y = (a[r * d + j] - mu) / Math.sqrt(var + 1e-5);
                    expected[r * d + j] = affine ? y * g[j] + b[j] : y;
                }
            }
            Tensor out = affine ? ops.layerNorm(x, tensor(scope, dtype, g, d), tensor(scope, dtype, b, d), 1e-5)
                    : ops.layerNorm(x, null, null, 1e-5);
            assertClose("layerNorm affine=" + affine, expected, out, Tolerance.of(dtype));
        }
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

    @ParameterizedTest
    @EnumSource(DType.class)
    void embeddingGathersRows(DType dtype) {
        double[] w = values(dtype, 5 * 3, random);
        int[] ids = {4, 0, 2, 2, 1, 3};
        Tensor out = ops.embedding(tensor(scope, dtype, w, 5, 3), ids, Shape.of(2, 3));
        assertEquals(Shape.of(2, 3, 3), out.shape());
        double[] expected = new double[ids.length * 3];
        for (int i = 0; i < ids.length; i++) {
            for (int j = 0; j < 3; j++) {
                expected[i * 3 + j] = w[ids[i] * 3 + j];
            }
        }
        assertClose("embedding", expected, out, new Tolerance(0, 0));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void reshapePermuteAndTransposeMoveElementsExactly(DType dtype) {
        int[] dims = {2, 3, 4};
        double[] a = values(dtype, 24, random);
        Tensor x = tensor(scope, dtype, a, dims);
        Tensor r = ops.reshape(x, 4, -1);
        assertEquals(Shape.of(4, 6), r.shape());
        assertClose("reshape", a, r, new Tolerance(0, 0));
        int[] axes = {2, 0, 1};
        Tensor p = ops.permute(x, axes);
        int[] pd = {4, 2, 3};
        double[] expected = new double[24];
        for (int flat = 0; flat < 24; flat++) {
            int[] idx = unravel(flat, pd);
            int[] src = new int[3];
            for (int i = 0; i < 3; i++) {
                src[axes[i]] = idx[i];
            }
            expected[flat] = a[ravelBroadcast(src, dims)];
        }
        assertEquals(Shape.of(pd), p.shape());
        assertClose("permute", expected, p, new Tolerance(0, 0));
        Tensor t = ops.transpose(x, -1, 0);
        assertEquals(Shape.of(4, 3, 2), t.shape());
        double[] te = new double[24];
        for (int flat = 0; flat < 24; flat++) {
            int[] idx = unravel(flat, new int[] {4, 3, 2});
            te[flat] = a[ravelBroadcast(new int[] {idx[2], idx[1], idx[0]}, dims)];
        }
        assertClose("transpose", te, t, new Tolerance(0, 0));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void reshapedTensorOutlivesTheScopeOfItsSource(DType dtype) {
        double[] a = values(dtype, 6, random);
        Tensor r;
        try (Scope source = BACKEND.newScope()) {
            r = ops.reshape(tensor(source, dtype, a, 2, 3), 3, 2);
        }
        assertClose("reshape after its source closed", a, r, new Tolerance(0, 0));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void concatSplitAndChunkRoundTrip(DType dtype) {
        double[] a = values(dtype, 2 * 2 * 3, random);
        double[] b = values(dtype, 2 * 3 * 3, random);
        Tensor x = tensor(scope, dtype, a, 2, 2, 3);
        Tensor y = tensor(scope, dtype, b, 2, 3, 3);
        Tensor c = ops.concat(List.of(x, y), 1);
        assertEquals(Shape.of(2, 5, 3), c.shape());
        double[] expected = new double[30];
        for (int flat = 0; flat < 30; flat++) {
            int[] idx = unravel(flat, new int[] {2, 5, 3});
            expected[flat] = idx[1] < 2 ? a[(idx[0] * 2 + idx[1]) * 3 + idx[2]]
                    : b[(idx[0] * 3 + idx[1] - 2) * 3 + idx[2]];
        }
        assertClose("concat", expected, c, new Tolerance(0, 0));
        List<Tensor> parts = ops.split(c, new int[] {2, 3}, -2);
        assertClose("split[0]", a, parts.get(0), new Tolerance(0, 0));
        assertClose("split[1]", b, parts.get(1), new Tolerance(0, 0));
        List<Tensor> chunks = ops.chunk(c, 2, 1);
        assertEquals(List.of(Shape.of(2, 3, 3), Shape.of(2, 2, 3)), chunks.stream().map(Tensor::shape).toList());
        assertClose("chunk", expected, ops.concat(chunks, 1), new Tolerance(0, 0));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void castRoundsToNearest(DType dtype) {
        double[] a = {0.1, 1e-3, 3.0000001, -2.5};
        Tensor x = scope.tensor(a, Shape.of(4));
        double[] expected = new double[4];
        for (int i = 0; i < 4; i++) {
            expected[i] = dtype == DType.F32 ? (float) a[i] : a[i];
        }
        Tensor c = ops.cast(x, dtype);
        assertEquals(dtype, c.dtype());
        assertClose("cast", expected, c, new Tolerance(0, 0));
        assertClose("cast back", expected, ops.cast(c, DType.F64), new Tolerance(0, 0));
    }

    /** SplitMix64's finaliser written out again, independently of {@code Dropout}. */
    static boolean kept(long seed, long i, double p) {
        long z = seed + (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53 >= p;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void dropoutKeepsTheSeededElementsAndScalesThem(DType dtype) {
        double[] a = values(dtype, 1000, random);
        Tensor x = tensor(scope, dtype, a, 10, 100);
        for (double p : new double[] {0.0, 0.1, 0.5, 1.0}) {
            double[] expected = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                expected[i] = kept(7L, i, p) ? a[i] / (1 - p) : 0;
            }
            assertClose("dropout p=" + p, expected, ops.dropout(x, p, 7L), Tolerance.of(dtype));
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void additiveMaskIsZeroWhereAllowedAndMinusInfinityElsewhere(DType dtype) {
        Tensor m = ops.additiveMask(Mask.causal(3, 4), dtype);
        double inf = Double.NEGATIVE_INFINITY;
        assertEquals(dtype, m.dtype());
        assertClose("additiveMask", new double[] {0, inf, inf, inf, 0, 0, inf, inf, 0, 0, 0, inf}, m,
                new Tolerance(0, 0));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void zerosAndTensorFactoriesHoldTheirData(DType dtype) {
        assertClose("zeros", new double[6], scope.zeros(Shape.of(2, 3), dtype), new Tolerance(0, 0));
        Tensor s = tensor(scope, dtype, new double[] {2.5}, new int[0]);
        assertEquals(Shape.scalar(), s.shape());
        assertClose("scalar", new double[] {5}, ops.add(s, s), new Tolerance(0, 0));
    }
}
