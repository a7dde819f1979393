package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.Dropout;

/**
 * IEEE 754 special values through the ops, in both dtypes: NaN propagates, ±∞ follows the math.
 * <ul>
 *   <li>on {@code x = [NaN, +∞, -∞, 0]}: {@code exp(x) = [NaN, +∞, 0, 1]}, {@code relu(x) = [NaN, +∞, 0, 0]},
 *       {@code gelu(NaN) = NaN} and {@code gelu(+∞) = +∞} (exact and tanh forms), {@code x + x = [NaN, +∞, -∞, 0]},
 *       {@code x - x = [NaN, NaN, NaN, 0]}, {@code sum(x) = NaN}, {@code max(x) = NaN}, {@code 1 / 0 = +∞} and a
 *       matmul row holding a NaN gives NaN; a max over an axis is NaN in the slices holding a NaN and only
 *       there;</li>
 *   <li>dropout: a dropped NaN or ±∞ is 0, a kept one stays NaN or ±∞;</li>
 *   <li>softmax: a row holding a NaN is NaN and only that row; a row {@code [-∞, -∞]} is zeros, and
 *       {@code [0, -∞]} is {@code [1, 0]};</li>
 *   <li>attention: a NaN in query row 0 makes output row 0 (and weights row 0) NaN and no other row.</li>
 * </ul>
 */
final class IeeeSuite {
    private static final double NAN = Double.NaN;
    private static final double INF = Double.POSITIVE_INFINITY;

    private IeeeSuite() {
    }

    private interface Check {
        String run(Ops ops, Scope scope, DType dtype);
    }

    static List<TckCase> plan() {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            add(cases, dtype, "law_ieee_elementwise_ops_on_nan_and_infinity", "elementwise", Set.of(),
                    IeeeSuite::elementwise);
            add(cases, dtype, "law_ieee_dropout_zeroes_dropped_nan_and_infinity", "dropout",
                    Set.of(Feature.OPTIONAL_DROPOUT), IeeeSuite::dropout);
            add(cases, dtype, "law_ieee_softmax_nan_and_infinite_rows", "softmax", Set.of(), IeeeSuite::softmax);
            add(cases, dtype, "law_ieee_nan_query_row_poisons_its_weights_row_only", "attention",
                    Set.of(Feature.OPTIONAL_RETURNED_WEIGHTS), IeeeSuite::attentionWithWeights);
        }
        return cases;
    }

    private static void add(List<TckCase> cases, DType dtype, String id, String op, Set<Feature> needs,
                            Check check) {
        cases.add(new TckCase(id, Kind.LAW, op, dtype, dtype.name(), needs, backend -> {
            try (Scope scope = backend.newScope()) {
                String failure = check.run(scope.ops(), scope, dtype);
                return failure == null ? Measurement.EXACT
                        : Measurement.failed(op + " case " + id + " [" + dtype + "] on " + backend.name() + ": "
                                + failure);
            }
        }));
    }

    private static String elementwise(Ops ops, Scope scope, DType dtype) {
        Tensor x = scope.tensor(new double[] {NAN, INF, -INF, 0}, Shape.of(4), dtype);
        String failure = same("exp(x)", new double[] {NAN, INF, 0, 1}, ops.exp(x));
        failure = first(failure, () -> same("relu(x)", new double[] {NAN, INF, 0, 0}, ops.relu(x)));
        for (GeluApproximation form : GeluApproximation.values()) {
            failure = first(failure, () -> same("gelu(x, " + form + ") at NaN and +inf", new double[] {NAN, INF},
                    ops.gelu(x, form).toDoubleArray(), 2));
        }
        failure = first(failure, () -> same("x + x", new double[] {NAN, INF, -INF, 0}, ops.add(x, x)));
        failure = first(failure, () -> same("x - x", new double[] {NAN, NAN, NAN, 0}, ops.sub(x, x)));
        failure = first(failure, () -> same("sum(x)", new double[] {NAN}, ops.sum(x, 0, true)));
        failure = first(failure, () -> same("max(x)", new double[] {NAN}, ops.max(x, 0, false)));
        failure = first(failure, () -> same("max of [[1, NaN, 3], [2, 5, 1]] over axis 1", new double[] {NAN, 5},
                ops.max(scope.tensor(new double[] {1, NAN, 3, 2, 5, 1}, Shape.of(2, 3), dtype), 1, false)));
        failure = first(failure, () -> same("1 / 0", new double[] {INF},
                ops.div(scope.tensor(new double[] {1}, Shape.of(1), dtype),
                        scope.tensor(new double[] {0}, Shape.of(1), dtype))));
        return first(failure, () -> same("[NaN, 1] x [1, 1]^T", new double[] {NAN},
                ops.matmul(scope.tensor(new double[] {NAN, 1}, Shape.of(1, 2), dtype),
                        scope.tensor(new double[] {1, 1}, Shape.of(2, 1), dtype))));
    }

    private static String dropout(Ops ops, Scope scope, DType dtype) {
        double[] x = new double[64];
        Arrays.fill(x, NAN);
        x[0] = INF;
        x[1] = -INF;
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = Dropout.keep(7, i, 0.5) ? x[i] : 0.0;
        }
        return same("dropout(x, 0.5, seed 7) of NaN and ±inf", expected,
                ops.dropout(scope.tensor(x, Shape.of(64), dtype), 0.5, 7));
    }

    private static String softmax(Ops ops, Scope scope, DType dtype) {
        double[] r = ops.softmax(scope.tensor(new double[] {1, NAN, 2, 1, 2, 3}, Shape.of(2, 3), dtype), -1)
                .toDoubleArray();
        String failure = nanRows("softmax of [[1, NaN, 2], [1, 2, 3]]", r, 3, 0);
        return first(failure, () -> same("softmax of [[-inf, -inf], [0, -inf]]", new double[] {0, 0, 1, 0},
                ops.softmax(scope.tensor(new double[] {-INF, -INF, 0, -INF}, Shape.of(2, 2), dtype), -1)));
    }

    private static String attentionWithWeights(Ops ops, Scope scope, DType dtype) {
        double[] q = new double[2 * 4];
        for (int i = 0; i < q.length; i++) {
            q[i] = 0.1 * i;
        }
        q[1] = NAN;
        Tensor qt = scope.tensor(q, Shape.of(1, 1, 2, 4), dtype);
        Tensor kt = scope.tensor(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape.of(1, 1, 3, 4), dtype);
        AttentionResult r = ops.attention(qt, kt, kt, AttentionOptions.defaults().withWeights(true));
        String failure = nanRows("attention output, NaN in query row 0", r.output().toDoubleArray(), 4, 0);
        return first(failure, () -> nanRows("attention weights, NaN in query row 0", r.weights().toDoubleArray(),
                3, 0));
    }

    private interface Lazy {
        String get();
    }

    private static String first(String failure, Lazy next) {
        return failure != null ? failure : next.get();
    }

    private static String same(String what, double[] expected, Tensor actual) {
        return same(what, expected, actual.toDoubleArray(), expected.length);
    }

    /** The first {@code n} values equal, NaN matching NaN. */
    private static String same(String what, double[] expected, double[] actual, int n) {
        for (int i = 0; i < n; i++) {
            boolean ok = Double.isNaN(expected[i]) ? Double.isNaN(actual[i]) : expected[i] == actual[i];
            if (!ok) {
                return what + ": at index " + i + " expected " + expected[i] + ", actual " + actual[i];
            }
        }
        return null;
    }

    /** Row {@code nanRow} of rows of {@code width} all NaN, every other value not NaN. */
    private static String nanRows(String what, double[] values, int width, int nanRow) {
        for (int i = 0; i < values.length; i++) {
            boolean nan = i / width == nanRow;
            if (nan != Double.isNaN(values[i])) {
                return what + ": at index " + i + " (row " + i / width + ") expected "
                        + (nan ? "NaN" : "a number") + ", actual " + values[i];
            }
        }
        return null;
    }
}
