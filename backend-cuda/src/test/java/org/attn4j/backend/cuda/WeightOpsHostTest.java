package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.commons.math3.special.Erf;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The host side of the weights and the fused ops, end to end on {@link InterpretingDevice}: every storage type's
 * bind layout (quants and scales apart, uploaded a block of rows at a time) read back as the type decodes it, both
 * linear kernels' argument lists and epilogues against a double reference of the weight's values, the gather, the
 * residual inside the norms, and packed attention's row layouts against the spi's composition. The kernels'
 * parallel arithmetic is checked by the CPU emulation of {@code src/test/emulation}.
 */
class WeightOpsHostTest {
    private static final Backend BACKEND = new CudaBackend(new InterpretingDevice(), CudaBackendProvider.CAPABILITIES);
    private static final int IN = 64;
    private static final int OUT = 24;

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
            case GELU -> 0.5 * v * Erf.erfc(-v / Math.sqrt(2));
            case GELU_TANH -> 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v)));
            case SILU -> v / (1 + Math.exp(-v));
        };
    }

    private static void assertClose(String what, double[] expected, float[] actual, double tol) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= tol * (1 + Math.abs(expected[i])))) {
                fail(what + ": at index " + i + " expected " + expected[i] + " but got " + actual[i] + " (abs error "
                        + abs + ", rel error " + abs / Math.abs(expected[i]) + ", tolerance " + tol + ")");
            }
        }
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
            for (int rows : new int[] {1, 8, 9, 70}) {
                cases.add(new Object[] {type, rows, Activation.GELU, false, true, false});
                cases.add(new Object[] {type, rows, Activation.IDENTITY, false, true, true});
                cases.add(new Object[] {type, rows, Activation.SILU, true, false, true});
                cases.add(new Object[] {type, rows, Activation.GELU_TANH, true, true, false});
                cases.add(new Object[] {type, rows, Activation.RELU, false, false, false});
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} rows={1} {2} gated={3} bias={4} residual={5}")
    @MethodSource("linearCases")
    void linearOverEveryStorageTypeEqualsTheEpilogueOverTheWeightsValues(WeightType type, int rows,
            Activation activation, boolean gated, boolean withBias, boolean withResidual) {
        int weightRows = gated ? 2 * OUT : OUT;
        float[] x = normal(1, rows * IN, 1);
        float[] bias = withBias ? normal(3, weightRows, 0.5) : null;
        float[] residual = withResidual ? normal(4, rows * OUT, 1) : null;
        try (Scope s = BACKEND.newScope()) {
            Weight weight = s.weight(normal(2, weightRows * IN, 1 / Math.sqrt(IN)), Shape.of(weightRows, IN), type);
            float[] w = weight.toFloatArray();
            Epilogue e = (gated ? Epilogue.gated(activation) : Epilogue.none().withActivation(activation))
                    .withResidual(residual == null ? null : s.tensor(residual, Shape.of(rows, OUT)));
            Tensor y = s.ops().linear(s.tensor(x, Shape.of(rows, IN)), weight,
                    bias == null ? null : s.tensor(bias, Shape.of(weightRows)), e);
            double[] expected = new double[rows * OUT];
            for (int r = 0; r < rows; r++) {
                for (int o = 0; o < OUT; o++) {
                    double g = bias == null ? 0 : bias[o];
                    double u = bias == null || !gated ? 0 : bias[OUT + o];
                    for (int c = 0; c < IN; c++) {
                        g += (double) x[r * IN + c] * w[o * IN + c];
                        u += gated ? (double) x[r * IN + c] * w[(OUT + o) * IN + c] : 0;
                    }
                    expected[r * OUT + o] = activate(activation, g) * (gated ? u : 1)
                            + (residual == null ? 0 : residual[r * OUT + o]);
                }
            }
            assertClose(type + " linear", expected, y.toFloatArray(), 1e-5);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, names = {"F32", "F16", "BF16", "Q8_0", "Q4_0"})
    void aWeightUploadedBlockByBlockReadsBackAsItsTypeDecodesIt(WeightType type) {
        int rows = 1100;
        int columns = 2048;
        ByteBuffer bytes = type.encode(normal(5, rows * columns, 1), Shape.of(rows, columns));
        try (Scope s = BACKEND.newScope()) {
            Weight w = s.weight(bytes, type, Shape.of(rows, columns));
            assertArrayEquals(type.decode(bytes, Shape.of(rows, columns)), w.toFloatArray());
        }
    }

    static Stream<Object[]> ggufCases() {
        List<Object[]> cases = new ArrayList<>();
        for (WeightType type : WeightType.values()) {
            if (type.isQuantized() && type != WeightType.Q8_0 && type != WeightType.Q4_0) {
                boolean kernels = type == WeightType.Q4_K || type == WeightType.Q6_K;
                for (int n : kernels ? new int[] {1, 9, 70} : new int[] {3}) {
                    cases.add(new Object[] {type, n});
                }
            }
        }
        return cases.stream();
    }

    /**
     * Q4_K and Q6_K are read by their own kernels from GGUF's super-blocks as they are; the other GGUF types are
     * decoded once to F32. Either way the numbers are {@code WeightType.decode}'s, bit for bit.
     */
    @ParameterizedTest(name = "{0} rows={1}")
    @MethodSource("ggufCases")
    void aGgufTypeIsReadAsItsTypeDecodesItByItsKernelsOrAsF32(WeightType type, int n) {
        int rows = 30;
        int in = 512;
        ByteBuffer bytes = type.encode(normal(7, rows * in, 1 / Math.sqrt(in)), Shape.of(rows, in));
        float[] w = type.decode(bytes, Shape.of(rows, in));
        float[] x = normal(8, n * in, 1);
        try (Scope s = BACKEND.newScope()) {
            Weight weight = s.weight(bytes, type, Shape.of(rows, in));
            assertEquals(type, weight.type());
            boolean own = type == WeightType.Q4_K || type == WeightType.Q6_K;
            assertEquals(own ? type.byteSize(Shape.of(rows, in)) : 4L * rows * in, weight.byteSize(),
                    own ? "held in its own blocks" : "held as F32");
            assertArrayEquals(w, weight.toFloatArray());
            double[] expected = new double[n * rows];
            for (int r = 0; r < n; r++) {
                for (int o = 0; o < rows; o++) {
                    for (int c = 0; c < in; c++) {
                        expected[r * rows + o] += (double) x[r * in + c] * w[o * in + c];
                    }
                }
            }
            assertClose(type + " linear", expected, s.ops().linear(s.tensor(x, Shape.of(n, in)), weight, null,
                    Epilogue.none()).toFloatArray(), 1e-5);
            float[] got = s.ops().embedding(weight, new int[] {29, 0}, Shape.of(2)).toFloatArray();
            for (int c = 0; c < in; c++) {
                assertEquals(w[29 * in + c], got[c], "row 29 column " + c);
                assertEquals(w[c], got[in + c], "row 0 column " + c);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, names = {"F32", "F16", "BF16", "Q8_0", "Q4_0"})
    void embeddingGathersTheTablesRowsAsTheyDecode(WeightType type) {
        int[] ids = {9, 0, 4, 4};
        try (Scope s = BACKEND.newScope()) {
            Weight w = s.weight(normal(6, 10 * 64, 1), Shape.of(10, 64), type);
            float[] table = w.toFloatArray();
            float[] got = s.ops().embedding(w, ids, Shape.of(2, 2)).toFloatArray();
            for (int t = 0; t < ids.length; t++) {
                for (int c = 0; c < 64; c++) {
                    assertEquals(table[ids[t] * 64 + c], got[t * 64 + c], "token " + t + " column " + c);
                }
            }
        }
    }

    @Test
    void normsAddTheResidualAsTheyReadEachRow() {
        Shape shape = Shape.of(3, 40);
        try (Scope s = BACKEND.newScope()) {
            Ops ops = s.ops();
            Tensor x = s.tensor(normal(7, 120, 2), shape);
            Tensor r = s.tensor(normal(8, 120, 1), shape);
            Tensor g = s.tensor(normal(9, 40, 1), Shape.of(40));
            Tensor sum = ops.add(x, r);
            assertArrayEquals(ops.layerNorm(sum, g, g, 1e-5).toFloatArray(),
                    ops.layerNorm(x, r, g, g, 1e-5).toFloatArray());
            assertArrayEquals(ops.rmsNorm(sum, g, 1e-6).toFloatArray(), ops.rmsNorm(x, r, g, 1e-6).toFloatArray());
        }
    }

    static Stream<Object[]> packedCases() {
        AttentionOptions plain = AttentionOptions.defaults();
        Mask padding = Mask.keyPadding(new int[] {20, 13}, 20);
        return Stream.of(
                new Object[] {"MHA", 2, 4, 4, 20, plain},
                new Object[] {"GQA causal", 2, 4, 2, 20, plain.withCausal(true)},
                new Object[] {"MQA, key padding and an additive mask", 2, 4, 1, 20, plain.withMask(padding)},
                new Object[] {"dropout", 1, 2, 2, 20, plain.withDropout(0.25, 9)},
                new Object[] {"window and key length, bottom-right", 1, 4, 2, 20, plain.withCausal(true)
                        .withWindow(5).withKeyLength(17).withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)},
                new Object[] {"a few rows", 1, 4, 2, 5, plain.withCausal(true)},
                new Object[] {"soft-capped logits", 2, 4, 2, 20, plain.withLogitSoftcap(2.0)});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packedCases")
    void packedAttentionReadsTheHeadsWhereTheyLieAsTheCompositionDoes(String name, int batch, int heads,
                                                                       int kvHeads, int length,
                                                                       AttentionOptions options) {
        int d = 16;
        Shape shape = Shape.of(batch, length, (heads + 2 * kvHeads) * d);
        try (Scope s = BACKEND.newScope()) {
            Tensor qkv = s.tensor(normal(10, (int) shape.size(), 1), shape);
            AttentionOptions o = name.contains("additive")
                    ? options.withAdditiveMask(s.tensor(normal(11, length * length, 1), Shape.of(length, length)))
                    : options;
            AttentionResult fused = s.ops().packedAttention(qkv, heads, kvHeads, o);
            AttentionResult composed = ReferenceOps.packedAttention(s.ops(), qkv, heads, kvHeads, d, o);
            assertClose(name, widen(composed.output().toFloatArray()), fused.output().toFloatArray(), 2e-6);
        }
    }
}
