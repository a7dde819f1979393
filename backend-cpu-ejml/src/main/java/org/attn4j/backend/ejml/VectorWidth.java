package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;

/** The preferred vector size of this JVM and CPU; loaded by {@link Simd} only when the vector module is present. */
final class VectorWidth {
    private VectorWidth() {
    }

    /** @return the bit size of {@link FloatVector#SPECIES_PREFERRED} */
    static int preferredBits() {
        return FloatVector.SPECIES_PREFERRED.vectorBitSize();
    }
}
