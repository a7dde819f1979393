package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BinaryOperator;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;

/**
 * Laws of the primitive ops and of their results, checked on the backend alone with seeded inputs:
 * <ul>
 *   <li>broadcasting equals the op on operands expanded to the result shape ({@code add}, {@code sub},
 *       {@code mul}, {@code div}; ranks that differ, size-1 axes on both sides, a scalar on either side);</li>
 *   <li>a negative axis is the same axis counted from the end ({@code max}, {@code sum}, {@code mean},
 *       {@code variance} with and without {@code keepDims}, {@code softmax});</li>
 *   <li>rank-0 tensors stay rank 0 through {@code scale} and {@code add}, and a vector reduced over its one axis is
 *       rank 0;</li>
 *   <li>{@code cast} rounds to nearest and widens exactly; {@code cast} and {@code additiveMask} results have the
 *       dtype asked for;</li>
 *   <li>attention with dropout {@code p = 1} is zeros, and returns weights only when asked;</li>
 *   <li>a result belongs to the scope whose ops made it: made from another scope's tensor, it outlives that scope;
 *       made by another scope's ops, it closes with that scope unless adopted; a closed scope and its tensors say
 *       they are closed, a closed tensor still has its shape, and closing a scope twice does nothing.</li>
 * </ul>
 * Both sides of each law come from the same backend and dtype.
 */
final class OpLawSuite {
    /** Pairs of broadcast operand shapes. */
    private static final int[][][] BROADCASTS = {
        {{4, 1, 3, 1}, {2, 1, 5}}, {{2, 1, 4}, {3, 1}}, {{3, 1}, {1, 6}}, {{1}, {5, 2}}, {{}, {2, 2}}, {{2, 3}, {}},
    };

    private OpLawSuite() {
    }

    /** Facts that must hold; the first one that does not, or null. */
    private interface Facts {
        String check(Run run);
    }

    static List<TckCase> plan(ToleranceTable tolerances, long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            add(cases, tolerances, dtype, "law_broadcasting_equals_expanded_operands", "elementwise", Set.of(), seed,
                    OpLawSuite::broadcastingEqualsExpandedOperands);
            add(cases, tolerances, dtype, "law_negative_axis_counts_from_the_end", "reduction", Set.of(), seed,
                    OpLawSuite::negativeAxisCountsFromTheEnd);
            add(cases, tolerances, dtype, "law_rank0_tensors_stay_rank0", "elementwise", Set.of(), seed,
                    OpLawSuite::rank0TensorsStayRank0);
            add(cases, tolerances, dtype, "law_cast_rounds_to_nearest_and_widens_exactly", "cast",
                    Set.of(Feature.OPTIONAL_F64), seed, OpLawSuite::castRoundsToNearest);
            add(cases, tolerances, dtype, "law_attention_dropout_of_one_is_zeros", "attention",
                    Set.of(Feature.OPTIONAL_DROPOUT), seed, OpLawSuite::attentionDropoutOfOneIsZeros);
            add(cases, tolerances, dtype, "law_results_belong_to_the_scope_of_their_ops", "scope", Set.of(), seed,
                    OpLawSuite::resultsBelongToTheScopeOfTheirOps);
            fact(cases, dtype, "law_results_have_the_dtype_asked_for", "cast", OpLawSuite::resultsHaveTheDtypeAskedFor);
            fact(cases, dtype, "law_attention_weights_only_when_asked", "attention",
                    OpLawSuite::attentionWeightsOnlyWhenAsked);
            fact(cases, dtype, "law_closed_tensor_keeps_its_shape_and_closing_twice_is_harmless", "scope",
                    OpLawSuite::closedTensorKeepsItsShape);
        }
        return cases;
    }

    private static void add(List<TckCase> cases, ToleranceTable tolerances, DType dtype, String id, String op,
                            Set<Feature> needs, long seed, LawSuite.Pairs pairs) {
        cases.add(LawSuite.lawCase(tolerances, dtype, id, op, needs, seed, pairs));
    }

    private static void fact(List<TckCase> cases, DType dtype, String id, String op, Facts facts) {
        cases.add(new TckCase(id, Kind.LAW, op, dtype, dtype.name(), Set.of(), backend -> {
            try (Scope scope = backend.newScope()) {
                String failure = facts.check(new Run(scope, dtype));
                return failure == null ? Measurement.EXACT
                        : Measurement.failed(op + " " + id + " [" + dtype + "] on " + backend.name() + ": " + failure);
            }
        }));
    }

    private static List<HostTensor[]> broadcastingEqualsExpandedOperands(Run run, Random random) {
        List<BinaryOperator<Tensor>> binaries = List.of(run.ops()::add, run.ops()::sub, run.ops()::mul,
                run.ops()::div);
        List<HostTensor[]> pairs = new ArrayList<>();
        for (int[][] shapes : BROADCASTS) {
            HostTensor a = HostArrays.randn(random, 1.0, shapes[0]);
            HostTensor b = HostArrays.randn(random, 1.0, shapes[1]);
            Shape out = broadcast(a.shape(), b.shape());
            for (BinaryOperator<Tensor> op : binaries) {
                HostTensor expanded = HostTensor.copyOf(op.apply(run.in(expand(a, out)), run.in(expand(b, out))));
                pairs.add(new HostTensor[] {expanded, HostTensor.copyOf(op.apply(run.in(a), run.in(b)))});
            }
        }
        return pairs;
    }

    private static List<HostTensor[]> negativeAxisCountsFromTheEnd(Run run, Random random) {
        Ops ops = run.ops();
        Tensor x = run.in(HostArrays.randn(random, 1.0, 3, 4, 5));
        List<HostTensor[]> pairs = new ArrayList<>();
        for (int axis = 0; axis < 3; axis++) {
            int negative = axis - 3;
            for (boolean keep : new boolean[] {false, true}) {
                pairs.add(copies(ops.max(x, axis, keep), ops.max(x, negative, keep)));
                pairs.add(copies(ops.sum(x, axis, keep), ops.sum(x, negative, keep)));
                pairs.add(copies(ops.mean(x, axis, keep), ops.mean(x, negative, keep)));
                pairs.add(copies(ops.variance(x, axis, keep), ops.variance(x, negative, keep)));
            }
            pairs.add(copies(ops.softmax(x, axis), ops.softmax(x, negative)));
        }
        return pairs;
    }

    private static List<HostTensor[]> rank0TensorsStayRank0(Run run, Random random) {
        Ops ops = run.ops();
        Tensor s = run.in(new HostTensor(Shape.scalar(), new double[] {2.5}));
        HostTensor five = new HostTensor(Shape.scalar(), new double[] {5});
        return List.of(new HostTensor[] {five, HostTensor.copyOf(ops.scale(s, 2))},
                new HostTensor[] {five, HostTensor.copyOf(ops.add(s, s))},
                new HostTensor[] {new HostTensor(Shape.scalar(), new double[] {3}),
                    HostTensor.copyOf(ops.sum(run.in(new HostTensor(Shape.of(2), new double[] {1, 2})), 0, false))});
    }

    private static List<HostTensor[]> castRoundsToNearest(Run run, Random random) {
        double[] values = HostArrays.randn(random, 3.0, 12).data();
        System.arraycopy(new double[] {0.1, 1e-3, 3.0000001, -2.5}, 0, values, 0, 4);
        Tensor wide = run.scope().tensor(values, Shape.of(12), DType.F64);
        double[] rounded = values.clone();
        for (int i = 0; run.dtype() == DType.F32 && i < rounded.length; i++) {
            rounded[i] = (float) values[i];
        }
        HostTensor expected = new HostTensor(Shape.of(12), rounded);
        Tensor cast = run.ops().cast(wide, run.dtype());
        return List.of(new HostTensor[] {expected, HostTensor.copyOf(cast)},
                new HostTensor[] {expected, HostTensor.copyOf(run.ops().cast(cast, DType.F64))});
    }

    private static List<HostTensor[]> attentionDropoutOfOneIsZeros(Run run, Random random) {
        Tensor q = run.in(HostArrays.randn(random, 1.0, 1, 2, 130, 4));
        Tensor k = run.in(HostArrays.randn(random, 1.0, 1, 2, 9, 4));
        Tensor v = run.in(HostArrays.randn(random, 1.0, 1, 2, 9, 3));
        AttentionOptions dropAll = AttentionOptions.defaults().withCausal(true).withDropout(1.0, 3);
        return List.<HostTensor[]>of(new HostTensor[] {HostArrays.filled(0.0, Shape.of(1, 2, 130, 3)),
            HostTensor.copyOf(run.ops().attention(q, k, v, dropAll).output())});
    }

    private static List<HostTensor[]> resultsBelongToTheScopeOfTheirOps(Run run, Random random) {
        HostTensor data = HostArrays.randn(random, 1.0, 2, 3);
        Tensor mine = run.in(data);
        Tensor reshaped;
        Tensor permuted;
        Tensor adopted;
        Tensor dropped;
        try (Scope other = run.scope().backend().newScope()) {
            reshaped = run.ops().reshape(data.toTensor(other, run.dtype()), 3, 2);
            permuted = run.ops().permute(data.reshape(1, 2, 1, 3).toTensor(other, run.dtype()), 0, 2, 1, 3);
            adopted = run.scope().adopt(other.ops().scale(mine, 2));
            dropped = other.ops().scale(mine, 3);
        }
        double[] twice = data.data();
        for (int i = 0; i < twice.length; i++) {
            twice[i] *= 2;
        }
        double[] open = {adopted.isOpen() ? 1 : 0, dropped.isOpen() ? 1 : 0};
        return List.of(new HostTensor[] {new HostTensor(Shape.of(3, 2), data.data()), HostTensor.copyOf(reshaped)},
                new HostTensor[] {new HostTensor(Shape.of(1, 1, 2, 3), data.data()), HostTensor.copyOf(permuted)},
                new HostTensor[] {new HostTensor(Shape.of(2, 3), twice), HostTensor.copyOf(adopted)},
                new HostTensor[] {new HostTensor(Shape.of(2), new double[] {1, 0}), new HostTensor(Shape.of(2), open)});
    }

    private static String resultsHaveTheDtypeAskedFor(Run run) {
        Tensor mask = run.ops().additiveMask(Mask.causal(3, 4), run.dtype());
        if (mask.dtype() != run.dtype()) {
            return "additiveMask(causal(3, 4), " + run.dtype() + ") has dtype " + mask.dtype();
        }
        Tensor cast = run.ops().cast(run.in(HostArrays.filled(1.5, Shape.of(2, 3))), run.dtype());
        return cast.dtype() == run.dtype() ? null : "cast to " + run.dtype() + " has dtype " + cast.dtype();
    }

    private static String attentionWeightsOnlyWhenAsked(Run run) {
        Random random = new Random(7);
        for (int[] dims : new int[][] {{2, 3, 4}, {1, 2, 3, 4}}) {
            Tensor x = run.in(HostArrays.randn(random, 1.0, dims));
            var result = run.ops().attention(x, x, x, AttentionOptions.defaults());
            if (result.weights() != null) {
                return "attention of " + x.shape() + " without withWeights(true) returned weights";
            }
            if (!result.output().shape().equals(x.shape())) {
                return "attention of " + x.shape() + " returned output " + result.output().shape();
            }
        }
        return null;
    }

    private static String closedTensorKeepsItsShape(Run run) {
        Scope other = run.scope().backend().newScope();
        Tensor x = other.zeros(Shape.of(2, 2), run.dtype());
        other.close();
        if (other.isOpen() || x.isOpen()) {
            return "a closed scope says it is open (" + other.isOpen() + "), or its tensor does (" + x.isOpen() + ")";
        }
        if (!x.shape().equals(Shape.of(2, 2)) || x.dtype() != run.dtype()) {
            return "a closed tensor " + run.dtype() + "[2, 2] tells " + x.dtype() + x.shape();
        }
        try {
            other.close();
        } catch (RuntimeException e) {
            return "closing a closed scope threw " + e;
        }
        return null;
    }

    private static HostTensor[] copies(Tensor expected, Tensor actual) {
        return new HostTensor[] {HostTensor.copyOf(expected), HostTensor.copyOf(actual)};
    }

    private static Shape broadcast(Shape a, Shape b) {
        int rank = Math.max(a.rank(), b.rank());
        int[] dims = new int[rank];
        for (int i = 0; i < rank; i++) {
            int da = i < rank - a.rank() ? 1 : a.dim(i - rank + a.rank());
            int db = i < rank - b.rank() ? 1 : b.dim(i - rank + b.rank());
            dims[i] = Math.max(da, db);
        }
        return Shape.of(dims);
    }

    /** @return {@code t} repeated along its size-1 and missing leading axes to {@code shape} */
    private static HostTensor expand(HostTensor t, Shape shape) {
        double[] data = t.data();
        double[] out = new double[(int) shape.size()];
        int lead = shape.rank() - t.shape().rank();
        for (int index = 0; index < out.length; index++) {
            int from = 0;
            for (int axis = shape.rank() - 1, rest = index; axis >= 0; axis--) {
                int coordinate = rest % shape.dim(axis);
                rest /= shape.dim(axis);
                int own = axis - lead;
                if (own >= 0 && t.shape().dim(own) != 1) {
                    from += coordinate * (int) t.shape().stride(own);
                }
            }
            out[index] = data[from];
        }
        return new HostTensor(shape, out);
    }
}
