package org.attn4j.tck.conformance;

import org.attn4j.api.BackendProvider;
import org.attn4j.backend.ejml.EjmlBackendProvider;
import org.attn4j.tck.BackendTck;

class EjmlConformanceTest extends BackendTck {

    @Override
    protected BackendProvider provider() {
        return new EjmlBackendProvider();
    }
}
