package org.attn4j.backend.template;

import org.attn4j.tck.BackendTck;

/**
 * The whole kit against the template, as the tck README's recipe has a third party run it: named, so that the kit
 * finds the provider through its service file as {@code Backends} does.
 */
class NaiveConformanceTest extends BackendTck {
    NaiveConformanceTest() {
        super(NaiveBackendProvider.NAME);
    }
}
