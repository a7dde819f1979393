package org.attn4j.backend.nd4j;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;

/**
 * The ND4J backend's service entry, found through {@code META-INF/services}. Its priority, 50, is below the pure
 * Java EJML backend's 100: on the workloads measured (sentence encoders of one short text, decoding, attention) EJML
 * is faster, and it needs no native library, so ND4J runs only when asked for ({@code -Dattn4j.backend=nd4j},
 * {@code ATTN4J_BACKEND=nd4j}). The measurements behind the ranks are in the root README's backend table, the one
 * place where the ranks are decided.
 *
 * <p>Constructing the provider touches no ND4J class. {@link #availability()} loads ND4J's native library once per
 * class loader, checks that the CPU has the instructions the binary was built for, and reports any failure with the
 * fix instead of throwing.
 *
 * <p>Threads: {@link BackendOptions#resolveThreads(int)} (by default OpenBLAS's count as ND4J started it: every
 * processor, or {@code OPENBLAS_NUM_THREADS}) sets libnd4j's and OpenBLAS's thread counts, which ND4J keeps one per
 * process ({@link NativeThreads}): the last nd4j backend created sets them for every nd4j backend of the JVM, and
 * each reports the count in force. {@link #capabilities()}, which loads nothing, counts every processor.
 */
public final class Nd4jBackendProvider implements BackendProvider {
    /** The name users select this backend by. */
    static final String NAME = "nd4j";
    /** Below EJML (100): see the root README's backend table for why. */
    static final int PRIORITY = 50;

    /** Cheap; loads nothing. */
    public Nd4jBackendProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Availability availability() {
        return Probe.RESULT;
    }

    /** @return what a backend created with {@link BackendOptions#defaults()} can do */
    @Override
    public Capabilities capabilities() {
        return capabilities(BackendOptions.defaults().resolveThreads(Runtime.getRuntime().availableProcessors()));
    }

    @Override
    public Backend create(BackendOptions options) {
        Availability availability = availability();
        if (!availability.available()) {
            throw new IllegalStateException("The nd4j backend is not usable: " + availability.reason());
        }
        NativeThreads.apply(capabilities(options.resolveThreads(NativeThreads.startingCount())));
        return new Nd4jBackend();
    }

    private static Capabilities capabilities(int threads) {
        return Capabilities.builder("cpu").dtypes(DType.F32, DType.F64)
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS)
                .maxThreads(threads).build();
    }

    /** Runs the native check once, on first use, and keeps its answer. */
    private static final class Probe {
        static final Availability RESULT = run();

        private static Availability run() {
            try {
                return NativeRuntime.check();
            } catch (LinkageError | RuntimeException e) {
                return Availability.unavailable(NativeFailure.explain(e));
            }
        }
    }
}
