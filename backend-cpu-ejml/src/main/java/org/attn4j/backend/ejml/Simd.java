package org.attn4j.backend.ejml;

import java.util.Optional;

/**
 * Whether the F32 attention runs on {@link VectorFlashAttentionF32}, the explicit-SIMD kernel, or on the scalar
 * {@link FlashAttentionF32} that the JIT vectorises on its own. The SIMD kernel needs the incubating
 * {@code jdk.incubator.vector} module, which a JVM resolves only when started with
 * {@code --add-modules jdk.incubator.vector}, and vectors of at least 256 bits. {@code -Dattn4j.ejml.simd=false}
 * turns it off. The decision is made once, when this class is first used.
 */
final class Simd {
    /** The system property that turns the SIMD kernel off when {@code false}. */
    static final String PROPERTY = "attn4j.ejml.simd";

    private static final String MODULE = "jdk.incubator.vector";
    private static final int MIN_BITS = 256;

    private static final Optional<Integer> BITS = probe();

    private Simd() {
    }

    /** @return whether F32 attention uses the SIMD kernel */
    static boolean enabled() {
        return BITS.isPresent();
    }

    /** @return one sentence for the provider's availability note: which kernel runs and how to change that */
    static String describe() {
        if (BITS.isPresent()) {
            return "F32 attention on " + BITS.get() + "-bit SIMD vectors (" + MODULE + ")";
        }
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return "F32 attention on the scalar kernel (-D" + PROPERTY + "=false)";
        }
        if (ModuleLayer.boot().findModule(MODULE).isEmpty()) {
            return "F32 attention on the scalar kernel; start the JVM with --add-modules " + MODULE
                    + " for the SIMD kernel, several times faster";
        }
        return "F32 attention on the scalar kernel: this CPU's vectors are narrower than " + MIN_BITS + " bits";
    }

    private static Optional<Integer> probe() {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))
                || ModuleLayer.boot().findModule(MODULE).isEmpty()) {
            return Optional.empty();
        }
        int bits = VectorWidth.preferredBits();
        return bits >= MIN_BITS ? Optional.of(bits) : Optional.empty();
    }
}
