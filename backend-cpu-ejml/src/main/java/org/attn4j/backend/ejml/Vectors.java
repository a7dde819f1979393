package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The one vector width every SIMD kernel of this backend computes on, decided once: the CPU's preferred width
 * ({@code FloatVector.SPECIES_PREFERRED}: 256 bits with AVX2, 512 with AVX-512), or the narrower 256 bits when the
 * system property {@value #PROPERTY} says so. Only {@link Simd} (once it has found {@code jdk.incubator.vector}) and
 * the kernels it admitted may load this class.
 */
final class Vectors {
    /** The system property that picks the width in bits: {@code 256}, or {@code 512} where the CPU has it. */
    static final String PROPERTY = "attn4j.ejml.vectorBits";

    /** The F32 species of every kernel. */
    static final VectorSpecies<Float> F32 = choose(System.getProperty(PROPERTY));

    /**
     * Whether the CPU has 32 vector registers (AVX-512, whatever width the kernels use): the row tile of
     * {@link VectorGemmF32#tileRows} then holds 8 × 2 accumulators; with 16 (AVX2) it holds 6 × 2.
     */
    static final boolean MANY_REGISTERS = FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512;

    private Vectors() {
    }

    /**
     * @param requested the property's value, or null
     * @return {@code SPECIES_PREFERRED}, or the 256-bit species when asked for and narrower than it
     * @throws IllegalArgumentException if the value is not 256 or 512 ({@link Simd} refuses such a value first)
     */
    static VectorSpecies<Float> choose(String requested) {
        VectorSpecies<Float> preferred = FloatVector.SPECIES_PREFERRED;
        if (requested == null) {
            return preferred;
        }
        int bits;
        try {
            bits = Integer.parseInt(requested.trim());
        } catch (NumberFormatException e) {
            bits = -1;
        }
        if (bits != 256 && bits != 512) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + requested + ": the vector width must be 256 or"
                    + " 512 bits");
        }
        return bits < preferred.vectorBitSize() ? FloatVector.SPECIES_256 : preferred;
    }
}
