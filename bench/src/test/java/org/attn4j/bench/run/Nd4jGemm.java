package org.attn4j.bench.run;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * ND4J's matrix product ({@code mmuli}, and {@code Nd4j.gemm} for the transposed operand) on float32 arrays,
 * computed by whichever BLAS ND4J loaded: its bundled OpenBLAS, or the one {@code -Dorg.bytedeco.openblas.load}
 * names.
 */
final class Nd4jGemm implements GemmPeer {

    @Override
    public Runnable product(int m, int n, int k) {
        INDArray a = matrix(m, k, 1);
        INDArray b = matrix(k, n, 2);
        INDArray c = Nd4j.create(DataType.FLOAT, m, n);
        return () -> a.mmuli(b, c);
    }

    @Override
    public Runnable attentionShaped(int heads, int length, int headDim) {
        INDArray[] q = new INDArray[heads];
        INDArray[] k = new INDArray[heads];
        INDArray[] v = new INDArray[heads];
        INDArray[] o = new INDArray[heads];
        for (int h = 0; h < heads; h++) {
            q[h] = matrix(length, headDim, 3L * h + 1);
            k[h] = matrix(length, headDim, 3L * h + 2);
            v[h] = matrix(length, headDim, 3L * h + 3);
            o[h] = Nd4j.create(DataType.FLOAT, length, headDim);
        }
        INDArray s = Nd4j.create(DataType.FLOAT, length, length);
        return () -> {
            for (int h = 0; h < heads; h++) {
                Nd4j.gemm(q[h], k[h], s, false, true, 1.0, 0.0);
                Nd4j.gemm(s, v[h], o[h], false, false, 1.0, 0.0);
            }
        };
    }

    private static INDArray matrix(int rows, int cols, long seed) {
        return Nd4j.create(BenchData.uniform((long) rows * cols, seed), new long[] {rows, cols}, 'c');
    }
}
