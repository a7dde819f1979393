package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.attn4j.api.Activation;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.Test;

/**
 * {@code linear} over I8 weights ({@link Int8Linear}) against ONNX's {@code DynamicQuantizeLinear → MatMulInteger →
 * Cast → Mul → Add} written out here in long arithmetic: bit for bit, on widths around the Vector API's steps and
 * the four weight rows taken together, on matrices (one sequence) and on batches of sequences of different ranges
 * (each quantized over its own), with weight zero points across the int8 range, inputs whose range excludes
 * zero on either side, and gated epilogues against their composition. The build runs this class with the Vector API
 * on the CPU's widest vectors, on 256-bit vectors, and without the Vector API (the scalar path).
 */
class Int8LinearTest extends ScopedTest {

    /** An I8 weight's bytes: per row a scale, a zero point, then the numbers. */
    private static ByteBuffer weightBytes(byte[] q, float[] scales, int[] zeros, int columns) {
        int rows = scales.length;
        ByteBuffer b = ByteBuffer.allocate(rows * (columns + 8)).order(ByteOrder.LITTLE_ENDIAN);
        for (int r = 0; r < rows; r++) {
            b.putFloat(scales[r]).putInt(zeros[r]).put(q, r * columns, columns);
        }
        return b.flip();
    }

    /**
     * ONNX's sequence, each step as its operator defines it, on each sequence of {@code sequenceRows} rows alone, as
     * ONNX Runtime runs it on a tensor holding that sequence.
     */
    private static float[] onnx(float[] x, int columns, int sequenceRows, byte[] q, float[] scales, int[] zeros,
                                float[] bias) {
        int rows = x.length / columns;
        int features = scales.length;
        float[] y = new float[rows * features];
        for (int first = 0; first < rows; first += sequenceRows) {
            float lo = 0f;
            float hi = 0f;
            for (int i = first * columns; i < (first + sequenceRows) * columns; i++) {
                lo = Math.min(lo, x[i]);
                hi = Math.max(hi, x[i]);
            }
            float as = hi == lo ? 1f : (hi - lo) / 255f;
            long az = Math.round(Math.rint(Math.min(255f, Math.max(0f, 0f - lo / as))));
            for (int i = first; i < first + sequenceRows; i++) {
                for (int j = 0; j < features; j++) {
                    long acc = 0;
                    for (int p = 0; p < columns; p++) {
                        long a = Math.max(0, Math.min(255, (long) Math.rint(x[i * columns + p] / as) + az));
                        acc += (a - az) * (q[j * columns + p] - zeros[j]);
                    }
                    float v = (float) (int) acc * (as * scales[j]);
                    y[i * features + j] = bias == null ? v : v + bias[j];
                }
            }
        }
        return y;
    }

    /** Checks {@code x [rows, columns]}, or {@code [batch, rows, columns]} when {@code batch > 0}. */
    private void check(int batch, int rows, int columns, int features, float shift, boolean withBias) {
        int sequences = Math.max(1, batch);
        float[] x = new float[sequences * rows * columns];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (random.nextGaussian() * (1 + i / (rows * columns)) + shift);
        }
        byte[] q = new byte[features * columns];
        random.nextBytes(q);
        float[] scales = new float[features];
        int[] zeros = new int[features];
        float[] bias = withBias ? new float[features] : null;
        for (int j = 0; j < features; j++) {
            scales[j] = (float) Math.scalb(1 + random.nextDouble(), -7 - random.nextInt(4));
            zeros[j] = j % 3 == 0 ? 0 : random.nextInt(256) - 128;
            if (bias != null) {
                bias[j] = (float) random.nextGaussian();
            }
        }
        Shape shape = Shape.of(features, columns);
        Shape xShape = batch > 0 ? Shape.of(batch, rows, columns) : Shape.of(rows, columns);
        Weight w = scope.weight(weightBytes(q, scales, zeros, columns), WeightType.I8, shape);
        Tensor b = bias == null ? null : scope.tensor(bias, Shape.of(features));
        float[] actual = ops.linear(scope.tensor(x, xShape), w, b).toFloatArray();
        float[] expected = onnx(x, columns, rows, q, scales, zeros, bias);
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                fail(xShape + " by " + shape + ", shift " + shift + ": index " + i + " expected "
                        + expected[i] + ", actual " + actual[i] + ", abs error " + Math.abs(expected[i] - actual[i])
                        + ", rel error " + Math.abs(expected[i] - actual[i]) / Math.abs(expected[i]));
            }
        }
    }

    @Test
    void equalsOnnxIntegerArithmeticBitForBitAcrossVectorSteps() {
        int[][] shapes = {{1, 1, 1}, {3, 7, 5}, {2, 16, 4}, {5, 31, 9}, {4, 32, 8}, {7, 33, 11}, {6, 64, 16},
            {9, 100, 13}, {17, 384, 36}, {3, 1536, 7}};
        for (int[] s : shapes) {
            for (float shift : new float[] {0f, 3f, -3f}) {
                check(0, s[0], s[1], s[2], shift, shift == 0f);
            }
        }
    }

    @Test
    void eachSequenceOfABatchIsQuantizedOverItsOwnRangeBitForBit() {
        int[][] shapes = {{2, 1, 5, 3}, {3, 7, 33, 11}, {4, 9, 100, 13}, {2, 17, 384, 36}};
        for (int[] s : shapes) {
            for (float shift : new float[] {0f, 3f, -3f}) {
                check(s[0], s[1], s[2], s[3], shift, true);
            }
        }
    }

    @Test
    void zeroInputGivesBiasExactly() {
        float[] bias = {1.5f, -2f, 0f};
        ByteBuffer bytes = weightBytes(new byte[] {1, -2, 3, 4, 5, -6}, new float[] {0.1f, 0.2f, 0.3f},
                new int[] {0, 7, -128}, 2);
        Weight w = scope.weight(bytes, WeightType.I8, Shape.of(3, 2));
        float[] y = ops.linear(scope.zeros(Shape.of(4, 2), DType.F32), w, scope.tensor(bias, Shape.of(3)))
                .toFloatArray();
        for (int i = 0; i < y.length; i++) {
            assertEquals(bias[i % 3], y[i], 0f, "index " + i);
        }
    }

    @Test
    void gatedEpilogueEqualsItsComposition() {
        int rows = 5;
        int columns = 48;
        int out = 10;
        float[] values = new float[2 * out * columns];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian();
        }
        Shape shape = Shape.of(2 * out, columns);
        Weight w = scope.weight(values, shape, WeightType.I8);
        float[] xs = new float[rows * columns];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = (float) random.nextGaussian();
        }
        Tensor x = scope.tensor(xs, Shape.of(rows, columns));
        float[] fused = ops.linear(x, w, null, Epilogue.gated(Activation.SILU)).toFloatArray();
        float[] plain = ops.linear(x, w, null).toFloatArray();
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < out; j++) {
                float g = plain[i * 2 * out + j];
                float expected = g / (1f + (float) Math.exp(-g)) * plain[i * 2 * out + out + j];
                float actual = fused[i * out + j];
                assertEquals(expected, actual, 1e-5f * Math.max(1f, Math.abs(expected)),
                        "index " + (i * out + j) + " expected " + expected + ", actual " + actual);
            }
        }
    }

    @Test
    void nonFiniteInputIsRefusedByName() {
        Weight w = scope.weight(new float[] {1f, 2f}, Shape.of(1, 2), WeightType.I8);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ops.linear(scope.tensor(new float[] {1f, Float.NaN}, Shape.of(1, 2)), w, null));
        assertTrue(e.getMessage().startsWith("linear: argument x holds NaN"), e.getMessage());
    }
}
