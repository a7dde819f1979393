package org.attn4j.models.tutorial;

import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;

/**
 * The fixed positional encoding of "Attention is all you need" (§3.5):
 * <pre>
 *   PE[pos, 2i]   = sin(pos / 10000^(2i / d))
 *   PE[pos, 2i+1] = cos(pos / 10000^(2i / d))
 * </pre>
 * for {@code pos} in {@code [0, maxLen)} and every column {@code c < d} ({@code i = c div 2}; an odd {@code d} ends
 * with a sine column). It has no parameters.
 */
public final class SinusoidalPositionalEncoding {
    private final HostTensor table;

    /**
     * @param maxLen the longest sequence supported
     * @param dModel {@code d}
     */
    public SinusoidalPositionalEncoding(int maxLen, int dModel) {
        double[] pe = new double[maxLen * dModel];
        for (int c = 0; c < dModel; c++) {
            double frequency = Math.pow(10000.0, (double) (c / 2 * 2) / dModel);
            for (int pos = 0; pos < maxLen; pos++) {
                double angle = pos / frequency;
                pe[pos * dModel + c] = c % 2 == 0 ? Math.sin(angle) : Math.cos(angle);
            }
        }
        this.table = new HostTensor(Shape.of(maxLen, dModel), pe);
    }

    /** @return the table {@code [maxLen, d]} */
    public HostTensor table() {
        return table;
    }

    /**
     * @param scope receives the result
     * @param x {@code [.., L, d]} with {@code L <= maxLen}
     * @return {@code x + PE[0:L]}
     */
    public Tensor forward(Scope scope, Tensor x) {
        int length = x.shape().dim(-2);
        int maxLen = table.shape().dim(0);
        if (x.shape().rank() < 2 || length > maxLen || x.shape().dim(-1) != table.shape().dim(1)) {
            throw new IllegalArgumentException("SinusoidalPositionalEncoding: argument x has shape " + x.shape()
                    + " but the table is " + table.shape() + "; x must be [.., L <= " + maxLen + ", "
                    + table.shape().dim(1) + "]");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Tensor pe = table.rows(0, length).toTensor(work, x.dtype());
            return scope.adopt(ops.add(x, pe));
        }
    }
}
