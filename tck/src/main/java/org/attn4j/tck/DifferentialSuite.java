package org.attn4j.tck;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.models.parameters.HostTensor;

/**
 * Agreement on seeded random inputs of many shapes, where no golden number exists: the backend under test against
 * every available peer backend (same dtype), against the kit's {@link HostReference} in F64 (so that a backend alone
 * on its class path, even one without F64, is compared with something), its F32 against its own F64, and its
 * {@code ops.attention} (fused, if it declares so) against {@link ReferenceAttention} composed from its own
 * primitives. Which pairs actually ran is for the report to say, from the results.
 */
final class DifferentialSuite {
    /** {@code [B, H, Lq, Lk, d_k, d_v]} of the attention problems. */
    private static final int[][] ATTENTION_SHAPES = {
        {1, 1, 1, 1, 1, 1}, {1, 1, 5, 5, 8, 8}, {2, 3, 17, 17, 16, 16}, {1, 2, 31, 65, 32, 24},
        {2, 1, 64, 64, 64, 64}, {1, 1, 130, 70, 8, 12}, {1, 4, 1, 129, 16, 16}, {3, 2, 33, 33, 4, 4},
    };
    private static final String[] ATTENTION_VARIANTS = {"plain", "causal", "key_padding", "additive",
        "scale1_causal_weights", "dropout"};

    private DifferentialSuite() {
    }

    /**
     * A computation on seeded inputs.
     *
     * @param id names it in the case's id
     * @param op the op it checks
     * @param needs the optional features it needs
     * @param detail its operands' shapes and the op's flags, for a failure message
     * @param program what it computes
     */
    private record Computation(String id, String op, Set<Feature> needs, String detail, Program program) {
    }

    /** What a computation does with a scope; {@code reference} asks attention of {@link ReferenceAttention}. */
    private interface Program {
        List<HostTensor> run(Run run, boolean reference);
    }

    /**
     * @param peer a peer's name
     * @return how the note about that peer starts when it is unavailable here
     */
    static String unavailablePeer(String peer) {
        return "differential: peer " + peer + " is unavailable here";
    }

    static List<TckCase> plan(BackendUnderTest underTest, PeerBackends peers, ToleranceTable tolerances, long seed,
                              List<String> notes) {
        List<Computation> computations = computations(seed);
        List<TckCase> cases = new ArrayList<>();
        boolean anyPeer = false;
        for (BackendUnderTest peer : peers.backends()) {
            if (peer.name().equals(underTest.name())) {
                continue;
            }
            if (!peer.availability().available()) {
                notes.add(unavailablePeer(peer.name()) + " (" + peer.availability().reason()
                        + "), so " + underTest.name() + " is not compared with it");
                continue;
            }
            for (DType dtype : DType.values()) {
                if (!peer.capabilities().supports(dtype)) {
                    notes.add("differential: peer " + peer.name() + " declares no " + dtype + "; no " + dtype
                            + " comparison with it");
                    continue;
                }
                anyPeer = true;
                cases.addAll(withPeer(underTest, peer, dtype, computations, tolerances, notes));
            }
        }
        if (!anyPeer) {
            notes.add("differential: no other available backend on the class path, so " + underTest.name()
                    + " is compared with the kit's host reference and with itself");
        }
        Map<String, List<HostTensor>> referenceResults = new ConcurrentHashMap<>();
        for (DType dtype : DType.values()) {
            for (Computation c : computations) {
                cases.add(new TckCase("diff_" + c.id(), Kind.DIFFERENTIAL, c.op(), dtype,
                        dtype + "~" + HostReference.NAME, c.needs(),
                        backend -> compareWithReference(c, backend, dtype, tolerances, referenceResults),
                        c::detail));
            }
        }
        for (Computation c : computations) {
            EnumSet<Feature> needs = EnumSet.of(Feature.OPTIONAL_F64);
            needs.addAll(c.needs());
            cases.add(new TckCase("diff_" + c.id(), Kind.DIFFERENTIAL, c.op(), DType.F32, "F32~F64", needs,
                    backend -> compare(c, backend, false, backend, false, DType.F32, DType.F64, tolerances, 1,
                            "the F64 result is the reference"), c::detail));
        }
        for (DType dtype : DType.values()) {
            for (Computation c : computations) {
                if (!c.op().equals("attention")) {
                    continue;
                }
                EnumSet<Feature> needs = EnumSet.of(Feature.OPTIONAL_FUSED_ATTENTION);
                needs.addAll(c.needs());
                cases.add(new TckCase("diff_" + c.id(), Kind.DIFFERENTIAL, c.op(), dtype, dtype + " fused~reference",
                        needs, backend -> compare(c, backend, false, backend, true, dtype, dtype, tolerances, 2,
                                "the fused kernel and the composition may each err by the golden tolerance"),
                        c::detail));
            }
        }
        return cases;
    }

    /**
     * The backend's result in {@code dtype} against the kit's {@link HostReference} in F64, computed once per
     * computation and shared by both dtypes.
     */
    private static Measurement compareWithReference(Computation c, Backend backend, DType dtype,
                                                    ToleranceTable tolerances, Map<String, List<HostTensor>> cache) {
        List<HostTensor> expected = cache.computeIfAbsent(c.id(), id -> {
            try (Scope s = HostReference.instance().newScope()) {
                return c.program().run(new Run(s, DType.F64), false);
            }
        });
        Tolerance base = tolerances.lookup(c.op(), c.id(), dtype);
        Tolerance tolerance = dtype == DType.F64 ? base.times(2, "the host reference errs by as much as any F64"
                + " implementation, in its own order of operations") : base;
        try (Scope a = backend.newScope()) {
            List<HostTensor> actual = c.program().run(new Run(a, dtype), false);
            String what = c.op() + " case diff_" + c.id() + " [" + dtype + " " + backend.name() + " vs F64 "
                    + HostReference.NAME + "]";
            Measurement m = Measurement.EXACT;
            for (int i = 0; i < expected.size(); i++) {
                m = m.and(Comparison.compare(what + ", output " + i, expected.get(i), actual.get(i), dtype,
                        tolerance));
            }
            return m;
        }
    }

    private static List<TckCase> withPeer(BackendUnderTest underTest, BackendUnderTest peer, DType dtype,
                                          List<Computation> computations, ToleranceTable tolerances,
                                          List<String> notes) {
        List<TckCase> cases = new ArrayList<>();
        Map<String, Integer> peerLacks = new LinkedHashMap<>();
        for (Computation c : computations) {
            Optional<String> lack = c.needs().stream().map(f -> f.lackedBy(peer.capabilities()))
                    .flatMap(Optional::stream).findFirst();
            if (lack.isPresent()) {
                peerLacks.merge(lack.get().replace("the backend", peer.name()), 1, Integer::sum);
                continue;
            }
            cases.add(new TckCase("diff_" + c.id(), Kind.DIFFERENTIAL, c.op(), dtype,
                    dtype + " " + underTest.name() + "~" + peer.name(), c.needs(),
                    backend -> compare(c, backend, false, peer.backend(), false, dtype, dtype, tolerances, 2,
                            "each backend may err by the golden tolerance, in opposite directions"), c::detail));
        }
        peerLacks.forEach((reason, n) -> notes.add("differential: " + n + " " + dtype
                + " computations are not compared with peer " + peer.name() + ": " + reason));
        return cases;
    }

    private static Measurement compare(Computation c, Backend actualBackend, boolean actualReference,
                                       Backend expectedBackend, boolean expectedReference, DType actualDType,
                                       DType expectedDType, ToleranceTable tolerances, double factor, String why) {
        Tolerance base = tolerances.lookup(c.op(), c.id(), actualDType);
        Tolerance tolerance = factor == 1 ? base : base.times(factor, why);
        try (Scope a = actualBackend.newScope(); Scope e = expectedBackend.newScope()) {
            List<HostTensor> actual = c.program().run(new Run(a, actualDType), actualReference);
            List<HostTensor> expected = c.program().run(new Run(e, expectedDType), expectedReference);
            String what = c.op() + " case diff_" + c.id() + " [" + actualDType + " " + actualBackend.name()
                    + (actualReference ? " reference" : "") + " vs " + expectedDType + " " + expectedBackend.name()
                    + (expectedReference ? " reference" : "") + "]";
            Measurement m = Measurement.EXACT;
            for (int i = 0; i < expected.size(); i++) {
                m = m.and(Comparison.compare(what + ", output " + i, expected.get(i), actual.get(i), actualDType,
                        tolerance));
            }
            return m;
        }
    }

    private static List<Computation> computations(long seed) {
        List<Computation> out = new ArrayList<>();
        for (int[] s : ATTENTION_SHAPES) {
            for (String variant : ATTENTION_VARIANTS) {
                out.add(attention(variant, s, seed));
            }
        }
        out.add(matmul(new int[] {3, 17, 33}, new int[] {3, 33, 9}, false, false, seed));
        out.add(matmul(new int[] {2, 1, 40, 7}, new int[] {3, 12, 40}, true, true, seed));
        out.add(matmul(new int[] {130, 65}, new int[] {65, 129}, false, false, seed));
        out.add(matmul(new int[] {4, 64, 31}, new int[] {4, 64, 31}, false, true, seed));
        out.add(unary("softmax", "softmax_4x9x65_axm1", seed, new int[] {4, 9, 65},
                (r, x) -> r.ops().softmax(x, -1)));
        out.add(unary("softmax", "softmax_6x33x5_ax1", seed, new int[] {6, 33, 5}, (r, x) -> r.ops().softmax(x, 1)));
        out.add(unary("gelu", "gelu_none_7x61", seed, new int[] {7, 61},
                (r, x) -> r.ops().gelu(x, GeluApproximation.NONE)));
        out.add(unary("gelu", "gelu_tanh_7x61", seed, new int[] {7, 61},
                (r, x) -> r.ops().gelu(x, GeluApproximation.TANH)));
        out.add(unary("exp", "exp_5x50", seed, new int[] {5, 50}, (r, x) -> r.ops().exp(x)));
        out.add(unary("sum", "sum_6x50x3_ax1", seed, new int[] {6, 50, 3}, (r, x) -> r.ops().sum(x, 1, false)));
        out.add(unary("variance", "variance_6x50x3_ax1", seed, new int[] {6, 50, 3},
                (r, x) -> r.ops().variance(x, 1, true)));
        out.add(layerNorm(seed));
        out.add(linear(seed));
        return out;
    }

    private static String dims(int... d) {
        StringBuilder b = new StringBuilder();
        for (int x : d) {
            b.append(b.length() == 0 ? "" : "x").append(x);
        }
        return b.toString();
    }

    private static Computation attention(String variant, int[] s, long seed) {
        String id = "attention_" + variant + "_" + dims(s);
        Random random = HostArrays.random(id, seed);
        int b = s[0];
        int h = s[1];
        int lq = s[2];
        int lk = s[3];
        HostTensor q = HostArrays.randn(random, 1.0, b, h, lq, s[4]);
        HostTensor k = HostArrays.randn(random, 1.0, b, h, lk, s[4]);
        HostTensor v = HostArrays.randn(random, 1.0, b, h, lk, s[5]);
        int[] valid = new int[b];
        for (int i = 0; i < b; i++) {
            valid[i] = 1 + random.nextInt(lk);
        }
        HostTensor additive = HostArrays.randn(random, 2.0, lq, lk);
        long dropoutSeed = random.nextLong();
        boolean weights = variant.equals("scale1_causal_weights");
        Set<Feature> needs = variant.equals("dropout") ? Set.of(Feature.OPTIONAL_DROPOUT)
                : weights ? Set.of(Feature.OPTIONAL_RETURNED_WEIGHTS) : Set.of();
        String options = switch (variant) {
            case "causal" -> "causal";
            case "key_padding" -> "boolean key-padding mask, valid lengths " + java.util.Arrays.toString(valid);
            case "additive" -> "additive mask [" + lq + ", " + lk + "] ~ N(0, 4)";
            case "scale1_causal_weights" -> "scale 1.0, causal, weights returned";
            case "dropout" -> "dropout p 0.2 with seed " + dropoutSeed + ", causal";
            default -> "no mask, default scale 1/sqrt(d_k)";
        };
        String detail = "q " + Shape.of(b, h, lq, s[4]) + ", k " + Shape.of(b, h, lk, s[4]) + ", v "
                + Shape.of(b, h, lk, s[5]) + " ~ N(0, 1); " + options;
        return new Computation(id, "attention", needs, detail, (run, reference) -> {
            AttentionOptions o = AttentionOptions.defaults();
            o = switch (variant) {
                case "causal" -> o.withCausal(true);
                case "key_padding" -> o.withMask(Mask.keyPadding(valid, lk));
                case "additive" -> o.withAdditiveMask(run.in(additive));
                case "scale1_causal_weights" -> o.withScale(1.0).withCausal(true).withWeights(true);
                case "dropout" -> o.withDropout(0.2, dropoutSeed).withCausal(true);
                default -> o;
            };
            Tensor tq = run.in(q);
            Tensor tk = run.in(k);
            Tensor tv = run.in(v);
            AttentionResult r = reference ? ReferenceAttention.compute(run.ops(), tq, tk, tv, o)
                    : run.ops().attention(tq, tk, tv, o);
            return weights ? List.of(HostTensor.copyOf(r.output()), HostTensor.copyOf(r.weights()))
                    : List.of(HostTensor.copyOf(r.output()));
        });
    }

    private static Computation matmul(int[] a, int[] b, boolean ta, boolean tb, long seed) {
        String id = "matmul_" + dims(a) + "_" + dims(b) + (ta ? "_T" : "_N") + (tb ? "T" : "N");
        Random random = HostArrays.random(id, seed);
        HostTensor x = HostArrays.randn(random, 1.0, a);
        HostTensor y = HostArrays.randn(random, 1.0, b);
        return new Computation(id, "matmul", Set.of(), "a " + Shape.of(a) + ", b " + Shape.of(b)
                + " ~ N(0, 1); transposeA " + ta + ", transposeB " + tb,
                (run, reference) -> List.of(HostTensor.copyOf(run.ops().matmul(run.in(x), run.in(y), ta, tb))));
    }

    /** One op applied to one tensor. */
    private interface Unary {
        Tensor apply(Run run, Tensor x);
    }

    private static Computation unary(String op, String id, long seed, int[] shape, Unary f) {
        HostTensor x = HostArrays.randn(HostArrays.random(id, seed), 2.0, shape);
        return new Computation(id, op, Set.of(), "x " + Shape.of(shape) + " ~ N(0, 4)",
                (run, reference) -> List.of(HostTensor.copyOf(f.apply(run,
                run.in(x)))));
    }

    private static Computation layerNorm(long seed) {
        String id = "layerNorm_5x33x96";
        Random random = HostArrays.random(id, seed);
        HostTensor x = HostArrays.randn(random, 1.5, 5, 33, 96);
        HostTensor gamma = HostArrays.randn(random, 1.0, 96);
        HostTensor beta = HostArrays.randn(random, 1.0, 96);
        return new Computation(id, "layerNorm", Set.of(), "x [5, 33, 96] ~ N(0, 2.25), gamma [96], beta [96]"
                + " ~ N(0, 1); eps 1e-5", (run, reference) -> List.of(HostTensor.copyOf(
                run.ops().layerNorm(run.in(x), run.in(gamma), run.in(beta), 1e-5))));
    }

    private static Computation linear(long seed) {
        String id = "linear_2x7x31_19";
        Random random = HostArrays.random(id, seed);
        HostTensor x = HostArrays.randn(random, 1.0, 2, 7, 31);
        HostTensor w = HostArrays.randn(random, 1.0, 19, 31);
        HostTensor bias = HostArrays.randn(random, 1.0, 19);
        return new Computation(id, "linear", Set.of(), "x [2, 7, 31], weight [19, 31], bias [19] ~ N(0, 1)",
                (run, reference) -> List.of(HostTensor.copyOf(
                run.ops().linear(run.in(x), run.in(w), run.in(bias)))));
    }
}
