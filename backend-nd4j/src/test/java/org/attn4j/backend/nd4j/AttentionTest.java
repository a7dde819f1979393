package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.attn4j.backend.nd4j.Close.tolerance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AttentionTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final int B = 2;
    private static final int H = 3;
    private static final int LQ = 5;
    private static final int LK = 7;
    private static final int DK = 4;
    private static final int DV = 6;

    private static double[] data(long seed, int n, DType dtype) {
        double[] d = Oracle.random(seed, n);
        for (int i = 0; dtype == DType.F32 && i < n; i++) {
            d[i] = (float) d[i];
        }
        return d;
    }

    /** Runs one configuration on ND4J and on the oracle and compares output and weights. */
    private static void check(DType dtype, AttentionOptions options, boolean[] expandedMask, String what) {
        check(dtype, options, expandedMask, what, Nd4jAttention.LOGITS_PER_BLOCK);
    }

    /** As above, with at most {@code logitsPerBlock} logits per block of query rows. */
    private static void check(DType dtype, AttentionOptions options, boolean[] expandedMask, String what,
                              long logitsPerBlock) {
        double[] q = data(21, B * H * LQ * DK, dtype);
        double[] k = data(22, B * H * LK * DK, dtype);
        double[] v = data(23, B * H * LK * DV, dtype);
        double scale = options.scaleFor(DK);
        double[][] expected = Oracle.attention(q, k, v, B * H, LQ, LK, DK, DV, scale, expandedMask,
                options.causal(), options.dropoutP(), options.dropoutSeed());
        try (Scope scope = BACKEND.newScope()) {
            Tensor qt = scope.tensor(q, Shape.of(B, H, LQ, DK), dtype);
            Tensor kt = scope.tensor(k, Shape.of(B, H, LK, DK), dtype);
            Tensor vt = scope.tensor(v, Shape.of(B, H, LK, DV), dtype);
            Ops ops = scope.ops();
            AttentionResult r = ops.attention(qt, kt, vt, options.withWeights(true));
            assertEquals(Shape.of(B, H, LQ, DV), r.output().shape(), what);
            assertEquals(Shape.of(B, H, LQ, LK), r.weights().shape(), what);
            assertClose(what + " output", expected[0], r.output().toDoubleArray(), tolerance(dtype));
            assertClose(what + " weights", expected[1], r.weights().toDoubleArray(), tolerance(dtype));
            Tensor am = options.additiveMask();
            AttentionResult blocked = Nd4jAttention.compute((Nd4jScope) scope, ((Nd4jTensor) qt).array(what),
                    ((Nd4jTensor) kt).array(what), ((Nd4jTensor) vt).array(what),
                    am == null ? null : ((Nd4jTensor) am).array(what), qt, kt, vt, options, logitsPerBlock);
            assertEquals(Shape.of(B, H, LQ, DV), blocked.output().shape(), what);
            assertClose(what + " output in blocks", expected[0], blocked.output().toDoubleArray(), tolerance(dtype));
        }
    }

    /** Key padding [B,1,1,LK] expanded to [B,H,LQ,LK]. */
    private static boolean[] expandPadding(int[] lengths) {
        boolean[] out = new boolean[B * H * LQ * LK];
        for (int i = 0; i < out.length; i++) {
            int b = i / (H * LQ * LK);
            out[i] = i % LK < lengths[b];
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void plainCrossAttentionWithDifferentKeyAndValueDimsMatchesOracle(DType dtype) {
        check(dtype, AttentionOptions.defaults(), null, "plain");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void causalAttentionIsTopLeftAligned(DType dtype) {
        check(dtype, AttentionOptions.defaults().withCausal(true), null, "causal");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void explicitScaleOfOneIsHonoured(DType dtype) {
        check(dtype, AttentionOptions.defaults().withScale(1.0), null, "scale 1");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void booleanKeyPaddingMaskWithCausalAndDropoutMatchesOracle(DType dtype) {
        int[] lengths = {3, 7};
        check(dtype, AttentionOptions.defaults().withMask(Mask.keyPadding(lengths, LK)).withCausal(true)
                .withDropout(0.25, 99), expandPadding(lengths), "padding+causal+dropout");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void additiveMaskIsAddedToTheScaledLogits(DType dtype) {
        int[] lengths = {2, 5};
        boolean[] allowed = Mask.keyPadding(lengths, LK).toArray();
        double[] additive = new double[B * LK];
        for (int i = 0; i < additive.length; i++) {
            additive[i] = allowed[i] ? 0 : Double.NEGATIVE_INFINITY;
        }
        try (Scope masks = BACKEND.newScope()) {
            Tensor am = masks.tensor(additive, Shape.of(B, 1, 1, LK), dtype);
            check(dtype, AttentionOptions.defaults().withAdditiveMask(am), expandPadding(lengths), "additive");
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void blocksOfQueryRowsSliceEveryMaskAndKeepTheDropoutIndex(DType dtype) {
        long twoRows = 2L * B * H * LK;
        int[] lengths = {4, 6};
        boolean[] rowMask = new boolean[B * LQ * LK];
        boolean[] expanded = new boolean[B * H * LQ * LK];
        for (int i = 0; i < rowMask.length; i++) {
            rowMask[i] = (i * 7 + i / LK) % 5 != 0;
        }
        for (int i = 0; i < expanded.length; i++) {
            int b = i / (H * LQ * LK);
            int rowCol = i % (LQ * LK);
            expanded[i] = rowMask[b * LQ * LK + rowCol] && rowCol % LK < lengths[b];
        }
        double[] additive = new double[B * LK];
        boolean[] padding = Mask.keyPadding(lengths, LK).toArray();
        for (int i = 0; i < additive.length; i++) {
            additive[i] = padding[i] ? 0 : Double.NEGATIVE_INFINITY;
        }
        try (Scope masks = BACKEND.newScope()) {
            Tensor am = masks.tensor(additive, Shape.of(B, 1, 1, LK), dtype);
            AttentionOptions options = AttentionOptions.defaults().withCausal(true).withDropout(0.2, 17)
                    .withMask(Mask.of(Shape.of(B, 1, LQ, LK), rowMask)).withAdditiveMask(am);
            check(dtype, options, expanded, "blocks of two rows", twoRows);
            check(dtype, options, expanded, "blocks of one row", 1);
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void weightsAreReturnedOnlyWhenAsked(DType dtype) {
        try (Scope scope = BACKEND.newScope()) {
            Tensor x = scope.tensor(data(4, 2 * 3 * 4, dtype), Shape.of(2, 3, 4), dtype);
            AttentionResult r = scope.ops().attention(x, x, x, AttentionOptions.defaults());
            assertNull(r.weights());
            assertEquals(Shape.of(2, 3, 4), r.output().shape());
            assertEquals(2, ((Nd4jScope) scope).ownedCount(), "the input and the output only");
        }
    }
}
