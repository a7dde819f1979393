package org.attn4j.backend.ejml;

import org.attn4j.api.Activation;
import org.attn4j.api.spi.DynamicQuantization;
import org.attn4j.api.spi.Int8Weight;

/**
 * {@code Ops.linear} over an I8 weight ({@link Int8Weight}) in integer arithmetic, as the api states it: the input
 * quantized once, one range per sequence ({@link DynamicQuantization}), then for each input row and weight row the exact int32 product
 * of the int8 numbers ({@link VectorInt8Dot} with the Vector API, else a scalar loop), corrected for both zero points,
 * scaled in F32, the bias added, and the epilogue ({@link Epilogues}) applied to the row block while it is in cache.
 * Work is split over the input's rows; a block of rows of the product meets four weight rows at a time.
 */
final class Int8Linear {
    private Int8Linear() {
    }

    /**
     * @param w the weight, {@code [out, in]} or {@code [2·out, in]} when gated
     * @param x {@code [n, in]} row-major, not modified
     * @param n the input's rows
     * @param sequenceRows the rows of one sequence, which share one quantization range (see
     *     {@link DynamicQuantization#sequenceRows})
     * @param bias {@code [w.rows]} or null, not modified
     * @param act the activation
     * @param gated whether {@code w} holds a gate and an up projection
     * @param residual {@code [n, out]} or null, not modified
     * @param y {@code [n, out]}, overwritten
     * @param parallel the pool
     */
    static void f32(Int8Weight w, float[] x, int n, int sequenceRows, float[] bias, Activation act, boolean gated,
                    float[] residual, float[] y, Parallel parallel) {
        int in = w.shape().dim(1);
        int features = w.shape().dim(0);
        int out = gated ? features / 2 : features;
        DynamicQuantization a = DynamicQuantization.of("linear", x, in, sequenceRows);
        float[] product = gated ? ArrayPool.floats(Math.multiplyExact(n, features), false) : y;
        boolean simd = Simd.enabled();
        parallel.forRange(n, (long) features * in, (from, to) -> {
            for (int i = from; i < to; i++) {
                if (simd) {
                    VectorInt8Dot.row(w, a, i, product, i * features);
                } else {
                    scalarRow(w, a, i, product, i * features);
                }
                if (bias != null) {
                    for (int j = 0; j < features; j++) {
                        product[i * features + j] += bias[j];
                    }
                }
            }
            Epilogues.f32(act, product, from * features, features, to - from, out, null, 0,
                    gated ? product : null, from * features + out, features, out, residual, from * out, out);
            if (gated) {
                for (int i = from; i < to; i++) {
                    System.arraycopy(product, i * features, y, i * out, out);
                }
            }
        });
        if (gated) {
            ArrayPool.recycle(product);
        }
    }

    /**
     * One row of the product without the Vector API:
     * {@code y[yAt + j] = a.dequantize(w.dot(a, i, j), i, s[j])} for every weight row {@code j}.
     *
     * @param w the weight
     * @param a the quantized input
     * @param i the input row
     * @param y the product, overwritten in the row
     * @param yAt where the row starts
     */
    static void scalarRow(Int8Weight w, DynamicQuantization a, int i, float[] y, int yAt) {
        float[] scales = w.scales();
        for (int j = 0; j < scales.length; j++) {
            y[yAt + j] = a.dequantize(w.dot(a, i, j), i, scales[j]);
        }
    }
}
