package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The two inner loops of {@link FlashDecoding} on explicit SIMD vectors: query·key dot products, four keys per
 * pass with one accumulator vector each (also the single rows of {@link VectorFewRowsLinearF32}), and the value
 * update {@code o += p_j · v_j}, four keys per pass. Loaded only when {@link Simd#enabled()}. Accumulators are
 * reduced or stored from their loop's last step, as {@link VectorGemmF32}'s class comment explains.
 */
final class VectorDecodingF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
    private static final int LANES = SPECIES.length();

    private VectorDecodingF32() {
    }

    /**
     * {@code scores[sBase + j] = query[qBase ..] · k[kBase + j·dk ..]} for {@code j < n}, each a dot product of
     * {@code dk} values: a query against cached keys, or a row of input against rows of a weight.
     */
    static void scores(float[] query, int qBase, float[] k, int kBase, int dk, float[] scores, int sBase, int n) {
        int vectorEnd = dk - dk % LANES;
        int lastVector = vectorEnd - LANES;
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            int k0 = kBase + j * dk;
            int k1 = k0 + dk;
            int k2 = k1 + dk;
            int k3 = k2 + dk;
            FloatVector a0 = FloatVector.zero(SPECIES);
            FloatVector a1 = a0;
            FloatVector a2 = a0;
            FloatVector a3 = a0;
            float s0 = 0;
            float s1 = 0;
            float s2 = 0;
            float s3 = 0;
            for (int d = 0; d < vectorEnd; d += LANES) {
                FloatVector x = FloatVector.fromArray(SPECIES, query, qBase + d);
                a0 = x.fma(FloatVector.fromArray(SPECIES, k, k0 + d), a0);
                a1 = x.fma(FloatVector.fromArray(SPECIES, k, k1 + d), a1);
                a2 = x.fma(FloatVector.fromArray(SPECIES, k, k2 + d), a2);
                a3 = x.fma(FloatVector.fromArray(SPECIES, k, k3 + d), a3);
                if (d == lastVector) {
                    s0 = a0.reduceLanes(VectorOperators.ADD);
                    s1 = a1.reduceLanes(VectorOperators.ADD);
                    s2 = a2.reduceLanes(VectorOperators.ADD);
                    s3 = a3.reduceLanes(VectorOperators.ADD);
                }
            }
            for (int d = vectorEnd; d < dk; d++) {
                float x = query[qBase + d];
                s0 += x * k[k0 + d];
                s1 += x * k[k1 + d];
                s2 += x * k[k2 + d];
                s3 += x * k[k3 + d];
            }
            scores[sBase + j] = s0;
            scores[sBase + j + 1] = s1;
            scores[sBase + j + 2] = s2;
            scores[sBase + j + 3] = s3;
        }
        for (; j < n; j++) {
            int kj = kBase + j * dk;
            FloatVector a = FloatVector.zero(SPECIES);
            float s = 0;
            for (int d = 0; d < vectorEnd; d += LANES) {
                a = FloatVector.fromArray(SPECIES, query, qBase + d)
                        .fma(FloatVector.fromArray(SPECIES, k, kj + d), a);
                if (d == lastVector) {
                    s = a.reduceLanes(VectorOperators.ADD);
                }
            }
            for (int d = vectorEnd; d < dk; d++) {
                s += query[qBase + d] * k[kj + d];
            }
            scores[sBase + j] = s;
        }
    }

    /**
     * {@code out[outBase + e] += Σ_j p[j] · v[vBase + j·dv + e]} for {@code j < n}: four accumulator vectors of
     * output columns at a time, so that the multiply-adds of one key are independent.
     */
    static void accumulate(float[] p, float[] v, int vBase, int dv, float[] out, int outBase, int n) {
        int last = n - 1;
        int e = 0;
        for (; e + 4 * LANES <= dv; e += 4 * LANES) {
            int at = outBase + e;
            FloatVector o0 = FloatVector.fromArray(SPECIES, out, at);
            FloatVector o1 = FloatVector.fromArray(SPECIES, out, at + LANES);
            FloatVector o2 = FloatVector.fromArray(SPECIES, out, at + 2 * LANES);
            FloatVector o3 = FloatVector.fromArray(SPECIES, out, at + 3 * LANES);
            for (int j = 0; j < n; j++) {
                FloatVector w = FloatVector.broadcast(SPECIES, p[j]);
                int vj = vBase + j * dv + e;
                o0 = FloatVector.fromArray(SPECIES, v, vj).fma(w, o0);
                o1 = FloatVector.fromArray(SPECIES, v, vj + LANES).fma(w, o1);
                o2 = FloatVector.fromArray(SPECIES, v, vj + 2 * LANES).fma(w, o2);
                o3 = FloatVector.fromArray(SPECIES, v, vj + 3 * LANES).fma(w, o3);
                if (j == last) {
                    o0.intoArray(out, at);
                    o1.intoArray(out, at + LANES);
                    o2.intoArray(out, at + 2 * LANES);
                    o3.intoArray(out, at + 3 * LANES);
                }
            }
        }
        for (; e + LANES <= dv; e += LANES) {
            FloatVector o = FloatVector.fromArray(SPECIES, out, outBase + e);
            for (int j = 0; j < n; j++) {
                o = FloatVector.fromArray(SPECIES, v, vBase + j * dv + e).fma(FloatVector.broadcast(SPECIES, p[j]), o);
                if (j == last) {
                    o.intoArray(out, outBase + e);
                }
            }
        }
        for (; e < dv; e++) {
            float o = out[outBase + e];
            for (int j = 0; j < n; j++) {
                o += p[j] * v[vBase + j * dv + e];
            }
            out[outBase + e] = o;
        }
    }
}
