package org.attn4j.api;

/**
 * A place where tensors live and ops run: the Java heap, a native library, a GPU. Obtain one from
 * {@link Backends#load()}. A backend is thread-safe: many threads may open and use their own scopes at once.
 */
public interface Backend {

    /** @return the provider's name, for example {@code "ejml"} */
    String name();

    /** @return what this backend can do */
    Capabilities capabilities();

    /** @return a new, open scope; close it to free the tensors it owns */
    Scope newScope();
}
