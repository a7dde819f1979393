package org.attn4j.tck.conformance;

import org.attn4j.api.BackendProvider;
import org.attn4j.backend.nd4j.Nd4jBackendProvider;
import org.attn4j.tck.BackendTck;

class Nd4jConformanceTest extends BackendTck {

    @Override
    protected BackendProvider provider() {
        return new Nd4jBackendProvider();
    }
}
