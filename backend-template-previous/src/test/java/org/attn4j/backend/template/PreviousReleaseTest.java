package org.attn4j.backend.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.junit.jupiter.api.Test;

/**
 * The fixture stays the previous release's provider: it declares {@code create()} and not
 * {@code create(BackendOptions)}, and today's api creates it through either.
 */
class PreviousReleaseTest {

    @Test
    void theProviderDeclaresCreateWithoutOptionsOnly() throws NoSuchMethodException {
        assertEquals(NaiveBackendProvider.class, NaiveBackendProvider.class.getDeclaredMethod("create")
                .getDeclaringClass());
        assertThrows(NoSuchMethodException.class,
                () -> NaiveBackendProvider.class.getDeclaredMethod("create", BackendOptions.class));
    }

    @Test
    void todaysApiCreatesItThroughTheOptionsMethodWithAnyThreadCount() {
        BackendProvider provider = new NaiveBackendProvider();
        assertEquals(NaiveBackendProvider.NAME, provider.create(BackendOptions.defaults()).name());
        assertEquals(1, provider.create(BackendOptions.defaults().withThreads(2)).capabilities().maxThreads());
    }
}
