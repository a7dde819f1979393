package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * Batch invariance, the law that lets a server decode many sequences in one step and still give each request the
 * answer it gets alone: every op of a decoding step gives a row the same bits whatever other rows share the call.
 * For {@code R} rows taken at a random offset out of {@value #POOL} (R = 1, 2, 3, 4, 5, 6, 7, 13, 16, 33), the op on
 * those rows alone equals, exactly, those rows of the op on all {@value #POOL}:
 * <ul>
 *   <li>{@code linear} over a weight of every storage type (F64 in the F64 run), with a bias, each activation, and
 *       gated with each activation and a residual: the summation order of an output must not depend on how many rows
 *       the product has (a matrix-vector path for a few rows and a blocked one for many that add in another order,
 *       or a split of the inner dimension chosen by size, break it);</li>
 *   <li>{@code rmsNorm} and {@code layerNorm}, plain and with a residual, over rows of 5, 64 and 576;</li>
 *   <li>{@code attention} of a batch of sequences of different lengths (a key padding mask, grouped queries,
 *       causal bottom-right, one and several queries): each batch entry equals that sequence attended alone.</li>
 * </ul>
 * Exact means {@code |actual − expected| ≤ 0}: equal bits, but for the sign of a zero. Optional: a backend that does
 * not declare {@link org.attn4j.api.Capabilities.Feature#BATCH_INVARIANT} has these cases skipped, and a decoder on
 * it steps each sequence alone.
 */
final class BatchInvarianceSuite {
    /** Rows of the whole call each part is cut from. */
    static final int POOL = 40;
    private static final int[] PARTS = {1, 2, 3, 4, 5, 6, 7, 13, 16, 33};
    private static final Set<Feature> NEEDS = Set.of(Feature.OPTIONAL_BATCH_INVARIANCE);

    private BatchInvarianceSuite() {
    }

    static List<TckCase> plan(long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            Tolerance exact = new Tolerance(0, 0, "batch invariance: a row of a call is computed with the same"
                    + " operations in the same order whatever other rows share the call, so its bits are equal");
            for (WeightType type : FusedLawSuite.types(dtype)) {
                String id = "law_batch_invariance_linear_" + type.name().toLowerCase(java.util.Locale.ROOT);
                cases.add(LawSuite.lawCase(exact, dtype, id, "linear", NEEDS, seed,
                        (run, random) -> linear(run, random, type)));
            }
            cases.add(LawSuite.lawCase(exact, dtype, "law_batch_invariance_rms_norm", "rmsNorm", NEEDS, seed,
                    BatchInvarianceSuite::rmsNorm));
            cases.add(LawSuite.lawCase(exact, dtype, "law_batch_invariance_layer_norm", "layerNorm", NEEDS, seed,
                    BatchInvarianceSuite::layerNorm));
            cases.add(LawSuite.lawCase(exact, dtype, "law_batch_invariance_attention", "attention", NEEDS, seed,
                    BatchInvarianceSuite::attention));
        }
        return cases;
    }

    /** One op applied to {@code [1, rows, …]} inputs cut along axis 1 the same way. */
    @FunctionalInterface
    private interface RowOp {
        Tensor apply(List<Tensor> inputs);
    }

    /**
     * Pairs of (the op on every part's rows, those rows of the op on all rows).
     *
     * @param inputs {@code [1, POOL, …]} each, cut along axis 1
     */
    private static void parts(Run run, Random random, List<HostTensor> inputs, RowOp op, List<HostTensor[]> pairs) {
        HostTensor all = HostTensor.copyOf(op.apply(inputs.stream().map(run::in).toList()));
        for (int rows : PARTS) {
            int from = random.nextInt(POOL - rows + 1);
            int[] cut = new int[rows];
            for (int i = 0; i < rows; i++) {
                cut[i] = from + i;
            }
            List<Tensor> part = inputs.stream().map(h -> run.in(HostArrays.take(h, 1, cut))).toList();
            pairs.add(new HostTensor[] {HostArrays.take(all, 1, cut), HostTensor.copyOf(op.apply(part))});
        }
    }

    private static List<HostTensor[]> linear(Run run, Random random, WeightType type) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        int in = FusedLawSuite.columns(type, 96);
        int out = 70;
        Weight plain = run.scope().weight(FusedLawSuite.values(random, out, in), Shape.of(out, in), type);
        Weight gated = run.scope().weight(FusedLawSuite.values(random, 2 * out, in), Shape.of(2 * out, in), type);
        Tensor bias = run.in(HostArrays.randn(random, 0.5, out));
        Tensor gatedBias = run.in(HostArrays.randn(random, 0.5, 2 * out));
        HostTensor x = HostArrays.randn(random, 1.0, 1, POOL, in);
        HostTensor residual = HostArrays.randn(random, 1.0, 1, POOL, out);
        parts(run, random, List.of(x), v -> ops.linear(v.get(0), plain, null), pairs);
        parts(run, random, List.of(x), v -> ops.linear(v.get(0), plain, bias), pairs);
        for (Activation a : Activation.values()) {
            parts(run, random, List.of(x),
                    v -> ops.linear(v.get(0), plain, bias, Epilogue.none().withActivation(a)), pairs);
            parts(run, random, List.of(x, residual),
                    v -> ops.linear(v.get(0), gated, gatedBias, Epilogue.gated(a).withResidual(v.get(1))), pairs);
        }
        return pairs;
    }

    private static List<HostTensor[]> rmsNorm(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        for (int d : new int[] {5, 64, 576}) {
            HostTensor x = HostArrays.randn(random, 2.0, 1, POOL, d);
            HostTensor residual = HostArrays.randn(random, 1.0, 1, POOL, d);
            Tensor gamma = run.in(HostArrays.randn(random, 1.0, d));
            parts(run, random, List.of(x), v -> ops.rmsNorm(v.get(0), gamma, 1e-6), pairs);
            parts(run, random, List.of(x, residual), v -> ops.rmsNorm(v.get(0), v.get(1), gamma, 1e-5), pairs);
        }
        return pairs;
    }

    private static List<HostTensor[]> layerNorm(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        for (int d : new int[] {5, 64, 576}) {
            HostTensor x = HostArrays.randn(random, 2.0, 1, POOL, d);
            HostTensor residual = HostArrays.randn(random, 1.0, 1, POOL, d);
            Tensor gamma = run.in(HostArrays.randn(random, 1.0, d));
            Tensor beta = run.in(HostArrays.randn(random, 1.0, d));
            parts(run, random, List.of(x), v -> ops.layerNorm(v.get(0), gamma, beta, 1e-5), pairs);
            parts(run, random, List.of(x, residual),
                    v -> ops.layerNorm(v.get(0), v.get(1), gamma, beta, 1e-12), pairs);
        }
        return pairs;
    }

    /**
     * Five sequences of 1 to 70 keys in a cache of 70, four query heads over two key/value heads, as a decoder's
     * step attends: each batch entry against that sequence alone, its own padding mask and the same options.
     */
    private static List<HostTensor[]> attention(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        int b = 5;
        int keys = 70;
        int d = 32;
        for (int queries : new int[] {1, 3, 40}) {
            HostTensor q = HostArrays.randn(random, 1.0, b, 4, queries, d);
            HostTensor k = HostArrays.randn(random, 1.0, b, 2, keys, d);
            HostTensor v = HostArrays.randn(random, 1.0, b, 2, keys, d);
            int[] valid = new int[b];
            for (int i = 0; i < b; i++) {
                valid[i] = queries + random.nextInt(keys - queries + 1);
            }
            AttentionOptions causal = AttentionOptions.defaults().withCausal(true)
                    .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT);
            for (AttentionOptions o : List.of(AttentionOptions.defaults(), causal)) {
                HostTensor all = run.attend(q, k, v, o.withMask(Mask.keyPadding(valid, keys)));
                for (int i = 0; i < b; i++) {
                    int[] one = {i};
                    HostTensor alone = run.attend(HostArrays.take(q, 0, one), HostArrays.take(k, 0, one),
                            HostArrays.take(v, 0, one), o.withMask(Mask.keyPadding(new int[] {valid[i]}, keys)));
                    pairs.add(new HostTensor[] {HostArrays.take(all, 0, one), alone});
                }
            }
        }
        return pairs;
    }
}
