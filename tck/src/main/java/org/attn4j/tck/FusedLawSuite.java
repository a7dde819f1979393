package org.attn4j.tck;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.ReferenceOps;
import org.attn4j.models.parameters.HostTensor;

/**
 * Laws of weights and of the fused ops, checked on the backend alone with seeded inputs at shapes past the goldens'
 * (several register tiles, rows past a decoding kernel's limit):
 * <ul>
 *   <li>a weight reads back as exactly the values its bytes hold ({@link WeightType#decode}), for every storage
 *       type, whatever layout the backend chose;</li>
 *   <li>{@code linear} over a weight, with each epilogue (each activation, gated, residual), equals {@code linear}
 *       over a tensor of the weight's values followed by the composed epilogue ({@link ReferenceOps#epilogue}); a
 *       gated result is compared relative to the size of its two factors, whose product amplifies the rounding
 *       of each;</li>
 *   <li>{@code embedding} of a weight equals {@code embedding} of a tensor of its values;</li>
 *   <li>{@code layerNorm(x, residual, …)} and {@code rmsNorm(x, residual, …)} equal the norm of {@code add(x,
 *       residual)};</li>
 *   <li>{@code packedAttention} equals {@code attention} on q, k and v cut out of the packed projection;</li>
 *   <li>{@code linear} over an {@link WeightType#I8} weight equals ONNX's {@code DynamicQuantizeLinear →
 *       MatMulInteger → Cast → Mul → Add}, written out here in long arithmetic, bit for bit, each sequence of a
 *       batch {@code [B, L, in]} over its own range (the int32 sums are exact and every float step is one rounding,
 *       so no backend may differ). For I8 the epilogue law composes
 *       with {@code linear} over the weight itself, since its product quantizes the input and so is not the product
 *       over the weight's values.</li>
 * </ul>
 * In the F64 run every weight is F64; in the F32 run each law runs for every storage type but F64.
 */
final class FusedLawSuite {
    private static final Activation[] ACTIVATIONS = Activation.values();

    private FusedLawSuite() {
    }

    static List<TckCase> plan(ToleranceTable tolerances, long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            for (WeightType type : types(dtype)) {
                String suffix = "_" + type.name().toLowerCase(java.util.Locale.ROOT);
                cases.add(new TckCase("law_weight_reads_back_its_values" + suffix, Kind.LAW, "weight", dtype,
                        dtype.name(), Set.of(), backend -> {
                            try (Scope scope = backend.newScope()) {
                                return readsBack(scope, type, HostArrays.random("weight" + suffix, seed),
                                        backend.name(), dtype);
                            }
                        }));
                String linear = "law_fused_linear_equals_composition" + suffix;
                cases.add(LawSuite.lawCase(tolerances.lookup("linear", linear, dtype), dtype, linear, "linear",
                        Set.of(), seed, (run, random) -> fusedLinear(run, random, type)));
                String embedding = "law_weight_embedding_equals_tensor_embedding" + suffix;
                cases.add(LawSuite.lawCase(tolerances.lookup("embedding", embedding, dtype), dtype, embedding,
                        "embedding", Set.of(), seed, (run, random) -> embedding(run, random, type)));
            }
            String norms = "law_residual_norms_equal_norm_of_sum";
            cases.add(LawSuite.lawCase(tolerances.lookup("layerNorm", norms, dtype), dtype, norms, "layerNorm",
                    Set.of(), seed, FusedLawSuite::residualNorms));
            if (dtype == DType.F32) {
                cases.add(new TckCase("law_i8_linear_equals_onnx_integer_formula", Kind.LAW, "linear", dtype,
                        dtype.name(), Set.of(), backend -> {
                            try (Scope scope = backend.newScope()) {
                                return integerLinear(scope, HostArrays.random("law_i8_linear", seed),
                                        backend.name());
                            }
                        }));
            }
            String packed = "law_packed_attention_equals_attention_on_cut_heads";
            cases.add(LawSuite.lawCase(tolerances.lookup("packedAttention", packed, dtype), dtype, packed,
                    "packedAttention", Set.of(), seed, FusedLawSuite::packedAttention));
        }
        return cases;
    }

    static List<WeightType> types(DType dtype) {
        if (dtype == DType.F64) {
            return List.of(WeightType.F64);
        }
        List<WeightType> types = new ArrayList<>(Arrays.asList(WeightType.values()));
        types.remove(WeightType.F64);
        return types;
    }

    /** @return {@code columns}, or 256 for the types of 256-number super-blocks */
    static int columns(WeightType type, int columns) {
        return type.blockSize() > columns ? type.blockSize() : columns;
    }

    /** Values of a type's range: normal, scaled per row so that blocks have different scales. */
    static float[] values(Random random, int rows, int columns) {
        float[] v = new float[rows * columns];
        for (int r = 0; r < rows; r++) {
            double scale = Math.pow(2, random.nextInt(9) - 6);
            for (int c = 0; c < columns; c++) {
                v[r * columns + c] = (float) (scale * random.nextGaussian());
            }
        }
        return v;
    }

    private static Measurement readsBack(Scope scope, WeightType type, Random random, String backend, DType dtype) {
        int rows = 7;
        int columns = columns(type, 96);
        Shape shape = Shape.of(rows, columns);
        ByteBuffer bytes = type.encode(values(random, rows, columns), shape);
        float[] expected = type.decode(bytes.duplicate(), shape);
        Weight w = scope.weight(bytes, type, shape);
        float[] actual = w.toFloatArray();
        String what = "weight law_weight_reads_back_its_values [" + type + "] on " + backend;
        if (!w.shape().equals(shape) || w.type() != type) {
            return Measurement.failed(what + ": the weight says " + w.type() + w.shape() + ", created as " + type
                    + shape);
        }
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                return Measurement.failed(what + ": index " + i + " (row " + i / columns + ", column " + i % columns
                        + ") reads " + actual[i] + ", its bytes hold " + expected[i]);
            }
        }
        if (w.byteSize() <= 0) {
            return Measurement.failed(what + ": byteSize() is " + w.byteSize());
        }
        return Measurement.EXACT;
    }

    /** The weight of {@code values} in {@code type}, and a tensor of exactly the values it holds. */
    private record Bound(Weight weight, Tensor values) {
    }

    private static Bound bind(Run run, WeightType type, float[] values, Shape shape) {
        Weight w = run.scope().weight(values, shape, type);
        HostTensor held = HostTensor.of(w.toFloatArray(), shape.toArray());
        return new Bound(w, run.in(held));
    }

    private static List<HostTensor[]> fusedLinear(Run run, Random random, WeightType type) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        int in = columns(type, 96);
        int out = 70;
        for (int rows : new int[] {1, 3, 40}) {
            Tensor x = run.in(HostArrays.randn(random, 1.0, 2, rows, in));
            Bound plain = bind(run, type, values(random, out, in), Shape.of(out, in));
            Bound gated = bind(run, type, values(random, 2 * out, in), Shape.of(2 * out, in));
            Tensor bias = run.in(HostArrays.randn(random, 0.5, out));
            Tensor gatedBias = run.in(HostArrays.randn(random, 0.5, 2 * out));
            Tensor residual = run.in(HostArrays.randn(random, 1.0, 2, rows, out));
            for (Activation a : ACTIVATIONS) {
                Epilogue e = Epilogue.none().withActivation(a);
                pairs.add(pair(ops.linear(x, plain.weight(), bias, e),
                        ReferenceOps.epilogue(ops, bare(ops, x, plain, bias, type), e)));
                Epilogue g = Epilogue.gated(a).withResidual(residual);
                Tensor b = a == Activation.SILU ? null : gatedBias;
                Tensor product = bare(ops, x, gated, b, type);
                pairs.add(conditioned(ops.linear(x, gated.weight(), b, g), ReferenceOps.epilogue(ops, product, g),
                        product));
            }
            Epilogue r = Epilogue.none().withActivation(Activation.GELU).withResidual(residual);
            pairs.add(pair(ops.linear(x, plain.weight(), null, r),
                    ReferenceOps.epilogue(ops, bare(ops, x, plain, null, type), r)));
            if (type != WeightType.I8) {
                pairs.add(pair(ops.linear(x, plain.weight(), bias), ops.linear(x, plain.values(), bias)));
            }
        }
        return pairs;
    }

    /**
     * @return the product without epilogue that the fused one composes: over the weight's values, or over the I8
     *     weight itself, whose product quantizes its input
     */
    private static Tensor bare(Ops ops, Tensor x, Bound bound, Tensor bias, WeightType type) {
        return type == WeightType.I8 ? ops.linear(x, bound.weight(), bias) : ops.linear(x, bound.values(), bias);
    }

    /**
     * {@code linear} over I8 against ONNX's sequence in long arithmetic, on matrices (one sequence) and on batches
     * {@code [B, L, in]} whose sequences have different ranges (each quantized over its own, as ONNX Runtime quantizes
     * a tensor holding that sequence alone).
     */
    private static Measurement integerLinear(Scope scope, Random random, String backend) {
        Ops ops = scope.ops();
        int[][] shapes = {{0, 1, 1, 1}, {0, 3, 31, 5}, {0, 40, 96, 70}, {0, 7, 384, 33}, {3, 5, 31, 5}, {2, 9, 96, 17}};
        for (int[] s : shapes) {
            for (float shift : new float[] {0f, 2.5f, -2.5f}) {
                int sequences = Math.max(1, s[0]);
                int rows = s[1];
                int in = s[2];
                int out = s[3];
                float[] x = new float[sequences * rows * in];
                for (int i = 0; i < x.length; i++) {
                    x[i] = (float) (random.nextGaussian() * (1 + i / (rows * in)) + shift);
                }
                ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(WeightType.I8.byteSize(Shape.of(out, in))))
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
                byte[] q = new byte[out * in];
                random.nextBytes(q);
                float[] scales = new float[out];
                int[] zeros = new int[out];
                float[] bias = new float[out];
                for (int j = 0; j < out; j++) {
                    scales[j] = (float) Math.scalb(1 + random.nextDouble(), -6 - random.nextInt(4));
                    zeros[j] = j % 2 == 0 ? 0 : random.nextInt(256) - 128;
                    bias[j] = (float) random.nextGaussian();
                    bytes.putFloat(scales[j]).putInt(zeros[j]).put(q, j * in, in);
                }
                Shape xShape = s[0] > 0 ? Shape.of(sequences, rows, in) : Shape.of(rows, in);
                Weight w = scope.weight(bytes.flip(), WeightType.I8, Shape.of(out, in));
                float[] actual = ops.linear(scope.tensor(x, xShape), w, scope.tensor(bias, Shape.of(out)))
                        .toFloatArray();
                for (int first = 0; first < sequences * rows; first += rows) {
                    float lo = 0f;
                    float hi = 0f;
                    for (int i = first * in; i < (first + rows) * in; i++) {
                        lo = Math.min(lo, x[i]);
                        hi = Math.max(hi, x[i]);
                    }
                    float as = hi == lo ? 1f : (hi - lo) / 255f;
                    long az = (long) Math.rint(Math.min(255f, Math.max(0f, 0f - lo / as)));
                    for (int i = first; i < first + rows; i++) {
                        for (int j = 0; j < out; j++) {
                            long acc = 0;
                            for (int p = 0; p < in; p++) {
                                long a = Math.max(0, Math.min(255, (long) Math.rint(x[i * in + p] / as) + az));
                                acc += (a - az) * (q[j * in + p] - zeros[j]);
                            }
                            float expected = (float) (int) acc * (as * scales[j]) + bias[j];
                            float got = actual[i * out + j];
                            if (Float.floatToIntBits(expected) != Float.floatToIntBits(got)) {
                                double abs = Math.abs((double) got - expected);
                                return Measurement.failed("linear law_i8_linear_equals_onnx_integer_formula on "
                                        + backend + ": x " + xShape + " (shift " + shift + ") by I8 "
                                        + Shape.of(out, in) + ", index " + (i * out + j) + ": expected " + expected
                                        + ", actual " + got + ", abs error " + abs + ", rel error "
                                        + abs / Math.abs(expected));
                            }
                        }
                    }
                }
            }
        }
        return Measurement.EXACT;
    }

    private static List<HostTensor[]> embedding(Run run, Random random, WeightType type) {
        int d = columns(type, 64);
        Bound table = bind(run, type, values(random, 37, d), Shape.of(37, d));
        int[] ids = {0, 36, 5, 5, 17, 1};
        Shape idsShape = Shape.of(2, 3);
        return List.<HostTensor[]>of(pair(run.ops().embedding(table.weight(), ids, idsShape),
                run.ops().embedding(table.values(), ids, idsShape)));
    }

    private static List<HostTensor[]> residualNorms(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        for (int d : new int[] {5, 384, 1000}) {
            Tensor x = run.in(HostArrays.randn(random, 2.0, 3, 7, d));
            Tensor residual = run.in(HostArrays.randn(random, 1.0, 3, 7, d));
            Tensor gamma = run.in(HostArrays.randn(random, 1.0, d));
            Tensor beta = run.in(HostArrays.randn(random, 1.0, d));
            Tensor sum = ops.add(x, residual);
            pairs.add(pair(ops.layerNorm(x, residual, gamma, beta, 1e-12), ops.layerNorm(sum, gamma, beta, 1e-12)));
            pairs.add(pair(ops.layerNorm(x, residual, null, null, 1e-5), ops.layerNorm(sum, null, null, 1e-5)));
            pairs.add(pair(ops.rmsNorm(x, residual, gamma, 1e-6), ops.rmsNorm(sum, gamma, 1e-6)));
            pairs.add(pair(ops.rmsNorm(x, residual, null, 1e-5), ops.rmsNorm(sum, null, 1e-5)));
        }
        return pairs;
    }

    private static List<HostTensor[]> packedAttention(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        int[][] shapes = {{2, 70, 4, 2, 32}, {1, 130, 12, 12, 64}, {3, 9, 6, 1, 16}};
        for (int[] s : shapes) {
            int b = s[0];
            int l = s[1];
            int h = s[2];
            int kv = s[3];
            int d = s[4];
            Tensor qkv = run.in(HostArrays.randn(random, 1.0, b, l, (h + 2 * kv) * d));
            int[] valid = new int[b];
            for (int i = 0; i < b; i++) {
                valid[i] = 1 + random.nextInt(l);
            }
            for (AttentionOptions o : List.of(AttentionOptions.defaults(),
                    AttentionOptions.defaults().withCausal(true),
                    AttentionOptions.defaults().withMask(Mask.keyPadding(valid, l)))) {
                AttentionResult packed = ops.packedAttention(qkv, h, kv, o);
                List<Tensor> parts = ops.split(qkv, new int[] {h * d, kv * d, kv * d}, 2);
                Tensor q = ops.permute(ops.reshape(parts.get(0), b, l, h, d), 0, 2, 1, 3);
                Tensor k = ops.permute(ops.reshape(parts.get(1), b, l, kv, d), 0, 2, 1, 3);
                Tensor v = ops.permute(ops.reshape(parts.get(2), b, l, kv, d), 0, 2, 1, 3);
                Tensor cut = ops.attention(q, k, v, o).output();
                pairs.add(pair(packed.output(), ops.reshape(ops.permute(cut, 0, 2, 1, 3), b, l, h * d)));
            }
        }
        return pairs;
    }

    /**
     * A gated pair, both sides divided elementwise by {@code 1 + |g| + |u|}, g and u the gate's and the up
     * projection's outputs of the composition. The gated product multiplies two dot products, so the error of each,
     * which depends on the order of its sums, reaches the result multiplied by the other factor
     * ({@code |act(g)|·δu + |act'(g)|·|u|·δg}, every activation here having {@code |act(g)| ≤ |g|} and
     * {@code |act'| ≤ 1.13}); divided by that condition, it is again a product's error and meets the product's
     * tolerance, as the plain pairs do.
     */
    private static HostTensor[] conditioned(Tensor fused, Tensor composed, Tensor product) {
        HostTensor gu = HostTensor.copyOf(product);
        int width = gu.shape().dim(-1);
        int out = width / 2;
        double[] a = HostTensor.copyOf(fused).data();
        double[] b = HostTensor.copyOf(composed).data();
        double[] p = gu.data();
        for (int i = 0; i < a.length; i++) {
            int row = i / out;
            int j = i % out;
            double c = 1 + Math.abs(p[row * width + j]) + Math.abs(p[row * width + out + j]);
            a[i] /= c;
            b[i] /= c;
        }
        return new HostTensor[] {new HostTensor(fused.shape(), a), new HostTensor(composed.shape(), b)};
    }

    private static HostTensor[] pair(Tensor a, Tensor b) {
        return new HostTensor[] {HostTensor.copyOf(a), HostTensor.copyOf(b)};
    }
}
