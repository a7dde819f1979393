package org.attn4j.backend.ejml;

import static org.attn4j.backend.ejml.Oracle.assertClose;
import static org.attn4j.backend.ejml.Oracle.ravelBroadcast;
import static org.attn4j.backend.ejml.Oracle.size;
import static org.attn4j.backend.ejml.Oracle.tensor;
import static org.attn4j.backend.ejml.Oracle.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.backend.ejml.Oracle.Tolerance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class AttentionTest extends ScopedTest {

    /** One attention problem: dims and options described by plain values so the oracle can read them. */
    record Case(int batch, int heads, int lq, int lk, int dk, int dv, boolean causal, boolean mask,
                boolean additive, Double scale, double dropout) {
        @Override
        public String toString() {
            return "B" + batch + " H" + heads + " Lq" + lq + " Lk" + lk + " dk" + dk + " dv" + dv
                    + (causal ? " causal" : "") + (mask ? " mask" : "") + (additive ? " additive" : "")
                    + (scale != null ? " scale" + scale : "") + (dropout > 0 ? " dropout" + dropout : "");
        }
    }

    /** The oracle: the formula of SEMANTICS.md, one row at a time in double precision. */
    static double[][] oracle(Case c, double[] q, double[] k, double[] v, boolean[] mask, int[] maskDims,
                             double[] add, int[] addDims, long seed) {
        int problems = c.batch() * c.heads();
        double scale = c.scale() != null ? c.scale() : 1 / Math.sqrt(c.dk());
        double[] out = new double[problems * c.lq() * c.dv()];
        double[] weights = new double[problems * c.lq() * c.lk()];
        for (int p = 0; p < problems; p++) {
            for (int i = 0; i < c.lq(); i++) {
                double[] logits = new double[c.lk()];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < c.lk(); j++) {
                    int[] idx = {p / c.heads(), p % c.heads(), i, j};
                    double s = 0;
                    for (int d = 0; d < c.dk(); d++) {
                        s += q[(p * c.lq() + i) * c.dk() + d] * k[(p * c.lk() + j) * c.dk() + d];
                    }
                    s *= scale;
                    if (add != null) {
                        s += add[ravelBroadcast(idx, addDims)];
                    }
                    if ((mask != null && !mask[ravelBroadcast(idx, maskDims)]) || (c.causal() && j > i)) {
                        s = Double.NEGATIVE_INFINITY;
                    }
                    logits[j] = s;
                    max = Math.max(max, s);
                }
                double sum = 0;
                for (int j = 0; j < c.lk(); j++) {
                    logits[j] = max == Double.NEGATIVE_INFINITY ? 0 : Math.exp(logits[j] - max);
                    sum += logits[j];
                }
                for (int j = 0; j < c.lk(); j++) {
                    long flat = ((long) p * c.lq() + i) * c.lk() + j;
                    double w = sum == 0 ? 0 : logits[j] / sum;
                    if (c.dropout() > 0) {
                        w = kept(seed, flat, c.dropout()) ? w / (1 - c.dropout()) : 0;
                    }
                    weights[(int) flat] = w;
                    for (int d = 0; d < c.dv(); d++) {
                        out[(p * c.lq() + i) * c.dv() + d] += w * v[(p * c.lk() + j) * c.dv() + d];
                    }
                }
            }
        }
        return new double[][] {out, weights};
    }

    /** SplitMix64's finaliser written out again, independently of {@code Dropout}. */
    static boolean kept(long seed, long i, double p) {
        long z = seed + (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53 >= p;
    }

    static Stream<Arguments> cases() {
        List<Case> list = new ArrayList<>();
        int[][] dims = {
            {1, 1, 1, 1, 1, 1}, {2, 3, 7, 7, 8, 8}, {1, 2, 7, 13, 5, 3}, {2, 1, 63, 63, 16, 16},
            {1, 2, 129, 65, 32, 24}, {1, 1, 33, 129, 7, 9}, {2, 2, 64, 64, 64, 64}, {1, 1, 200, 300, 16, 8}, {1, 1, 130, 67, 7, 5},
            {1, 4, 1, 1000, 64, 64}, {2, 3, 3, 517, 16, 24}, {1, 1, 8, 256, 5, 7}, {1, 2, 1, 4099, 128, 128},
        };
        for (int[] d : dims) {
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], false, false, false, null, 0));
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], true, false, false, null, 0));
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], false, true, false, null, 0));
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], true, true, true, 1.0, 0));
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], false, false, true, 0.3, 0.2));
            list.add(new Case(d[0], d[1], d[2], d[3], d[4], d[5], true, true, false, null, 0.5));
        }
        List<Arguments> args = new ArrayList<>();
        for (DType dtype : DType.values()) {
            for (Case c : list) {
                args.add(Arguments.of(dtype, c));
            }
        }
        return args.stream();
    }

    private record Inputs(Tensor q, Tensor k, Tensor v, AttentionOptions options, double[][] expected) {
    }

    private Inputs inputs(DType dtype, Case c, boolean returnWeights) {
        double[] q = values(dtype, c.batch() * c.heads() * c.lq() * c.dk(), random);
        double[] k = values(dtype, c.batch() * c.heads() * c.lk() * c.dk(), random);
        double[] v = values(dtype, c.batch() * c.heads() * c.lk() * c.dv(), random);
        AttentionOptions o = AttentionOptions.defaults().withCausal(c.causal()).withWeights(returnWeights);
        boolean[] mask = null;
        int[] maskDims = {c.batch(), 1, c.lq(), c.lk()};
        if (c.mask()) {
            mask = new boolean[(int) size(maskDims)];
            for (int i = 0; i < mask.length; i++) {
                mask[i] = random.nextDouble() < 0.7;
            }
            o = o.withMask(Mask.of(Shape.of(maskDims), mask));
        }
        double[] add = null;
        int[] addDims = {c.heads(), 1, c.lk()};
        if (c.additive()) {
            add = values(dtype, (int) size(addDims), random);
            o = o.withAdditiveMask(tensor(scope, dtype, add, addDims));
        }
        if (c.scale() != null) {
            o = o.withScale(c.scale());
        }
        long seed = 1234;
        if (c.dropout() > 0) {
            o = o.withDropout(c.dropout(), seed);
        }
        double[][] expected = oracle(c, q, k, v, mask, maskDims, add, addDims, seed);
        return new Inputs(tensor(scope, dtype, q, c.batch(), c.heads(), c.lq(), c.dk()),
                tensor(scope, dtype, k, c.batch(), c.heads(), c.lk(), c.dk()),
                tensor(scope, dtype, v, c.batch(), c.heads(), c.lk(), c.dv()), o, expected);
    }

    private static Tolerance attentionTolerance(DType dtype) {
        return dtype == DType.F32 ? new Tolerance(1e-5, 1e-4) : new Tolerance(1e-12, 1e-10);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void attentionMatchesTheOracle(DType dtype, Case c) {
        Inputs in = inputs(dtype, c, false);
        AttentionResult r = ops.attention(in.q(), in.k(), in.v(), in.options());
        assertEquals(Shape.of(c.batch(), c.heads(), c.lq(), c.dv()), r.output().shape());
        assertNull(r.weights());
        assertClose("attention output " + c, in.expected()[0], r.output(), attentionTolerance(dtype));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void attentionMatchesReferenceAttentionAndReturnsWeights(DType dtype, Case c) {
        Inputs in = inputs(dtype, c, true);
        AttentionResult fused = ops.attention(in.q(), in.k(), in.v(), in.options().withWeights(false));
        AttentionResult reference = ReferenceAttention.compute(ops, in.q(), in.k(), in.v(), in.options());
        assertClose("attention vs reference " + c, reference.output().toDoubleArray(), fused.output(),
                attentionTolerance(dtype));
        AttentionResult withWeights = ops.attention(in.q(), in.k(), in.v(), in.options());
        assertClose("attention weights " + c, in.expected()[1], withWeights.weights(), attentionTolerance(dtype));
        assertClose("attention output with weights " + c, in.expected()[0], withWeights.output(),
                attentionTolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void rowMaskedByAnAdditiveMaskOfMinusInfinityGivesZeros(DType dtype) {
        Case c = new Case(1, 1, 130, 70, 4, 3, false, false, false, null, 0);
        Inputs in = inputs(dtype, c, false);
        double[] add = new double[130];
        add[129] = Double.NEGATIVE_INFINITY;
        add[5] = Double.NEGATIVE_INFINITY;
        Tensor mask = tensor(scope, dtype, add, 130, 1);
        double[] out = ops.attention(in.q(), in.k(), in.v(), in.options().withAdditiveMask(mask)).output()
                .toDoubleArray();
        assertClose("row 5", new double[3], Arrays.copyOfRange(out, 5 * 3, 6 * 3), new Tolerance(0, 0));
        assertClose("row 129", new double[3], Arrays.copyOfRange(out, 129 * 3, 130 * 3), new Tolerance(0, 0));
        assertClose("other rows", Arrays.copyOfRange(in.expected()[0], 0, 15), Arrays.copyOfRange(out, 0, 15),
                attentionTolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void rowsWhoseFirstKeyBlocksAreMaskedStillNormalise(DType dtype) {
        Case c = new Case(1, 1, 70, 300, 8, 8, false, false, false, null, 0);
        Inputs in = inputs(dtype, c, false);
        boolean[] allowed = new boolean[300];
        for (int j = 0; j < 300; j++) {
            allowed[j] = j >= 260 || j == 140;
        }
        Mask late = Mask.of(Shape.of(300), allowed);
        AttentionOptions options = in.options().withMask(late);
        assertClose("late keys only", ReferenceAttention.compute(ops, in.q(), in.k(), in.v(), options).output()
                .toDoubleArray(), ops.attention(in.q(), in.k(), in.v(), options).output(), attentionTolerance(dtype));
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void decodingRowsWithOnlyLateKeysOrNoKeysMatchReferenceAttention(DType dtype) {
        Case c = new Case(1, 2, 2, 3000, 16, 8, false, false, false, null, 0);
        Inputs in = inputs(dtype, c, false);
        boolean[] allowed = new boolean[2 * 3000];
        for (int j = 0; j < 3000; j++) {
            allowed[j] = j >= 2990 || j == 1500;
        }
        Mask late = Mask.of(Shape.of(2, 3000), allowed);
        AttentionOptions options = in.options().withMask(late);
        double[] out = ops.attention(in.q(), in.k(), in.v(), options).output().toDoubleArray();
        assertClose("late keys only", ReferenceAttention.compute(ops, in.q(), in.k(), in.v(), options).output()
                .toDoubleArray(), out, attentionTolerance(dtype));
        assertClose("row without keys", new double[8], Arrays.copyOfRange(out, 8, 16), new Tolerance(0, 0));
    }
}
