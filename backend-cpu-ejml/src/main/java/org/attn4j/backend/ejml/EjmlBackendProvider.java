package org.attn4j.backend.ejml;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;

/**
 * The pure-Java backend: tensors on the Java heap ({@code float[]} / {@code double[]}), matrix products by EJML,
 * and a fused, tiled attention kernel. It needs no native code, so it is always available; with priority 100, above
 * ND4J (50) and below CUDA (300), it is the default CPU backend (the root README's backend table says why).
 * Select it explicitly with {@code -Dattn4j.backend=ejml}.
 *
 * <p>Its ops run on the calling thread and one worker pool per backend ({@code Parallel}), together as
 * many threads as {@link BackendOptions#resolveThreads(int)} gives (by default every processor); no op uses any other
 * thread, EJML's own global pool included.
 */
public final class EjmlBackendProvider implements BackendProvider {

    /** The name users select this backend by. */
    public static final String NAME = "ejml";

    /** The rank among available providers. */
    public static final int PRIORITY = 100;

    /** Creates the provider; cheap, starts no threads. */
    public EjmlBackendProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * @return available (pure Java on EJML, with the number of threads an op may use and the F32 kernels) unless a
     *     system property of this backend holds a value it does not support, which it names
     */
    @Override
    public Availability availability() {
        String error = Simd.configurationError();
        if (error != null) {
            return Availability.unavailable(error);
        }
        String threads;
        try {
            threads = threads(BackendOptions.defaults()) + " threads";
        } catch (IllegalArgumentException e) {
            threads = "no thread count: " + e.getMessage();
        }
        return Availability.available("pure Java on EJML, " + threads + "; " + Simd.describe());
    }

    /** @return what a backend created with {@link BackendOptions#defaults()} can do */
    @Override
    public Capabilities capabilities() {
        return capabilities(threads(BackendOptions.defaults()));
    }

    /** @return a new backend; the first one of a JVM also starts compiling the SIMD kernels ({@link Warmup}) */
    @Override
    public Backend create(BackendOptions options) {
        Capabilities capabilities = capabilities(threads(options));
        Warmup.start(capabilities);
        return new EjmlBackend(NAME, capabilities);
    }

    private static Capabilities capabilities(int threads) {
        return Capabilities.builder("cpu").dtypes(DType.F32, DType.F64).weightTypes(WeightType.F32, WeightType.F64,
                        WeightType.F16, WeightType.BF16, WeightType.Q8_0, WeightType.Q4_0)
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS,
                        Feature.BATCH_INVARIANT)
                .maxThreads(threads).build();
    }

    private static int threads(BackendOptions options) {
        return options.resolveThreads(Runtime.getRuntime().availableProcessors());
    }
}
