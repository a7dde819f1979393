package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * {@code linear} and {@code embedding} over weights bound to this backend, against double-precision loops: every
 * activation, gated and plain, with and without bias and residual, on row counts around the micro-kernel's six
 * rows and its row blocks, and output widths around its panels; F32 in the layout of this run's kernels
 * (SIMD panels, or row-major without the Vector API) and F64.
 */
class BoundLinearTest extends ScopedTest {

    @Test
    void everyEpilogueMatchesADoubleLoopAcrossTileEdges() {
        int[][] shapes = {{1, 7, 5}, {5, 33, 17}, {6, 32, 64}, {16, 384, 96}, {13, 100, 70},
            {LinearKernel.rowBlock(40) + 7, 40, 67}};
        for (int[] s : shapes) {
            for (Activation act : Activation.values()) {
                for (int variant = 0; variant < 4; variant++) {
                    check(DType.F32, s[0], s[1], s[2], act, variant % 2 == 0, variant >= 2, variant == 1);
                }
            }
        }
    }

    @Test
    void f64WeightsComputeInDoublePrecision() {
        for (Activation act : Activation.values()) {
            check(DType.F64, 9, 21, 14, act, true, true, false);
            check(DType.F64, 4, 10, 6, act, false, false, true);
        }
    }

    @Test
    void embeddingGathersTheBoundRowsAndValuesReadBack() {
        int v = 69;
        int d = 11;
        double[] table = Oracle.values(DType.F32, v * d, random);
        Weight w = scope.weight(bytes(table, DType.F32), WeightType.F32, Shape.of(v, d));
        int[] ids = {0, v - 1, 17, 3, v - 1};
        Tensor rows = ops.embedding(w, ids, Shape.of(ids.length));
        assertEquals(Shape.of(ids.length, d), rows.shape());
        double[] expected = new double[ids.length * d];
        for (int i = 0; i < ids.length; i++) {
            System.arraycopy(table, ids[i] * d, expected, i * d, d);
        }
        Oracle.assertClose("embedding", expected, rows, new Oracle.Tolerance(0, 0));
        float[] back = w.toFloatArray();
        float[] original = new float[table.length];
        for (int i = 0; i < table.length; i++) {
            original[i] = (float) table[i];
        }
        assertArrayEquals(original, back, "toFloatArray reads back the bound values");
    }

    private void check(DType dtype, int n, int in, int out, Activation act, boolean bias, boolean residual,
                       boolean gated) {
        int rows = gated ? 2 * out : out;
        double[] x = Oracle.values(dtype, n * in, random);
        double[] w = Oracle.values(dtype, rows * in, random);
        double[] b = bias ? Oracle.values(dtype, rows, random) : null;
        double[] r = residual ? Oracle.values(dtype, n * out, random) : null;
        Weight weight = scope.weight(bytes(w, dtype), dtype == DType.F64 ? WeightType.F64 : WeightType.F32,
                Shape.of(rows, in));
        Epilogue e = (gated ? Epilogue.gated(act) : Epilogue.none().withActivation(act))
                .withResidual(r == null ? null : Oracle.tensor(scope, dtype, r, n, out));
        Tensor y = ops.linear(Oracle.tensor(scope, dtype, x, n, in), weight,
                b == null ? null : Oracle.tensor(scope, dtype, b, rows), e);
        double[] expected = new double[n * out];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < out; j++) {
                double v = Epilogues.activate(act, dot(x, i, w, j, in) + (b == null ? 0 : b[j]));
                if (gated) {
                    v *= dot(x, i, w, out + j, in) + (b == null ? 0 : b[out + j]);
                }
                expected[i * out + j] = v + (r == null ? 0 : r[i * out + j]);
            }
        }
        String what = dtype + " linear n=" + n + " in=" + in + " out=" + out + " " + act + " bias=" + bias
                + " residual=" + residual + " gated=" + gated;
        Oracle.assertClose(what, expected, y, dtype == DType.F32 ? new Oracle.Tolerance(1e-6 * (in + 1) * (gated ? 30 : 1), 1e-5)
                : new Oracle.Tolerance(1e-12, 1e-12));
    }

    private static double dot(double[] x, int i, double[] w, int j, int in) {
        double s = 0;
        for (int p = 0; p < in; p++) {
            s += x[i * in + p] * w[j * in + p];
        }
        return s;
    }

    static ByteBuffer bytes(double[] values, DType dtype) {
        ByteBuffer b = ByteBuffer.allocate(values.length * dtype.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            if (dtype == DType.F64) {
                b.putDouble(v);
            } else {
                b.putFloat((float) v);
            }
        }
        return b.flip();
    }
}
