package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.attn4j.backend.nd4j.Close.tolerance;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ShapeChecks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The tiled online softmax at the edges of its tiles, forced to small tiles by a small logits budget. */
class TiledAttentionTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final int B = 2;
    private static final int H = 2;
    private static final int DK = 5;
    private static final int DV = 3;

    private record Problem(int lq, int lk, double[] q, double[] k, double[] v) {
        static Problem of(int lq, int lk, DType dtype) {
            return new Problem(lq, lk, data(31, B * H * lq * DK, dtype), data(32, B * H * lk * DK, dtype),
                    data(33, B * H * lk * DV, dtype));
        }
    }

    private static double[] data(long seed, int n, DType dtype) {
        double[] d = Oracle.random(seed, n);
        for (int i = 0; dtype == DType.F32 && i < n; i++) {
            d[i] = (float) d[i];
        }
        return d;
    }

    /** Tiled output (tile set of at most {@code budget} logits) against the oracle. */
    private static void check(DType dtype, Problem p, AttentionOptions options, boolean[] allowed, long budget,
                              String what) {
        double[][] expected = Oracle.attention(p.q(), p.k(), p.v(), B * H, p.lq(), p.lk(), DK, DV,
                options.scaleFor(DK), allowed, options.causal(), options.dropoutP(), options.dropoutSeed());
        try (Scope scope = BACKEND.newScope()) {
            AttentionResult r = tiled(scope, dtype, p, options, budget);
            assertEquals(Shape.of(B, H, p.lq(), DV), r.output().shape(), what);
            assertClose(what, expected[0], r.output().toDoubleArray(), tolerance(dtype));
        }
    }

    private static AttentionResult tiled(Scope scope, DType dtype, Problem p, AttentionOptions options,
                                         long budget) {
        Tensor q = scope.tensor(p.q(), Shape.of(B, H, p.lq(), DK), dtype);
        Tensor k = scope.tensor(p.k(), Shape.of(B, H, p.lk(), DK), dtype);
        Tensor v = scope.tensor(p.v(), Shape.of(B, H, p.lk(), DV), dtype);
        Tensor am = options.additiveMask();
        return Nd4jAttention.compute((Nd4jScope) scope, array(q), array(k), array(v),
                am == null ? null : array(am), q, k, v, options, budget);
    }

    private static org.nd4j.linalg.api.ndarray.INDArray array(Tensor t) {
        return ((Nd4jTensor) t).array("test");
    }

    /** @return the budget that gives tiles of {@code bq × bk} logits per problem */
    private static long budget(int bq, int bk) {
        return (long) B * H * bq * bk;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void lengthsThatAreNoMultipleOfTheTileMatchTheOracle(DType dtype) {
        Problem p = Problem.of(37, 29, dtype);
        ShapeChecks.AttentionShape shape = new ShapeChecks.AttentionShape(Shape.of(B, H), 37, 29, DK, DV);
        TiledAttention.Tiles tiles = TiledAttention.Tiles.of(shape, budget(8, 8));
        assertNotEquals(0, 37 % tiles.queries(), "the last query block is partial");
        assertNotEquals(0, 29 % tiles.keys(), "the last key block is partial");
        check(dtype, p, AttentionOptions.defaults(), null, budget(8, 8), "37x29 in 8x8 tiles");
        check(dtype, p, AttentionOptions.defaults().withScale(1.0), null, budget(5, 3), "37x29 in small tiles");
        check(dtype, p, AttentionOptions.defaults(), null, 1, "37x29 in 1x1 tiles");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void causalWithMoreQueriesOrMoreKeysSkipsAndMasksTheRightTiles(DType dtype) {
        AttentionOptions causal = AttentionOptions.defaults().withCausal(true);
        check(dtype, Problem.of(13, 29, dtype), causal, null, budget(4, 8), "causal 13x29");
        check(dtype, Problem.of(29, 13, dtype), causal, null, budget(8, 4), "causal 29x13");
        check(dtype, Problem.of(29, 29, dtype), causal, null, budget(7, 7), "causal 29x29");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void keyTilesFullyMaskedByPaddingAndFullyMaskedRowsGiveTheOracle(DType dtype) {
        int lq = 11;
        int lk = 24;
        int[] lengths = {3, 24};
        boolean[] rows = new boolean[lq * lk];
        for (int i = lk; i < rows.length; i++) {
            rows[i] = true;
        }
        Mask padding = Mask.keyPadding(lengths, lk);
        boolean[] allowed = new boolean[B * H * lq * lk];
        for (int i = 0; i < allowed.length; i++) {
            int b = i / (H * lq * lk);
            allowed[i] = i % lk < lengths[b] && rows[i % (lq * lk)];
        }
        double[] additive = new double[lq * lk];
        for (int i = 0; i < additive.length; i++) {
            additive[i] = rows[i] ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        Problem p = Problem.of(lq, lk, dtype);
        try (Scope masks = BACKEND.newScope()) {
            AttentionOptions options = AttentionOptions.defaults().withMask(padding)
                    .withAdditiveMask(masks.tensor(additive, Shape.of(lq, lk), dtype));
            check(dtype, p, options, allowed, budget(4, 8), "padding + additive, 4x8 tiles");
            check(dtype, p, options.withCausal(true), causalToo(allowed, lq, lk), budget(4, 8),
                    "padding + additive + causal, 4x8 tiles");
        }
    }

    private static boolean[] causalToo(boolean[] allowed, int lq, int lk) {
        boolean[] out = allowed.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] &= i % lk <= i / lk % lq;
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void dropoutAcrossTilesEqualsTheReferenceWithTheSameSeed(DType dtype) {
        Problem p = Problem.of(19, 23, dtype);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withDropout(0.3, 1234);
        try (Scope scope = BACKEND.newScope()) {
            AttentionResult tiled = tiled(scope, dtype, p, options, budget(6, 5));
            Tensor q = scope.tensor(p.q(), Shape.of(B, H, p.lq(), DK), dtype);
            Tensor k = scope.tensor(p.k(), Shape.of(B, H, p.lk(), DK), dtype);
            Tensor v = scope.tensor(p.v(), Shape.of(B, H, p.lk(), DV), dtype);
            AttentionResult reference = ReferenceAttention.compute(scope.ops(), q, k, v, options);
            assertClose("dropout in 6x5 tiles vs ReferenceAttention", reference.output().toDoubleArray(),
                    tiled.output().toDoubleArray(), tolerance(dtype));
        }
        check(dtype, p, options, null, budget(6, 5), "dropout in 6x5 tiles vs oracle");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void dropoutOfOneAcrossTilesGivesZeros(DType dtype) {
        Problem p = Problem.of(19, 23, dtype);
        check(dtype, p, AttentionOptions.defaults().withDropout(1.0, 7), null, budget(6, 5), "p = 1 in 6x5 tiles");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void aNaNQueryMakesOnlyItsOwnRowNaNAcrossTiles(DType dtype) {
        Problem p = Problem.of(19, 23, dtype);
        p.q()[(1 * 19 + 7) * DK + 2] = Double.NaN;
        double[] out;
        try (Scope scope = BACKEND.newScope()) {
            out = tiled(scope, dtype, p, AttentionOptions.defaults().withCausal(true), budget(6, 5))
                    .output().toDoubleArray();
        }
        for (int i = 0; i < out.length; i++) {
            boolean nanRow = i / DV == 1 * 19 + 7;
            assertEquals(nanRow, Double.isNaN(out[i]), "output index " + i + " is " + out[i]);
        }
        check(dtype, p, AttentionOptions.defaults().withCausal(true), null, budget(6, 5), "NaN query vs oracle");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void singleQueryOrSingleKeyMatchesTheOracle(DType dtype) {
        check(dtype, Problem.of(1, 1, dtype), AttentionOptions.defaults(), null, budget(4, 4), "L = 1");
        check(dtype, Problem.of(1, 1, dtype), AttentionOptions.defaults().withCausal(true), null, 1, "L = 1 causal");
        check(dtype, Problem.of(1, 17, dtype), AttentionOptions.defaults().withCausal(true), null, budget(1, 4),
                "one query, causal");
        check(dtype, Problem.of(17, 1, dtype), AttentionOptions.defaults(), null, budget(4, 1), "one key");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void inputsWithoutBatchDimsAreOneProblem(DType dtype) {
        int lq = 21;
        int lk = 18;
        double[] q = data(41, lq * DK, dtype);
        double[] k = data(42, lk * DK, dtype);
        double[] v = data(43, lk * DV, dtype);
        boolean[] allowed = new boolean[lq * lk];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = i % 3 != 1;
        }
        AttentionOptions options = AttentionOptions.defaults().withCausal(true)
                .withMask(Mask.of(Shape.of(lq, lk), allowed));
        double[][] expected = Oracle.attention(q, k, v, 1, lq, lk, DK, DV, options.scaleFor(DK), allowed, true, 0, 0);
        try (Scope scope = BACKEND.newScope()) {
            Tensor qt = scope.tensor(q, Shape.of(lq, DK), dtype);
            Tensor kt = scope.tensor(k, Shape.of(lk, DK), dtype);
            Tensor vt = scope.tensor(v, Shape.of(lk, DV), dtype);
            AttentionResult r = Nd4jAttention.compute((Nd4jScope) scope, array(qt), array(kt), array(vt), null,
                    qt, kt, vt, options, 5 * 4);
            assertEquals(Shape.of(lq, DV), r.output().shape());
            assertClose("rank 2 in 5x4 tiles", expected[0], r.output().toDoubleArray(), tolerance(dtype));
        }
    }

    @Test
    void concurrentTiledCallsGiveBitIdenticalResults() throws Exception {
        Problem p = Problem.of(41, 53, DType.F32);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withDropout(0.1, 3);
        double[] expected;
        try (Scope scope = BACKEND.newScope()) {
            expected = tiled(scope, DType.F32, p, options, budget(8, 16)).output().toDoubleArray();
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<double[]>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(pool.submit(() -> {
                    try (Scope scope = BACKEND.newScope()) {
                        return tiled(scope, DType.F32, p, options, budget(8, 16)).output().toDoubleArray();
                    }
                }));
            }
            for (int i = 0; i < results.size(); i++) {
                assertArrayEquals(expected, results.get(i).get(), "call " + i);
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void tilesStayWithinTheBudgetAndUseItWhenTheyCan() {
        ShapeChecks.AttentionShape shape = new ShapeChecks.AttentionShape(Shape.of(1, 12), 16384, 16384, 64, 64);
        TiledAttention.Tiles big = TiledAttention.Tiles.of(shape, Nd4jAttention.LOGITS_PER_BLOCK);
        assertEquals(new TiledAttention.Tiles(TiledAttention.MAX_BLOCK, TiledAttention.MAX_BLOCK), big);
        TiledAttention.Tiles small = TiledAttention.Tiles.of(shape, 12L * 100 * 100);
        assertTrue(12L * small.queries() * small.keys() <= 12L * 100 * 100, "within the budget: " + small);
        assertEquals(new TiledAttention.Tiles(1, 1), TiledAttention.Tiles.of(shape, 1));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void weightsOfAProblemTooLargeForTheHostLoopsComeFromTheNativePath(DType dtype) {
        int l = 130;
        Problem p = Problem.of(l, l, dtype);
        ShapeChecks.AttentionShape shape = new ShapeChecks.AttentionShape(Shape.of(B, H), l, l, DK, DV);
        assertFalse(HostAttention.suits(shape), "the problem is above the host loops' limit");
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withDropout(0.1, 5);
        double[][] expected = Oracle.attention(p.q(), p.k(), p.v(), B * H, l, l, DK, DV, options.scaleFor(DK),
                null, true, 0.1, 5);
        try (Scope scope = BACKEND.newScope()) {
            AttentionResult r = scope.ops().attention(scope.tensor(p.q(), Shape.of(B, H, l, DK), dtype),
                    scope.tensor(p.k(), Shape.of(B, H, l, DK), dtype),
                    scope.tensor(p.v(), Shape.of(B, H, l, DV), dtype), options.withWeights(true));
            assertClose("native output", expected[0], r.output().toDoubleArray(), tolerance(dtype));
            assertClose("native weights", expected[1], r.weights().toDoubleArray(), tolerance(dtype));
        }
    }
}
