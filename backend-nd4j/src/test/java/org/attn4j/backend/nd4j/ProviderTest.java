package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ServiceLoader;
import org.attn4j.api.Availability;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Backends;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.junit.jupiter.api.Test;

class ProviderTest {

    @Test
    void providerIsDiscoveredThroughServiceLoaderWithPriorityBelowEjml() {
        BackendProvider provider = ServiceLoader.load(BackendProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("nd4j")).findFirst().orElseThrow();
        assertEquals(Nd4jBackendProvider.class, provider.getClass());
        assertEquals(50, provider.priority());
        assertTrue(provider.capabilities().supports(DType.F64));
        assertTrue(provider.capabilities().has(Capabilities.Feature.DROPOUT));
    }

    @Test
    void availabilityLoadsTheNativeLibraryAndSaysWhatItFound() {
        Availability a = new Nd4jBackendProvider().availability();
        assertTrue(a.available(), a.reason());
        assertTrue(a.reason().contains("OPENBLAS") || a.reason().contains("BLAS"), a.reason());
        assertTrue(a.reason().contains("-Dattn4j.backend=ejml"), a.reason());
    }

    @Test
    void backendsLoadPicksNd4jWhenItIsTheBestAvailable() {
        assertEquals("nd4j", Backends.load().name());
        assertEquals("nd4j", Backends.load("nd4j").name());
    }

    @Test
    void failureExplanationNamesTheCauseAndTheClassifier() {
        String reason = NativeFailure.explain(new RuntimeException("ND4J is probably missing dependencies",
                new UnsatisfiedLinkError("no jnind4jcpu in java.library.path")));
        assertTrue(reason.contains("no jnind4jcpu"), reason);
        assertTrue(reason.contains("classifier"), reason);
        assertTrue(reason.contains(NativeFailure.platformClassifier()), reason);
        String missing = NativeFailure.explain(new NoClassDefFoundError("org/nd4j/linalg/factory/Nd4j"));
        assertTrue(missing.contains("classes are missing"), missing);
    }
}
