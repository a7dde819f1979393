package org.attn4j.backend.template;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;

/**
 * The provider of {@code naive}, the smallest backend that passes the TCK: plain loops over {@code double[]}, one
 * thread, no library. It is a template to copy, not a backend to run: its priority, 1, is below every real one, so
 * {@code Backends.load()} picks it only by name ({@code -Dattn4j.backend=naive}).
 */
public final class NaiveBackendProvider implements BackendProvider {
    /** The provider's name. */
    public static final String NAME = "naive";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 1;
    }

    @Override
    public Availability availability() {
        return Availability.available("pure Java loops over double[], one thread (a template, not for speed)");
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder("cpu").dtypes(DType.F32, DType.F64)
                .features(Capabilities.Feature.DROPOUT, Capabilities.Feature.ATTENTION_WEIGHTS).build();
    }

    @Override
    public Backend create() {
        return new NaiveBackend(capabilities());
    }
}
