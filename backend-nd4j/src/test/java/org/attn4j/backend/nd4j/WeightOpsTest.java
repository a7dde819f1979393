package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.Erf;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the TCK's laws do not look at on this backend: the bound weight's layout and conversion (blocks of rows
 * converted separately, F64 kept), both product routes of {@code linear} (a matrix-vector product per row up to
 * {@link Nd4jLinear#GEMV_ROWS} rows, one GEMM beyond) with every epilogue, the gate's second product over the up
 * rows, the norms' blocks of rows, and packed attention's strided heads against the spi's composition.
 */
class WeightOpsTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final int IN = 96;
    private static final int OUT = 40;

    private static float[] normal(long seed, int n, double scale) {
        Random r = new Random(seed);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = (float) (r.nextGaussian() * scale);
        }
        return out;
    }

    private static double activate(Activation a, double v) {
        return switch (a) {
            case IDENTITY -> v;
            case RELU -> Math.max(v, 0);
            case GELU -> 0.5 * v * (1 + Erf.erf(v / Math.sqrt(2)));
            case GELU_TANH -> 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v)));
            case SILU -> v / (1 + Math.exp(-v));
        };
    }

    /** {@code act(x·Wᵀ + b) (⊙ up) + residual} in double from the weight's values. */
    private static double[] reference(float[] x, int rows, float[] w, int weightRows, float[] bias, Activation a,
                                      boolean gated, float[] residual) {
        int n = gated ? weightRows / 2 : weightRows;
        double[] y = new double[rows * n];
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < n; o++) {
                double g = dot(x, r, w, o) + (bias == null ? 0 : bias[o]);
                double v = activate(a, g);
                if (gated) {
                    v *= dot(x, r, w, n + o) + (bias == null ? 0 : bias[n + o]);
                }
                y[r * n + o] = v + (residual == null ? 0 : residual[r * n + o]);
            }
        }
        return y;
    }

    private static double dot(float[] x, int row, float[] w, int wRow) {
        double s = 0;
        for (int i = 0; i < IN; i++) {
            s += (double) x[row * IN + i] * w[wRow * IN + i];
        }
        return s;
    }

    private static double[] widen(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    static Stream<Object[]> linearCases() {
        List<Object[]> cases = new ArrayList<>();
        for (WeightType type : List.of(WeightType.F32, WeightType.F16, WeightType.BF16, WeightType.Q8_0,
                WeightType.Q4_0)) {
            for (int rows : new int[] {1, 3, 4, 5, 33}) {
                cases.add(new Object[] {type, rows, Activation.IDENTITY, false, false, false});
                cases.add(new Object[] {type, rows, Activation.GELU, false, true, false});
                cases.add(new Object[] {type, rows, Activation.GELU_TANH, false, true, true});
                cases.add(new Object[] {type, rows, Activation.IDENTITY, false, false, true});
                cases.add(new Object[] {type, rows, Activation.IDENTITY, false, true, true});
                cases.add(new Object[] {type, rows, Activation.RELU, false, false, false});
                cases.add(new Object[] {type, rows, Activation.SILU, true, false, false});
                cases.add(new Object[] {type, rows, Activation.GELU_TANH, true, true, true});
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} rows={1} {2} gated={3} bias={4} residual={5}")
    @MethodSource("linearCases")
    void linearOverEveryWeightTypeAndRouteEqualsTheEpilogueOverTheWeightsValues(WeightType type, int rows,
            Activation activation, boolean gated, boolean withBias, boolean withResidual) {
        int weightRows = gated ? 2 * OUT : OUT;
        float[] x = normal(1, rows * IN, 1);
        float[] w = normal(2, weightRows * IN, 1 / Math.sqrt(IN));
        float[] bias = withBias ? normal(3, weightRows, 0.5) : null;
        float[] residual = withResidual ? normal(4, rows * OUT, 1) : null;
        try (Scope s = BACKEND.newScope()) {
            Weight weight = s.weight(w, Shape.of(weightRows, IN), type);
            Epilogue e = (gated ? Epilogue.gated(activation) : Epilogue.none().withActivation(activation))
                    .withResidual(residual == null ? null : s.tensor(residual, Shape.of(rows, OUT)));
            Tensor y = s.ops().linear(s.tensor(x, Shape.of(rows, IN)), weight,
                    bias == null ? null : s.tensor(bias, Shape.of(weightRows)), e);
            assertEquals(Shape.of(rows, OUT), y.shape());
            assertClose(type + " linear", reference(x, rows, weight.toFloatArray(), weightRows, bias, activation,
                    gated, residual), widen(y.toFloatArray()), 1e-5);
        }
    }

    @Test
    void linearKeepsTheLeadingDimsAndMatchesTheTensorWeightForm() {
        float[] x = normal(5, 2 * 3 * IN, 1);
        float[] w = normal(6, OUT * IN, 0.1);
        float[] b = normal(7, OUT, 1);
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            Tensor xt = s.tensor(x, Shape.of(2, 3, IN));
            Tensor bound = ops.linear(xt, s.weight(w, Shape.of(OUT, IN), WeightType.F32), s.tensor(b, Shape.of(OUT)));
            Tensor plain = ops.linear(xt, s.tensor(w, Shape.of(OUT, IN)), s.tensor(b, Shape.of(OUT)));
            assertEquals(Shape.of(2, 3, OUT), bound.shape());
            assertArrayEquals(plain.toFloatArray(), bound.toFloatArray());
        }
    }

    @ParameterizedTest
    @EnumSource(Activation.class)
    void theFusedEpilogueEqualsTheCompositionToTheLastBit(Activation activation) {
        for (int rows : new int[] {1, 40}) {
            try (Scope s = BACKEND.newScope()) {
                Ops ops = s.ops();
                Tensor x = s.tensor(normal(20, rows * IN, 1), Shape.of(rows, IN));
                float[] values = normal(21, 2 * OUT * IN, 2);
                Weight w = s.weight(values, Shape.of(2 * OUT, IN), WeightType.F32);
                Tensor wt = s.tensor(values, Shape.of(2 * OUT, IN));
                Tensor bias = s.tensor(normal(22, 2 * OUT, 1), Shape.of(2 * OUT));
                Tensor residual = s.tensor(normal(23, rows * OUT, 1), Shape.of(rows, OUT));
                for (Epilogue e : List.of(Epilogue.gated(activation).withResidual(residual),
                        Epilogue.none().withActivation(activation).withResidual(
                                s.tensor(normal(24, rows * 2 * OUT, 1), Shape.of(rows, 2 * OUT))))) {
                    assertArrayEquals(ReferenceOps.epilogue(ops, ops.linear(x, wt, bias), e).toFloatArray(),
                            ops.linear(x, w, bias, e).toFloatArray(), e + ", " + rows + " rows");
                }
            }
        }
    }

    @Test
    void f64WeightsStayF64AndMultiplyF64Activations() {
        double[] w = new double[OUT * IN];
        double[] x = new double[2 * IN];
        Random r = new Random(8);
        for (int i = 0; i < w.length; i++) {
            w[i] = r.nextGaussian() / 7;
        }
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        ByteBuffer bytes = ByteBuffer.allocate(8 * w.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        bytes.asDoubleBuffer().put(w);
        try (Scope s = BACKEND.newScope()) {
            Weight weight = s.weight(bytes, WeightType.F64, Shape.of(OUT, IN));
            assertEquals(8L * OUT * IN, weight.byteSize());
            for (int rows : new int[] {1, 2}) {
                Tensor y = s.ops().linear(s.tensor(java.util.Arrays.copyOf(x, rows * IN), Shape.of(rows, IN)),
                        weight, null);
                assertEquals(DType.F64, y.dtype());
                double[] expected = new double[rows * OUT];
                for (int i = 0; i < rows; i++) {
                    for (int o = 0; o < OUT; o++) {
                        for (int c = 0; c < IN; c++) {
                            expected[i * OUT + o] += x[i * IN + c] * w[o * IN + c];
                        }
                    }
                }
                assertClose("F64 linear, " + rows + " rows", expected, y.toDoubleArray(), 1e-12);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, mode = EnumSource.Mode.EXCLUDE, names = {"F64", "I8"})
    void aWeightConvertedBlockByBlockReadsBackAsItsTypeDecodesIt(WeightType type) {
        int rows = 1100;
        int columns = 1024;
        float[] values = normal(9, rows * columns, 1);
        ByteBuffer bytes = type.encode(values, Shape.of(rows, columns));
        try (Scope s = BACKEND.newScope()) {
            Weight w = s.weight(bytes, type, Shape.of(rows, columns));
            assertArrayEquals(type.decode(bytes, Shape.of(rows, columns)), w.toFloatArray());
            assertEquals(4L * rows * columns, w.byteSize(), "held as F32");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, names = {"F32", "F16", "BF16", "Q8_0", "Q4_0"})
    void embeddingCopiesTheTablesRowsAsTheyDecode(WeightType type) {
        float[] table = normal(10, 50 * 64, 1);
        int[] ids = {49, 0, 7, 7, 31, 2};
        try (Scope s = BACKEND.newScope()) {
            Weight w = s.weight(table, Shape.of(50, 64), type);
            float[] decoded = w.toFloatArray();
            Tensor e = s.ops().embedding(w, ids, Shape.of(2, 3));
            assertEquals(Shape.of(2, 3, 64), e.shape());
            float[] got = e.toFloatArray();
            for (int t = 0; t < ids.length; t++) {
                for (int c = 0; c < 64; c++) {
                    assertEquals(decoded[ids[t] * 64 + c], got[t * 64 + c], "token " + t + " column " + c);
                }
            }
        }
    }

    @Test
    void aClosedWeightIsRefusedByName() {
        Weight w;
        try (Scope s = BACKEND.newScope()) {
            w = s.weight(normal(11, 8 * 32, 1), Shape.of(8, 32), WeightType.Q8_0);
        }
        try (Scope s = BACKEND.newScope()) {
            Tensor x = s.tensor(normal(12, 32, 1), Shape.of(1, 32));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.ops().linear(x, w, null));
            assertTrue(e.getMessage().contains("linear"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = DType.class)
    void fusedNormsEqualTheAddThenTheNormOverSeveralBlocksOfRows(DType dtype) {
        int d = 384;
        int rows = 100;
        Shape shape = Shape.of(4, rows / 4, d);
        double[] x = widen(normal(13, rows * d, 3));
        double[] r = widen(normal(14, rows * d, 1));
        double[] g = widen(normal(15, d, 1));
        double[] b = widen(normal(16, d, 1));
        x[5 * d + 3] = 1e20;
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            Tensor xt = s.tensor(x, shape, dtype);
            Tensor rt = s.tensor(r, shape, dtype);
            Tensor gt = s.tensor(g, Shape.of(d), dtype);
            Tensor bt = s.tensor(b, Shape.of(d), dtype);
            Tensor sum = ops.add(xt, rt);
            double[] ln = layerNorm(sum.toDoubleArray(), d, g, b, dtype);
            double[] rms = rmsNorm(sum.toDoubleArray(), d, g, dtype);
            double tol = dtype == DType.F32 ? 2e-6 : 1e-12;
            assertClose("layerNorm(x, residual)", ln, ops.layerNorm(xt, rt, gt, bt, 1e-5).toDoubleArray(), tol);
            assertClose("layerNorm(x + residual)", ln, ops.layerNorm(sum, gt, bt, 1e-5).toDoubleArray(), tol);
            assertClose("rmsNorm(x, residual)", rms, ops.rmsNorm(xt, rt, gt, 1e-5).toDoubleArray(), tol);
            assertClose("rmsNorm(x + residual)", rms, ops.rmsNorm(sum, gt, 1e-5).toDoubleArray(), tol);
        }
    }

    private static double[] layerNorm(double[] x, int d, double[] g, double[] b, DType dtype) {
        double[] y = new double[x.length];
        for (int row = 0; row < x.length; row += d) {
            double mean = 0;
            double var = 0;
            for (int c = 0; c < d; c++) {
                mean += x[row + c] / d;
            }
            for (int c = 0; c < d; c++) {
                var += (x[row + c] - mean) * (x[row + c] - mean) / d;
            }
            for (int c = 0; c < d; c++) {
                double v = (x[row + c] - mean) / Math.sqrt(var + 1e-5);
                y[row + c] = dtype == DType.F32 ? (float) ((float) ((float) v * (float) g[c]) + (float) b[c])
                        : v * g[c] + b[c];
            }
        }
        return y;
    }

    private static double[] rmsNorm(double[] x, int d, double[] g, DType dtype) {
        double[] y = new double[x.length];
        for (int row = 0; row < x.length; row += d) {
            double ms = 0;
            for (int c = 0; c < d; c++) {
                ms += x[row + c] * x[row + c] / d;
            }
            for (int c = 0; c < d; c++) {
                double v = x[row + c] / Math.sqrt(ms + 1e-5);
                y[row + c] = dtype == DType.F32 ? (float) ((float) v * (float) g[c]) : v * g[c];
            }
        }
        return y;
    }

    static Stream<Object[]> packedCases() {
        Mask padding = Mask.of(Shape.of(2, 1, 1, 7), new boolean[] {true, true, true, true, true, true, true,
            true, true, true, true, false, false, false});
        AttentionOptions plain = AttentionOptions.defaults();
        return Stream.of(
                new Object[] {"MHA", 4, 4, plain},
                new Object[] {"GQA with the weights", 4, 2, plain.withWeights(true)},
                new Object[] {"MQA causal", 4, 1, plain.withCausal(true)},
                new Object[] {"key padding and dropout", 2, 2, plain.withMask(padding).withDropout(0.3, 11)
                        .withWeights(true)},
                new Object[] {"window and key length", 4, 2, plain.withCausal(true).withWindow(3).withKeyLength(6)
                        .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)},
                new Object[] {"scale 1", 2, 1, plain.withScale(1.0)},
                new Object[] {"soft-capped logits, causal", 4, 2, plain.withLogitSoftcap(2.0).withCausal(true)});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packedCases")
    void packedAttentionReadsEachHeadWhereItLiesAsTheCompositionDoes(String name, int heads, int kvHeads,
                                                                      AttentionOptions options) {
        for (DType dtype : DType.values()) {
            int d = 8;
            Shape shape = Shape.of(2, 7, (heads + 2 * kvHeads) * d);
            double[] data = widen(normal(17, (int) shape.size(), 1));
            try (Scope s = BACKEND.newScope()) {
                Tensor qkv = s.tensor(data, shape, dtype);
                AttentionResult fused = s.ops().packedAttention(qkv, heads, kvHeads, options);
                AttentionResult composed = ReferenceOps.packedAttention(s.ops(), qkv, heads, kvHeads, d, options);
                double tol = Close.tolerance(dtype);
                assertClose(name + " " + dtype + " output", composed.output().toDoubleArray(),
                        fused.output().toDoubleArray(), tol);
                assertEquals(composed.weights() == null, fused.weights() == null);
                if (fused.weights() != null) {
                    assertClose(name + " " + dtype + " weights", composed.weights().toDoubleArray(),
                            fused.weights().toDoubleArray(), tol);
                }
            }
        }
    }

    static Stream<Object[]> packedCasesLongerThanTheHeads() {
        boolean[] keys = new boolean[2 * 12];
        for (int i = 0; i < 12; i++) {
            keys[i] = i < 9;
        }
        Mask secondItemFullyMasked = Mask.of(Shape.of(2, 1, 1, 12), keys);
        AttentionOptions plain = AttentionOptions.defaults();
        return Stream.of(
                new Object[] {"plain", plain, -1},
                new Object[] {"an item with every key masked", plain.withMask(secondItemFullyMasked), -1},
                new Object[] {"every key masked, with dropout", plain.withMask(secondItemFullyMasked)
                        .withDropout(0.3, 5), -1},
                new Object[] {"a NaN query", plain, 3 * 4 * 4 + 1},
                new Object[] {"a NaN query, with dropout", plain.withDropout(0.3, 5), 3 * 4 * 4 + 1},
                new Object[] {"every key masked, the weights returned", plain.withMask(secondItemFullyMasked)
                        .withWeights(true), -1});
    }

    /** With L > d the output, not the weights, tells whether libnd4j's softmax answered NaN. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("packedCasesLongerThanTheHeads")
    void packedAttentionLongerThanItsHeadsMatchesTheCompositionAtTheEdges(String name, AttentionOptions options,
                                                                          int nanAt) {
        int heads = 4;
        int d = 4;
        Shape shape = Shape.of(2, 12, 3 * heads * d);
        double[] data = widen(normal(19, (int) shape.size(), 1));
        if (nanAt >= 0) {
            data[nanAt] = Double.NaN;
        }
        for (DType dtype : DType.values()) {
            try (Scope s = BACKEND.newScope()) {
                Tensor qkv = s.tensor(data, shape, dtype);
                AttentionResult fused = s.ops().packedAttention(qkv, heads, heads, options);
                AttentionResult composed = ReferenceOps.packedAttention(s.ops(), qkv, heads, heads, d, options);
                double[] expected = composed.output().toDoubleArray();
                assertClose(name + " " + dtype + " output", expected, fused.output().toDoubleArray(),
                        Close.tolerance(dtype));
                assertTrue(Arrays.stream(expected).anyMatch(Double::isNaN) == (nanAt >= 0), name);
                if (fused.weights() != null) {
                    assertClose(name + " " + dtype + " weights", composed.weights().toDoubleArray(),
                            fused.weights().toDoubleArray(), Close.tolerance(dtype));
                }
            }
        }
    }

    @Test
    void packedAttentionBeyondTheLogitsBudgetTakesTheComposition() {
        Shape shape = Shape.of(1, 1200, 3 * 8 * 8);
        assertTrue(!PackedAttention.suits(shape, 8));
        try (Scope s = BACKEND.newScope()) {
            Tensor qkv = s.tensor(normal(18, (int) shape.size(), 1), shape);
            AttentionOptions causal = AttentionOptions.defaults().withCausal(true);
            assertClose("packed attention past the budget",
                    widen(ReferenceOps.packedAttention(s.ops(), qkv, 8, 8, 8, causal).output().toFloatArray()),
                    widen(s.ops().packedAttention(qkv, 8, 8, causal).output().toFloatArray()), 2e-5);
        }
    }
}
