package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.VisibleKeys;
import org.attn4j.models.parameters.HostTensor;

/**
 * Laws of the decoder primitives the checkpoints of today need, checked on the backend alone with seeded inputs:
 * <ul>
 *   <li>rotary embeddings with scaled frequencies, an attention scaling and partial rotation: a query-key product
 *       depends on the positions' difference only; a row at offset {@code o} is the row {@code o} of a longer
 *       tensor; the features past the rotated ones pass unchanged and each pair's length grows by exactly the
 *       scaling; the interleaved layout is the half-split one on de-interleaved features;</li>
 *   <li>soft-capping is odd, bounded by its cap and the identity for inputs far below it;</li>
 *   <li>attention with a logit soft-cap equals its composition from the backend's own matmul, scale, softcap,
 *       masks and softmax, also with grouped queries, a window, bottom-right alignment and a key length (the
 *       prefill and decoding routes of a fused kernel);</li>
 *   <li>an RMS norm over the head dimension of {@code [B, L, H, d]} (Qwen3's q/k norms) is the norm of each head
 *       alone.</li>
 * </ul>
 * Both sides of each law come from the same backend and dtype.
 */
final class DecoderLawSuite {

    private DecoderLawSuite() {
    }

    static List<TckCase> plan(ToleranceTable tolerances, long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            add(cases, tolerances, dtype, seed, "law_rope_depends_on_the_relative_position", "rope",
                    DecoderLawSuite::ropeDependsOnRelativePosition);
            add(cases, tolerances, dtype, seed, "law_rope_at_an_offset_equals_the_later_rows", "rope",
                    DecoderLawSuite::ropeAtAnOffsetEqualsLaterRows);
            add(cases, tolerances, dtype, seed, "law_rope_scales_pair_lengths_and_passes_the_rest", "rope",
                    DecoderLawSuite::ropeScalesPairLengthsAndPassesTheRest);
            add(cases, tolerances, dtype, seed, "law_rope_interleaved_equals_half_split_of_deinterleaved_features", "rope",
                    DecoderLawSuite::interleavedEqualsHalfSplitOfDeinterleaved);
            add(cases, tolerances, dtype, seed, "law_softcap_is_odd_bounded_and_near_identity", "softcap",
                    DecoderLawSuite::softcapIsOddBoundedAndNearIdentity);
            add(cases, tolerances, dtype, seed, "law_softcapped_attention_equals_its_composition", "attention",
                    DecoderLawSuite::softcappedAttentionEqualsComposition);
            add(cases, tolerances, dtype, seed, "law_per_head_rms_norm_equals_each_head_alone", "rmsNorm",
                    DecoderLawSuite::perHeadRmsNormEqualsEachHeadAlone);
        }
        return cases;
    }

    private static void add(List<TckCase> cases, ToleranceTable tolerances, DType dtype, long seed, String id,
                            String op, LawSuite.Pairs pairs) {
        cases.add(LawSuite.lawCase(tolerances, dtype, id, op, Set.of(), seed, pairs));
    }

    /** Frequencies in (0, 1] as a scaled variant gives them, an attention scaling of 1.25, 6 pairs. */
    private static RotaryEmbedding scaled(Random random, RopeLayout layout) {
        double[] frequencies = new double[6];
        for (int i = 0; i < frequencies.length; i++) {
            frequencies[i] = Math.pow(10000.0, -i / 6.0) / (1.0 + 3.0 * random.nextDouble());
        }
        return RotaryEmbedding.ofInverseFrequencies(layout, frequencies).withAttentionScaling(1.25);
    }

    private static List<HostTensor[]> ropeDependsOnRelativePosition(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        for (RopeLayout layout : RopeLayout.values()) {
            RotaryEmbedding rotary = scaled(random, layout);
            Tensor q = run.in(HostArrays.randn(random, 1.0, 1, 2, 5, 16));
            Tensor k = run.in(HostArrays.randn(random, 1.0, 1, 2, 7, 16));
            Tensor near = ops.matmul(ops.rope(q, rotary, 3), ops.rope(k, rotary, 11), false, true);
            Tensor far = ops.matmul(ops.rope(q, rotary, 53), ops.rope(k, rotary, 61), false, true);
            pairs.add(new HostTensor[] {HostTensor.copyOf(near), HostTensor.copyOf(far)});
        }
        return pairs;
    }

    private static List<HostTensor[]> ropeAtAnOffsetEqualsLaterRows(Run run, Random random) {
        Ops ops = run.ops();
        List<HostTensor[]> pairs = new ArrayList<>();
        for (RopeLayout layout : RopeLayout.values()) {
            RotaryEmbedding rotary = scaled(random, layout);
            HostTensor x = HostArrays.randn(random, 1.0, 2, 3, 4, 14);
            HostTensor longer = HostArrays.concat(List.of(HostArrays.filled(0.0, Shape.of(2, 3, 37, 14)), x), 2);
            HostTensor whole = HostTensor.copyOf(ops.rope(run.in(longer), rotary, 0));
            HostTensor later = HostArrays.take(whole, 2, new int[] {37, 38, 39, 40});
            pairs.add(new HostTensor[] {later, HostTensor.copyOf(ops.rope(run.in(x), rotary, 37))});
        }
        return pairs;
    }

    /** Pair lengths of the output against the input's times the scaling, and the unrotated features. */
    private static List<HostTensor[]> ropeScalesPairLengthsAndPassesTheRest(Run run, Random random) {
        List<HostTensor[]> pairs = new ArrayList<>();
        for (RopeLayout layout : RopeLayout.values()) {
            RotaryEmbedding rotary = scaled(random, layout);
            HostTensor x = HostArrays.randn(random, 1.0, 3, 6, 16);
            HostTensor y = HostTensor.copyOf(run.ops().rope(run.in(x), rotary, 1000));
            HostTensor input = HostTensor.copyOf(run.in(x));
            pairs.add(new HostTensor[] {pairLengths(input, layout, rotary.attentionScaling()),
                pairLengths(y, layout, 1.0)});
            int[] rest = {12, 13, 14, 15};
            pairs.add(new HostTensor[] {HostArrays.take(input, 2, rest), HostArrays.take(y, 2, rest)});
        }
        return pairs;
    }

    private static HostTensor pairLengths(HostTensor t, RopeLayout layout, double factor) {
        double[] v = t.data();
        int d = t.shape().dim(-1);
        int rows = v.length / d;
        double[] out = new double[rows * 6];
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < 6; i++) {
                int a = r * d + (layout == RopeLayout.HALF_SPLIT ? i : 2 * i);
                int b = layout == RopeLayout.HALF_SPLIT ? a + 6 : a + 1;
                out[r * 6 + i] = factor * Math.hypot(v[a], v[b]);
            }
        }
        return new HostTensor(Shape.of(rows, 6), out);
    }

    private static List<HostTensor[]> interleavedEqualsHalfSplitOfDeinterleaved(Run run, Random random) {
        RotaryEmbedding interleaved = scaled(random, RopeLayout.INTERLEAVED);
        RotaryEmbedding halfSplit = interleaved.withLayout(RopeLayout.HALF_SPLIT);
        int[] split = {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11, 12, 13};
        int[] merge = new int[split.length];
        for (int i = 0; i < split.length; i++) {
            merge[split[i]] = i;
        }
        HostTensor x = HostArrays.randn(random, 1.0, 2, 5, 14);
        HostTensor direct = HostTensor.copyOf(run.ops().rope(run.in(x), interleaved, 7));
        HostTensor viaHalfSplit = HostArrays.take(HostTensor.copyOf(run.ops().rope(run.in(HostArrays.take(x, 2, split)),
                halfSplit, 7)), 2, merge);
        return List.<HostTensor[]>of(new HostTensor[] {viaHalfSplit, direct});
    }

    private static List<HostTensor[]> softcapIsOddBoundedAndNearIdentity(Run run, Random random) {
        Ops ops = run.ops();
        Tensor x = run.in(HostArrays.randn(random, 40.0, 5, 8));
        HostTensor capped = HostTensor.copyOf(ops.softcap(x, 7.5));
        HostTensor odd = HostTensor.copyOf(ops.scale(ops.softcap(ops.scale(x, -1.0), 7.5), -1.0));
        double[] within = capped.data();
        for (int i = 0; i < within.length; i++) {
            within[i] = Math.abs(within[i]) <= 7.5 ? 1.0 : 0.0;
        }
        Tensor small = run.in(HostArrays.randn(random, 1.0, 4, 6));
        return List.of(new HostTensor[] {capped, odd},
                new HostTensor[] {HostArrays.filled(1.0, capped.shape()), new HostTensor(capped.shape(), within)},
                new HostTensor[] {HostTensor.copyOf(small), HostTensor.copyOf(ops.softcap(small, 1e6))});
    }

    /** The composed side for q {@code [1, H, Lq, d]}, k and v {@code [1, H_kv, Lk, d]}. */
    private static List<HostTensor[]> softcappedAttentionEqualsComposition(Run run, Random random) {
        List<HostTensor[]> pairs = new ArrayList<>();
        AttentionOptions square = AttentionOptions.defaults().withCausal(true).withLogitSoftcap(2.0)
                .withMask(Mask.keyPadding(new int[] {20}, 24));
        pairs.add(compare(run, random, 2, 2, 24, 24, 8, square, true));
        AttentionOptions prefill = AttentionOptions.defaults().withCausal(true).withWindow(20).withLogitSoftcap(3.0);
        pairs.add(compare(run, random, 4, 2, 70, 70, 16, prefill, false));
        AttentionOptions decode = AttentionOptions.defaults().withCausal(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(280).withWindow(100)
                .withLogitSoftcap(5.0);
        pairs.add(compare(run, random, 4, 2, 1, 300, 16, decode, false));
        pairs.add(compare(run, random, 4, 2, 2, 300, 16, decode.withWindow(0), true));
        return pairs;
    }

    private static HostTensor[] compare(Run run, Random random, int heads, int kvHeads, int lq, int lk, int d,
                                        AttentionOptions options, boolean additive) {
        Ops ops = run.ops();
        HostTensor q = HostArrays.randn(random, 2.0, 1, heads, lq, d);
        HostTensor k = HostArrays.randn(random, 2.0, 1, kvHeads, lk, d);
        HostTensor v = HostArrays.randn(random, 1.0, 1, kvHeads, lk, d);
        HostTensor add = additive ? HostArrays.randn(random, 1.0, lq, lk) : null;
        AttentionOptions o = add == null ? options : options.withAdditiveMask(run.in(add));
        HostTensor fused = HostTensor.copyOf(ops.attention(run.in(q), run.in(k), run.in(v), o).output());
        int[] repeat = new int[heads];
        for (int h = 0; h < heads; h++) {
            repeat[h] = h / (heads / kvHeads);
        }
        Tensor keys = run.in(HostArrays.take(k, 1, repeat));
        Tensor values = run.in(HostArrays.take(v, 1, repeat));
        Tensor logits = ops.softcap(ops.scale(ops.matmul(run.in(q), keys, false, true), 1.0 / Math.sqrt(d)),
                options.logitSoftcap());
        if (add != null) {
            logits = ops.add(logits, run.in(add));
        }
        if (options.mask() != null) {
            logits = ops.add(logits, ops.additiveMask(options.mask(), run.dtype()));
        }
        Mask visible = new VisibleKeys(options, lq, lk).mask(lq, lk);
        if (visible != null) {
            logits = ops.add(logits, ops.additiveMask(visible, run.dtype()));
        }
        HostTensor composed = HostTensor.copyOf(ops.matmul(ops.softmax(logits, -1), values));
        return new HostTensor[] {composed, fused};
    }

    private static List<HostTensor[]> perHeadRmsNormEqualsEachHeadAlone(Run run, Random random) {
        Ops ops = run.ops();
        Tensor x = run.in(HostArrays.randn(random, 1.0, 2, 5, 3, 8));
        Tensor w = run.in(HostArrays.randn(random, 0.3, 8));
        List<Tensor> heads = new ArrayList<>();
        for (Tensor head : ops.split(x, new int[] {1, 1, 1}, 2)) {
            heads.add(ops.rmsNorm(head, w, 1e-6));
        }
        return List.<HostTensor[]>of(new HostTensor[] {HostTensor.copyOf(ops.concat(heads, 2)),
            HostTensor.copyOf(ops.rmsNorm(x, w, 1e-6))});
    }
}
