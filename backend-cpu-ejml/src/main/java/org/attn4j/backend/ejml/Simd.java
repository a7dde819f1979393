package org.attn4j.backend.ejml;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the F32 attention runs on {@link VectorFlashAttentionF32}, the explicit-SIMD kernel, or on the scalar
 * {@link FlashAttentionF32} that the JIT vectorises on its own; and whether F32 matrix products run on
 * {@link VectorGemmF32} or on EJML. The SIMD kernels need the incubating
 * {@code jdk.incubator.vector} module, which a JVM resolves only when started with
 * {@code --add-modules jdk.incubator.vector}, and vectors of at least 256 bits. {@code -Dattn4j.ejml.simd=false}
 * turns it off. The decision, and the sentence that explains it, are made once, when this class is first used.
 */
final class Simd {
    /**
     * F32 attention of at least this many multiply-adds ({@code problems·Lq·Lk·(d_k + d_v)}, about 10 ms on the
     * scalar kernel) is worth the SIMD kernel, so the first such call on the scalar kernel says how to get it.
     */
    static final long ADVICE_WORK = 1L << 28;

    private static final System.Logger LOG = System.getLogger(Simd.class.getName());
    private static final AtomicBoolean ADVISED = new AtomicBoolean();

    /** The system property that turns the SIMD kernel off when {@code false}. */
    static final String PROPERTY = "attn4j.ejml.simd";

    private static final String MODULE = "jdk.incubator.vector";
    private static final int MIN_BITS = 256;

    /**
     * The kernel chosen and why, in one sentence for the provider's availability note.
     *
     * @param simd whether the SIMD kernels run
     * @param note the sentence
     * @param moduleMissing whether only the JVM flag is missing: nothing else stands in the way
     */
    private record Choice(boolean simd, String note, boolean moduleMissing, String error) {
        Choice(boolean simd, String note, boolean moduleMissing) {
            this(simd, note, moduleMissing, null);
        }
    }

    private static final Choice CHOICE = choose();

    private Simd() {
    }

    /** @return whether F32 attention and matrix products use the SIMD kernels */
    static boolean enabled() {
        return CHOICE.simd();
    }

    /** @return why the backend's configuration cannot run (a malformed system property), or null */
    static String configurationError() {
        return CHOICE.error();
    }

    /** @return one sentence for the provider's availability note: which kernel runs and how to change that */
    static String describe() {
        return CHOICE.note();
    }

    /**
     * Logs, once per JVM and at WARNING, how to get the SIMD kernel when F32 attention worth speeding up runs on the
     * scalar kernel only because the JVM was started without {@code --add-modules jdk.incubator.vector}.
     *
     * @param work the call's multiply-adds, {@code problems·Lq·Lk·(d_k + d_v)}
     * @return whether this call logged the advice
     */
    static boolean adviseScalar(long work) {
        if (CHOICE.simd() || !CHOICE.moduleMissing() || work < ADVICE_WORK || !ADVISED.compareAndSet(false, true)) {
            return false;
        }
        LOG.log(System.Logger.Level.WARNING, "attn4j ejml: F32 attention runs on the scalar kernel; start the JVM"
                + " with --add-modules " + MODULE + " for the SIMD kernel, about 4 times faster (said once)");
        return true;
    }

    private static Choice choose() {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return new Choice(false, "F32 attention on the scalar kernel (-D" + PROPERTY + "=false)", false);
        }
        String width = System.getProperty(Vectors.PROPERTY);
        if (width != null && !width.trim().equals("256") && !width.trim().equals("512")) {
            return new Choice(false, "", false, "-D" + Vectors.PROPERTY + "=" + width + " is not a vector width this"
                    + " backend supports; use 256 or 512 (bits), or leave it out for the CPU's preferred width");
        }
        if (ModuleLayer.boot().findModule(MODULE).isEmpty()) {
            return new Choice(false, "F32 attention on the scalar kernel and F32 matmul on EJML; start the JVM with"
                    + " --add-modules " + MODULE + " for the SIMD kernels, several times faster", true);
        }
        int bits = Vectors.F32.vectorBitSize();
        if (bits < MIN_BITS) {
            return new Choice(false, "F32 attention on the scalar kernel: this CPU's vectors are narrower than "
                    + MIN_BITS + " bits", false);
        }
        return new Choice(true, "F32 attention and matmul on " + bits + "-bit SIMD vectors (" + MODULE + ")"
                + (width == null ? "" : ", -D" + Vectors.PROPERTY + "=" + width.trim()), false);
    }
}
