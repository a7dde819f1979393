package org.attn4j.backend.ejml;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The last pass of an F32 layer or RMS norm on explicit SIMD vectors, in double precision as {@link Norms} computes
 * it element by element:
 * <pre>
 *   v[at + j] = (float) ((((double) v[at + j] - mean) · inv) · gamma[j] + beta[j])
 * </pre>
 * each operation an IEEE double operation in that order (no fused multiply-add), so every element is the same bits as
 * the scalar loop's; floats are widened to doubles and rounded back by the vector conversions. Written as four loops,
 * one per presence of {@code gamma} and {@code beta}, so that no vector crosses a branch (the rules of
 * {@link VectorGemmF32}'s class comment). Only loaded when {@link Simd#enabled()}.
 */
final class VectorNorms {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED
            .withShape(VectorShape.forBitSize(D.vectorBitSize() / 2));
    private static final int LANES = D.length();

    private VectorNorms() {
    }

    /**
     * Normalises {@code v[at … at + d)} in place.
     *
     * @param v the row's values, overwritten
     * @param at where the row starts
     * @param d its length
     * @param mean the row's mean (0 for RMS norm)
     * @param inv {@code 1/σ}
     * @param gamma {@code [d]}, or null for ones
     * @param beta {@code [d]}, or null for zeros
     * @return the first element not done, a multiple of the lane count: the caller finishes the row
     */
    static int normalize(float[] v, int at, int d, double mean, double inv, float[] gamma, float[] beta) {
        int end = d - d % LANES;
        if (gamma != null && beta != null) {
            for (int j = 0; j < end; j += LANES) {
                ((FloatVector) widen(v, at + j).sub(mean).mul(inv).mul(widen(gamma, j)).add(widen(beta, j))
                        .convertShape(VectorOperators.D2F, F, 0)).intoArray(v, at + j);
            }
        } else if (gamma != null) {
            for (int j = 0; j < end; j += LANES) {
                ((FloatVector) widen(v, at + j).sub(mean).mul(inv).mul(widen(gamma, j))
                        .convertShape(VectorOperators.D2F, F, 0)).intoArray(v, at + j);
            }
        } else if (beta != null) {
            for (int j = 0; j < end; j += LANES) {
                ((FloatVector) widen(v, at + j).sub(mean).mul(inv).add(widen(beta, j))
                        .convertShape(VectorOperators.D2F, F, 0)).intoArray(v, at + j);
            }
        } else {
            for (int j = 0; j < end; j += LANES) {
                ((FloatVector) widen(v, at + j).sub(mean).mul(inv)
                        .convertShape(VectorOperators.D2F, F, 0)).intoArray(v, at + j);
            }
        }
        return end;
    }

    private static DoubleVector widen(float[] a, int at) {
        return (DoubleVector) FloatVector.fromArray(F, a, at).convertShape(VectorOperators.F2D, D, 0);
    }
}
