package org.attn4j.bench.run;

import org.ejml.concurrency.EjmlConcurrency;
import org.ejml.data.FMatrixRMaj;
import org.ejml.dense.row.CommonOps_FDRM;
import org.ejml.dense.row.CommonOps_MT_FDRM;

/** EJML's {@code CommonOps_FDRM.mult} (one thread) or {@code CommonOps_MT_FDRM.mult} (concurrent). */
final class EjmlGemm implements GemmPeer {
    private final boolean concurrent;

    EjmlGemm(boolean concurrent) {
        this.concurrent = concurrent;
        if (concurrent) {
            EjmlConcurrency.setMaxThreads(BenchData.threads());
        }
    }

    @Override
    public Runnable product(int m, int n, int k) {
        FMatrixRMaj a = matrix(m, k, 1);
        FMatrixRMaj b = matrix(k, n, 2);
        FMatrixRMaj c = new FMatrixRMaj(m, n);
        return concurrent ? () -> CommonOps_MT_FDRM.mult(a, b, c) : () -> CommonOps_FDRM.mult(a, b, c);
    }

    @Override
    public Runnable attentionShaped(int heads, int length, int headDim) {
        FMatrixRMaj[] q = new FMatrixRMaj[heads];
        FMatrixRMaj[] k = new FMatrixRMaj[heads];
        FMatrixRMaj[] v = new FMatrixRMaj[heads];
        FMatrixRMaj[] o = new FMatrixRMaj[heads];
        for (int h = 0; h < heads; h++) {
            q[h] = matrix(length, headDim, 3L * h + 1);
            k[h] = matrix(length, headDim, 3L * h + 2);
            v[h] = matrix(length, headDim, 3L * h + 3);
            o[h] = new FMatrixRMaj(length, headDim);
        }
        FMatrixRMaj s = new FMatrixRMaj(length, length);
        return () -> {
            for (int h = 0; h < heads; h++) {
                if (concurrent) {
                    CommonOps_MT_FDRM.multTransB(q[h], k[h], s);
                    CommonOps_MT_FDRM.mult(s, v[h], o[h]);
                } else {
                    CommonOps_FDRM.multTransB(q[h], k[h], s);
                    CommonOps_FDRM.mult(s, v[h], o[h]);
                }
            }
        };
    }

    private static FMatrixRMaj matrix(int rows, int cols, long seed) {
        return FMatrixRMaj.wrap(rows, cols, BenchData.uniform((long) rows * cols, seed));
    }
}
