package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * Attention logits past the F32 range, the contract of SEMANTICS.md: F32 attention forms {@code scale·q·kᵀ} in
 * F32, as PyTorch's F32 kernels do, so a logit beyond ±3.4e38 is ±∞. A {@code +∞} logit makes its query row NaN
 * (in the output and the weights: {@code ∞ - ∞} in the softmax); a row whose logits are all {@code -∞} is a fully
 * masked row and gives zeros; every other row is unaffected. F64 has the range and stays finite. Query row 0 and
 * one key are filled with {@code ±1e20}, so {@code q₀·k} is about {@code ±1e40·d}; the case runs at a small shape
 * and at {@code [1, 4, 128, 64]}, where backends switch to their tiled kernels.
 */
final class OverflowSuite {
    private static final double HUGE = 1e20;

    private OverflowSuite() {
    }

    private record Size(String label, int heads, int length, int dim) {
    }

    static List<TckCase> plan(long seed) {
        List<TckCase> cases = new ArrayList<>();
        List<Size> sizes = List.of(new Size("1x1x4x8", 1, 4, 8), new Size("1x4x128x64", 4, 128, 64));
        for (DType dtype : DType.values()) {
            for (Size size : sizes) {
                for (boolean weights : new boolean[] {false, true}) {
                    for (boolean negative : new boolean[] {false, true}) {
                        String id = "law_overflowing_logits_" + (negative ? "negative_" : "positive_") + size.label()
                                + (weights ? "_weights" : "");
                        Set<Feature> needs = weights ? Set.of(Feature.OPTIONAL_RETURNED_WEIGHTS) : Set.of();
                        cases.add(new TckCase(id, Kind.LAW, "attention", dtype, dtype.name(), needs,
                                backend -> check(backend, dtype, size, weights, negative, new Random(seed))));
                    }
                }
            }
        }
        return cases;
    }

    private static Measurement check(Backend backend, DType dtype, Size size, boolean weights, boolean negative,
                                     Random random) {
        int h = size.heads();
        int l = size.length();
        int d = size.dim();
        double[] q = HostArrays.randn(random, 1.0, 1, h, l, d).data();
        double[] k = HostArrays.randn(random, 1.0, 1, h, l, d).data();
        double[] v = HostArrays.randn(random, 1.0, 1, h, l, d).data();
        for (int head = 0; head < h; head++) {
            for (int c = 0; c < d; c++) {
                q[head * l * d + c] = HUGE;
                if (negative) {
                    for (int j = 0; j < l; j++) {
                        k[(head * l + j) * d + c] = -HUGE;
                    }
                } else {
                    k[(head * l + l - 1) * d + c] = HUGE;
                }
            }
        }
        String what = "attention case law_overflowing_logits_" + (negative ? "negative " : "positive ")
                + size.label() + (weights ? " with weights" : "") + " [" + dtype + "] on " + backend.name();
        Shape shape = Shape.of(1, h, l, d);
        try (Scope scope = backend.newScope()) {
            AttentionResult r = scope.ops().attention(scope.tensor(q, shape, dtype), scope.tensor(k, shape, dtype),
                    scope.tensor(v, shape, dtype), AttentionOptions.defaults().withWeights(weights));
            String failure = checkRows(what + " output", r.output(), l, d, dtype, negative, v);
            if (failure == null && weights) {
                failure = checkRows(what + " weights", r.weights(), l, l, dtype, negative, null);
            }
            return failure == null ? Measurement.EXACT : Measurement.failed(failure);
        }
    }

    /**
     * Row 0 of every head: NaN (F32, +∞ logit), zeros (F32, all logits -∞), or finite (F64); rows 1.. finite. For
     * F64 and a +∞-bound logit, row 0 of the output is the last value row (the softmax is one-hot).
     */
    private static String checkRows(String what, Tensor t, int rows, int width, DType dtype, boolean negative,
                                     double[] values) {
        double[] a = t.toDoubleArray();
        int heads = a.length / (rows * width);
        for (int head = 0; head < heads; head++) {
            for (int i = 0; i < rows; i++) {
                for (int c = 0; c < width; c++) {
                    int index = (head * rows + i) * width + c;
                    double x = a[index];
                    String expected;
                    boolean ok;
                    if (i > 0 || dtype == DType.F64) {
                        expected = "a finite value";
                        ok = Double.isFinite(x);
                        if (ok && i == 0 && !negative && values != null) {
                            double want = values[(head * rows + rows - 1) * width + c];
                            expected = want + " (the last value row: the softmax is one-hot)";
                            ok = Math.abs(x - want) <= 1e-9 * (1 + Math.abs(want));
                        }
                    } else if (negative) {
                        expected = "0 (every logit of the row is -inf: a fully masked row)";
                        ok = x == 0.0;
                    } else {
                        expected = "NaN (a +inf logit: inf - inf in the softmax)";
                        ok = Double.isNaN(x);
                    }
                    if (!ok) {
                        return what + ": at index " + index + " (head " + head + ", row " + i + ") expected "
                                + expected + ", actual " + x;
                    }
                }
            }
        }
        return null;
    }
}
