package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.ProviderReport;
import org.junit.jupiter.api.Test;

class DiscoveryTest {

    @Test
    void backendsLoadFindsEjmlThroughServiceLoader() {
        Backend backend = Backends.load("ejml");
        assertEquals("ejml", backend.name());
        assertTrue(Backends.describe().stream().map(ProviderReport::name).anyMatch("ejml"::equals));
    }

    @Test
    void providerIsAlwaysAvailableAndReportsItsCapabilities() {
        EjmlBackendProvider provider = new EjmlBackendProvider();
        assertTrue(provider.availability().available());
        assertTrue(provider.availability().reason().contains("threads"), provider.availability().reason());
        assertEquals(100, provider.priority());
        Capabilities c = provider.capabilities();
        assertEquals("cpu", c.device());
        assertTrue(c.supports(DType.F32) && c.supports(DType.F64));
        assertTrue(c.has(Feature.DROPOUT) && c.has(Feature.ATTENTION_WEIGHTS));
        assertEquals(Runtime.getRuntime().availableProcessors(), c.maxThreads());
    }
}
