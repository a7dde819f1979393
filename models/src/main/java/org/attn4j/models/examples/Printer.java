package org.attn4j.models.examples;

import java.util.Locale;
import org.attn4j.api.Tensor;

/** Formats tensors as nested rows with a fixed number of decimals, like PyTorch's printout. */
final class Printer {

    private Printer() {
    }

    /**
     * @param t a tensor of any rank
     * @param decimals digits after the point
     * @return e.g. {@code [[0.1000, 0.2000], [0.3000, 0.4000]]}
     */
    static String format(Tensor t, int decimals) {
        double[] v = t.toDoubleArray();
        int[] dims = t.shape().toArray();
        StringBuilder b = new StringBuilder();
        append(b, v, dims, 0, 0, decimals);
        return b.toString();
    }

    private static int append(StringBuilder b, double[] v, int[] dims, int axis, int at, int decimals) {
        if (axis == dims.length) {
            b.append(String.format(Locale.ROOT, "%." + decimals + "f", v[at]));
            return at + 1;
        }
        b.append('[');
        int next = at;
        for (int i = 0; i < dims[axis]; i++) {
            if (i > 0) {
                b.append(axis == dims.length - 1 ? ", " : ",\n" + " ".repeat(axis + 1));
            }
            next = append(b, v, dims, axis + 1, next, decimals);
        }
        b.append(']');
        return next;
    }
}
