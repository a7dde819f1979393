package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;

/**
 * Properties every correct attention has, checked on the backend alone with seeded random inputs: both sides of
 * each law come from the same backend and dtype, so they may differ by rounding only. The scope laws (copies in and
 * out, zeros, adoption) are exact.
 */
final class LawSuite {
    private static final int B = 2;
    private static final int H = 3;
    private static final int L = 24;
    private static final int D = 8;

    private LawSuite() {
    }

    static List<TckCase> plan(ToleranceTable tolerances, long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            add(cases, tolerances, dtype, "law_softmax_rows_sum_to_one", "softmax", Set.of(), seed,
                    LawSuite::softmaxRowsSumToOne);
            add(cases, tolerances, dtype, "law_softmax_shift_invariance", "softmax", Set.of(), seed,
                    LawSuite::softmaxShiftInvariance);
            add(cases, tolerances, dtype, "law_attention_weights_rows_sum_to_one", "attention",
                    Set.of(Feature.OPTIONAL_RETURNED_WEIGHTS), seed, LawSuite::weightsRowsSumToOne);
            add(cases, tolerances, dtype, "law_causal_prefix_invariance", "attention", Set.of(), seed,
                    LawSuite::causalPrefixInvariance);
            add(cases, tolerances, dtype, "law_key_value_permutation_invariance", "attention", Set.of(), seed,
                    LawSuite::keyPermutationInvariance);
            add(cases, tolerances, dtype, "law_query_permutation_equivariance", "attention", Set.of(), seed,
                    LawSuite::queryPermutationEquivariance);
            add(cases, tolerances, dtype, "law_all_true_mask_equals_no_mask", "attention", Set.of(), seed,
                    LawSuite::allTrueMaskEqualsNoMask);
            add(cases, tolerances, dtype, "law_zero_additive_mask_equals_no_mask", "attention", Set.of(), seed,
                    LawSuite::zeroAdditiveMaskEqualsNoMask);
            add(cases, tolerances, dtype, "law_causal_flag_equals_causal_mask", "attention", Set.of(), seed,
                    LawSuite::causalFlagEqualsCausalMask);
            add(cases, tolerances, dtype, "law_nan_in_a_query_stays_in_its_row", "attention", Set.of(), seed,
                    LawSuite::nanInAQueryStaysInItsRow);
            add(cases, tolerances, dtype, "law_nan_in_an_unmasked_key_reaches_every_row", "attention", Set.of(),
                    seed, LawSuite::nanInAnUnmaskedKeyReachesEveryRow);
            add(cases, tolerances, dtype, "law_threads_with_own_scopes_agree", "attention", Set.of(), seed,
                    LawSuite::threadsWithOwnScopesAgree);
            add(cases, tolerances, dtype, "law_decoding_with_a_cache_equals_one_causal_forward", "attention",
                    Set.of(), seed, (run, random) -> decodingEqualsCausalForward(run, random, L, 0, 4));
            add(cases, tolerances, dtype, "law_decoding_with_a_long_cache_equals_one_causal_forward", "attention",
                    Set.of(), seed, (run, random) -> decodingEqualsCausalForward(run, random, 300, 293, 2));
            add(cases, tolerances, dtype, "law_grouped_query_equals_repeated_kv_heads", "attention", Set.of(), seed,
                    LawSuite::groupedQueryEqualsRepeatedKeyValueHeads);
            add(cases, tolerances, dtype, "law_window_covering_every_key_equals_causal", "attention", Set.of(), seed,
                    LawSuite::wideWindowEqualsCausal);
            add(cases, tolerances, dtype, "law_copies_in_and_out_round_trip", "scope", Set.of(), seed,
                    LawSuite::copiesRoundTrip);
            add(cases, tolerances, dtype, "law_zeros_are_zero", "scope", Set.of(), seed, LawSuite::zerosAreZero);
            add(cases, tolerances, dtype, "law_adopted_tensor_outlives_its_first_scope", "scope", Set.of(), seed,
                    LawSuite::adoptedTensorOutlivesItsFirstScope);
        }
        return cases;
    }

    /** Both sides of a law, computed from a seeded source: what must hold, and what the backend gave. */
    private interface Sides {
        HostTensor[] compute(Run run, Random random);
    }

    /** Several laws' sides computed together from one seeded source, each pair compared in shape and values. */
    interface Pairs {
        List<HostTensor[]> compute(Run run, Random random);
    }

    private static void add(List<TckCase> cases, ToleranceTable tolerances, DType dtype, String id, String op,
                            Set<Feature> needs, long seed, Sides sides) {
        cases.add(lawCase(tolerances, dtype, id, op, needs, seed,
                (run, random) -> List.<HostTensor[]>of(sides.compute(run, random))));
    }

    /**
     * @return the case that computes {@code pairs} in a fresh scope with the seeded source of {@code id} and
     *     compares each pair under the law (or, for op {@code scope}, the exact) tolerance of {@code dtype}
     */
    static TckCase lawCase(ToleranceTable tolerances, DType dtype, String id, String op, Set<Feature> needs,
                           long seed, Pairs pairs) {
        return lawCase(tolerances.lookup(op.equals("scope") ? "scope" : "law", id, dtype), dtype, id, op, needs, seed,
                pairs);
    }

    /**
     * @return the case that computes {@code pairs} in a fresh scope with the seeded source of {@code id} and
     *     compares each pair under {@code tolerance}
     */
    static TckCase lawCase(Tolerance tolerance, DType dtype, String id, String op, Set<Feature> needs, long seed,
                           Pairs pairs) {
        return new TckCase(id, Kind.LAW, op, dtype, dtype.name(), needs, backend -> {
            try (Scope scope = backend.newScope()) {
                List<HostTensor[]> all = pairs.compute(new Run(scope, dtype), HostArrays.random(id, seed));
                String what = op + " " + id + " [" + dtype + "] on " + backend.name();
                Measurement m = Measurement.EXACT;
                for (int i = 0; i < all.size(); i++) {
                    m = m.and(Comparison.compare(all.size() == 1 ? what : what + ", pair " + i, all.get(i)[0],
                            all.get(i)[1], dtype, tolerance));
                }
                return m;
            }
        });
    }

    /**
     * Attention of {@code [B, H, n, D]} computed in one causal forward, and again as a decoder does: a prefill of
     * {@code prefill} tokens, then chunks of 1, 2, … up to {@code maxChunk} tokens, each written into a
     * preallocated cache ({@code writeSlice}) and attending to it bottom-right aligned over its filled length.
     */
    private static HostTensor[] decodingEqualsCausalForward(Run run, Random random, int n, int prefill,
                                                            int maxChunk) {
        int heads = 2;
        HostTensor q = HostArrays.randn(random, 1.0, B, heads, n, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, heads, n, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, heads, n, D);
        HostTensor full = run.attend(q, k, v, AttentionOptions.defaults().withCausal(true));
        Ops ops = run.ops();
        Tensor keys = run.scope().zeros(Shape.of(B, heads, n + 3, D), run.dtype());
        Tensor values = run.scope().zeros(Shape.of(B, heads, n + 3, D), run.dtype());
        List<HostTensor> outputs = new ArrayList<>();
        int chunk = 1;
        for (int start = 0; start < n; ) {
            int size = start == 0 && prefill > 0 ? prefill : Math.min(chunk, n - start);
            int[] rows = new int[size];
            for (int i = 0; i < size; i++) {
                rows[i] = start + i;
            }
            keys = ops.writeSlice(keys, run.in(HostArrays.take(k, 2, rows)), 2, start);
            values = ops.writeSlice(values, run.in(HostArrays.take(v, 2, rows)), 2, start);
            AttentionOptions step = AttentionOptions.defaults().withCausal(true)
                    .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(start + size);
            outputs.add(HostTensor.copyOf(ops.attention(run.in(HostArrays.take(q, 2, rows)), keys, values, step)
                    .output()));
            start += size;
            chunk = chunk % maxChunk + 1;
        }
        return new HostTensor[] {full, HostArrays.concat(outputs, 2)};
    }

    private static HostTensor[] groupedQueryEqualsRepeatedKeyValueHeads(Run run, Random random) {
        HostTensor q = HostArrays.randn(random, 1.0, B, 6, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, 2, L + 2, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, 2, L + 2, D + 1);
        int[] repeat = {0, 0, 0, 1, 1, 1};
        AttentionOptions causal = AttentionOptions.defaults().withCausal(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT);
        return new HostTensor[] {run.attend(q, HostArrays.take(k, 1, repeat), HostArrays.take(v, 1, repeat), causal),
            run.attend(q, k, v, causal)};
    }

    private static HostTensor[] wideWindowEqualsCausal(Run run, Random random) {
        Tensor[] qkv = qkv(run, random, L, L);
        AttentionOptions causal = AttentionOptions.defaults().withCausal(true);
        return new HostTensor[] {run.attend(qkv, causal), run.attend(qkv, causal.withWindow(L))};
    }

    private static HostTensor[] softmaxRowsSumToOne(Run run, Random random) {
        Ops ops = run.ops();
        Tensor x = run.in(HostArrays.randn(random, 3.0, 4, 7, 33));
        Tensor sums = ops.sum(ops.softmax(x, -1), -1, false);
        return new HostTensor[] {HostArrays.filled(1.0, sums.shape()), HostTensor.copyOf(sums)};
    }

    private static HostTensor[] softmaxShiftInvariance(Run run, Random random) {
        Ops ops = run.ops();
        Tensor x = run.in(HostArrays.randn(random, 3.0, 4, 7, 33));
        Tensor shift = run.in(HostArrays.filled(8.0, Shape.scalar()));
        return new HostTensor[] {HostTensor.copyOf(ops.softmax(x, -1)),
            HostTensor.copyOf(ops.softmax(ops.add(x, shift), -1))};
    }

    private static HostTensor[] weightsRowsSumToOne(Run run, Random random) {
        Ops ops = run.ops();
        Tensor[] qkv = qkv(run, random, L, L);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withWeights(true)
                .withMask(Mask.keyPadding(new int[] {L, L / 2}, L));
        Tensor sums = ops.sum(ops.attention(qkv[0], qkv[1], qkv[2], options).weights(), -1, false);
        return new HostTensor[] {HostArrays.filled(1.0, sums.shape()), HostTensor.copyOf(sums)};
    }

    private static HostTensor[] causalPrefixInvariance(Run run, Random random) {
        int prefix = L / 2 - 1;
        HostTensor q = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, H, L, D);
        AttentionOptions causal = AttentionOptions.defaults().withCausal(true);
        HostTensor full = run.attend(q, k, v, causal);
        int[] first = HostArrays.range(prefix);
        HostTensor cut = run.attend(HostArrays.take(q, 2, first), HostArrays.take(k, 2, first),
                HostArrays.take(v, 2, first), causal);
        return new HostTensor[] {HostArrays.take(full, 2, first), cut};
    }

    private static HostTensor[] keyPermutationInvariance(Run run, Random random) {
        HostTensor q = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, H, L + 5, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, H, L + 5, D + 3);
        int[] p = HostArrays.permutation(random, L + 5);
        AttentionOptions none = AttentionOptions.defaults();
        return new HostTensor[] {run.attend(q, k, v, none),
            run.attend(q, HostArrays.take(k, 2, p), HostArrays.take(v, 2, p), none)};
    }

    private static HostTensor[] queryPermutationEquivariance(Run run, Random random) {
        HostTensor q = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, H, L - 3, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, H, L - 3, D);
        int[] p = HostArrays.permutation(random, L);
        AttentionOptions none = AttentionOptions.defaults();
        return new HostTensor[] {HostArrays.take(run.attend(q, k, v, none), 2, p),
            run.attend(HostArrays.take(q, 2, p), k, v, none)};
    }

    private static HostTensor[] allTrueMaskEqualsNoMask(Run run, Random random) {
        Tensor[] qkv = qkv(run, random, L, L + 7);
        boolean[] all = new boolean[L * (L + 7)];
        Arrays.fill(all, true);
        AttentionOptions none = AttentionOptions.defaults();
        AttentionOptions masked = none.withMask(Mask.of(Shape.of(L, L + 7), all));
        return new HostTensor[] {run.attend(qkv, none), run.attend(qkv, masked)};
    }

    private static HostTensor[] zeroAdditiveMaskEqualsNoMask(Run run, Random random) {
        Tensor[] qkv = qkv(run, random, L, L);
        AttentionOptions none = AttentionOptions.defaults().withCausal(true);
        AttentionOptions zeros = none.withAdditiveMask(run.in(HostArrays.filled(0.0, Shape.of(B, 1, L, L))));
        return new HostTensor[] {run.attend(qkv, none), run.attend(qkv, zeros)};
    }

    private static HostTensor[] causalFlagEqualsCausalMask(Run run, Random random) {
        Tensor[] qkv = qkv(run, random, L - 5, L);
        AttentionOptions flag = AttentionOptions.defaults().withCausal(true);
        AttentionOptions mask = AttentionOptions.defaults().withMask(Mask.causal(L - 5, L));
        return new HostTensor[] {run.attend(qkv, flag), run.attend(qkv, mask)};
    }

    private static HostTensor[] nanInAQueryStaysInItsRow(Run run, Random random) {
        HostTensor q = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, H, L, D);
        int row = 1 + random.nextInt(L - 1);
        double[] poisoned = q.data();
        poisoned[row * D + random.nextInt(D)] = Double.NaN;
        double[] expected = run.attend(q, k, v, AttentionOptions.defaults()).data();
        Arrays.fill(expected, row * D, (row + 1) * D, Double.NaN);
        HostTensor actual = run.attend(new HostTensor(q.shape(), poisoned), k, v, AttentionOptions.defaults());
        return new HostTensor[] {new HostTensor(actual.shape(), expected), actual};
    }

    private static HostTensor[] nanInAnUnmaskedKeyReachesEveryRow(Run run, Random random) {
        HostTensor q = HostArrays.randn(random, 1.0, 1, 1, L, D);
        double[] k = HostArrays.randn(random, 1.0, 1, 1, L, D).data();
        HostTensor v = HostArrays.randn(random, 1.0, 1, 1, L, D);
        k[(1 + random.nextInt(L - 1)) * D + random.nextInt(D)] = Double.NaN;
        HostTensor actual = run.attend(q, new HostTensor(q.shape(), k), v, AttentionOptions.defaults());
        return new HostTensor[] {HostArrays.filled(Double.NaN, actual.shape()), actual};
    }

    private static HostTensor[] threadsWithOwnScopesAgree(Run run, Random random) {
        int threads = 4;
        HostTensor q = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor k = HostArrays.randn(random, 1.0, B, H, L, D);
        HostTensor v = HostArrays.randn(random, 1.0, B, H, L, D);
        AttentionOptions causal = AttentionOptions.defaults().withCausal(true);
        HostTensor serial = run.attend(q, k, v, causal);
        Backend backend = run.scope().backend();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<HostTensor>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    try (Scope own = backend.newScope()) {
                        return new Run(own, run.dtype()).attend(q, k, v, causal);
                    }
                }));
            }
            double[] expected = new double[0];
            double[] actual = new double[0];
            for (Future<HostTensor> f : futures) {
                expected = concat(expected, serial.data());
                actual = concat(actual, f.get().data());
            }
            Shape shape = Shape.of(threads, (int) serial.shape().size());
            return new HostTensor[] {new HostTensor(shape, expected), new HostTensor(shape, actual)};
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the attention threads", e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static HostTensor[] copiesRoundTrip(Run run, Random random) {
        double[] special = {0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 1e-40, 3e38,
            -1e-300, 1.0 + 0x1p-30};
        double[] data = HostArrays.randn(random, 100.0, 3, 7).data();
        System.arraycopy(special, 0, data, 0, special.length);
        Tensor t = run.in(new HostTensor(Shape.of(3, 7), data));
        float[] f = t.toFloatArray();
        double[] widened = new double[f.length];
        double[] narrowed = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            widened[i] = f[i];
            narrowed[i] = (float) data[i];
        }
        return new HostTensor[] {new HostTensor(Shape.of(2, 3, 7), concat(data, narrowed)),
            new HostTensor(Shape.of(2, 3, 7), concat(t.toDoubleArray(), widened))};
    }

    private static HostTensor[] zerosAreZero(Run run, Random random) {
        Shape shape = Shape.of(2, 1 + random.nextInt(5), 3);
        return new HostTensor[] {HostArrays.filled(0.0, shape),
            HostTensor.copyOf(run.scope().zeros(shape, run.dtype()))};
    }

    private static HostTensor[] adoptedTensorOutlivesItsFirstScope(Run run, Random random) {
        HostTensor data = HostArrays.randn(random, 1.0, 4, 5);
        Tensor adopted;
        Tensor dropped;
        try (Scope first = run.scope().backend().newScope()) {
            adopted = run.scope().adopt(data.toTensor(first, run.dtype()));
            dropped = data.toTensor(first, run.dtype());
        }
        double[] flags = {adopted.isOpen() ? 1 : 0, dropped.isOpen() ? 1 : 0};
        return new HostTensor[] {new HostTensor(Shape.of(22), concat(data.data(), new double[] {1, 0})),
            new HostTensor(Shape.of(22), concat(adopted.toDoubleArray(), flags))};
    }

    private static double[] concat(double[] a, double[] b) {
        double[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static Tensor[] qkv(Run run, Random random, int queries, int keys) {
        return new Tensor[] {run.in(HostArrays.randn(random, 1.0, B, H, queries, D)),
            run.in(HostArrays.randn(random, 1.0, B, H, keys, D)),
            run.in(HostArrays.randn(random, 1.0, B, H, keys, D))};
    }
}
