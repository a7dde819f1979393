package org.attn4j.backend.nd4j;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
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

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder("cpu").dtypes(DType.F32, DType.F64)
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS)
                .maxThreads(Runtime.getRuntime().availableProcessors()).build();
    }

    @Override
    public Backend create() {
        Availability availability = availability();
        if (!availability.available()) {
            throw new IllegalStateException("The nd4j backend is not usable: " + availability.reason());
        }
        return new Nd4jBackend(capabilities());
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
