package org.attn4j.tck;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;

/**
 * The base of the providers that tests compile into a jar of their own, as a third party ships a backend: the
 * subclass and its service file live in that jar, loaded by a class loader of its own; the backend it creates is
 * EJML declaring F32 only, under the subclass's name. Public, so that a class of another package and loader can
 * extend it.
 */
public abstract class JarBackendProvider implements BackendProvider {
    private final String name;

    /** @param name the backend's name */
    protected JarBackendProvider(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int priority() {
        return 5;
    }

    @Override
    public Availability availability() {
        return Availability.available("a test backend from a jar of its own, over ejml");
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder("cpu").build();
    }

    @Override
    public Backend create(BackendOptions options) {
        return new ForwardingBackend(name, TestBackends.EJML, capabilities(), ops -> ops);
    }
}
