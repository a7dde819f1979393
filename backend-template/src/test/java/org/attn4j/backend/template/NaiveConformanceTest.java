package org.attn4j.backend.template;

import org.attn4j.api.BackendProvider;
import org.attn4j.tck.BackendTck;

/** The whole kit against the template, as the tck README's recipe has a third party run it. */
class NaiveConformanceTest extends BackendTck {
    @Override
    protected BackendProvider provider() {
        return new NaiveBackendProvider();
    }
}
