package org.attn4j.cli;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;

/**
 * A provider that is never usable, registered for the tests only, so that every machine shows an unavailable
 * backend with its reason (the CUDA backend is available on some machines). Its priority is the highest, to show
 * that selection skips unavailable providers.
 */
public final class UnpluggedProvider implements BackendProvider {
    static final String NAME = "unplugged";
    static final String REASON = "a test double that is never usable; plug nothing in to fix it";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 1000;
    }

    @Override
    public Availability availability() {
        return Availability.unavailable(REASON);
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder("none").build();
    }

    @Override
    public Backend create(BackendOptions options) {
        throw new IllegalStateException("unplugged: create() called although availability() said unavailable");
    }
}
