package org.attn4j.backend.template;

import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;

/** The backend: stateless, so thread-safe; each scope holds its own tensors. */
final class NaiveBackend implements Backend {
    private final Capabilities capabilities;

    NaiveBackend(Capabilities capabilities) {
        this.capabilities = capabilities;
    }

    @Override
    public String name() {
        return NaiveBackendProvider.NAME;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public Scope newScope() {
        return new NaiveScope(this);
    }
}
