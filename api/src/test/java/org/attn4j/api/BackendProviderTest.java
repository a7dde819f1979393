package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code create()} and {@code create(BackendOptions)} are both defaults over each other, so that a provider written
 * against either api keeps compiling and creating its backend; one that implements neither is told so.
 */
class BackendProviderTest {

    @Test
    void aProviderThatImplementsCreateAloneIsCreatedThroughTheOptionsMethod() {
        LegacyProvider provider = new LegacyProvider("legacy", 3);
        Backend backend = provider.create(BackendOptions.defaults());
        assertEquals("legacy", backend.name());
        assertEquals(List.of("create()"), provider.calls);
    }

    @Test
    void aProviderThatImplementsCreateAloneAcceptsItsOwnThreadCount() {
        LegacyProvider provider = new LegacyProvider("legacy", 3);
        assertEquals(3, provider.create(BackendOptions.defaults().withThreads(3)).capabilities().maxThreads());
    }

    @Test
    void aOneThreadProviderThatImplementsCreateAloneAcceptsAnyThreadCountAndKeepsOne() {
        LegacyProvider provider = new LegacyProvider("loops", 1);
        assertEquals(1, provider.create(BackendOptions.defaults().withThreads(4)).capabilities().maxThreads());
    }

    @Test
    void aProviderThatImplementsCreateAloneRefusesAThreadCountItCannotTake() {
        LegacyProvider provider = new LegacyProvider("legacy", 3);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> provider.create(BackendOptions.defaults().withThreads(2)));
        String m = e.getMessage();
        assertTrue(m.contains("provider legacy"), m);
        assertTrue(m.contains("implements create() alone"), m);
        assertTrue(m.contains("runs with 3 threads"), m);
        assertTrue(m.contains("asks for 2"), m);
        assertTrue(m.contains("implement create(BackendOptions)"), m);
        assertEquals(List.of(), provider.calls, "nothing is created before the count is refused");
    }

    @Test
    void backendsSelectAProviderThatImplementsCreateAlone() {
        LegacyProvider provider = new LegacyProvider("legacy", 1);
        BackendSelection s = new Backends.Discovery(List.of(provider)).select(null, null, BackendOptions.defaults());
        assertEquals("legacy", s.backend().name());
        assertEquals(List.of("create()"), provider.calls);
    }

    @Test
    void createWithoutOptionsCallsTheOptionsMethodWithTheDefaults() {
        List<BackendOptions> seen = new ArrayList<>();
        BackendProvider provider = new Named("current") {
            @Override
            public Backend create(BackendOptions options) {
                seen.add(options);
                return backend("current", 2);
            }
        };
        assertEquals("current", provider.create().name());
        assertEquals(List.of(BackendOptions.defaults()), seen);
    }

    @Test
    void aProviderThatImplementsNeitherCreateSaysSoInsteadOfRecursing() {
        BackendProvider provider = new Named("empty");
        for (Runnable call : List.<Runnable>of(provider::create, () -> provider.create(BackendOptions.defaults()))) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, call::run);
            String m = e.getMessage();
            assertTrue(m.contains("provider empty"), m);
            assertTrue(m.contains("implements neither create(BackendOptions) nor create()"), m);
        }
    }

    @Test
    void nullOptionsAreRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LegacyProvider("legacy", 1).create(null));
        assertTrue(e.getMessage().contains("argument options is null"), e.getMessage());
    }

    private static Backend backend(String name, int threads) {
        return new Backend() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Capabilities capabilities() {
                return Capabilities.builder("test").maxThreads(threads).build();
            }

            @Override
            public Scope newScope() {
                throw new UnsupportedOperationException("these tests open no scope");
            }
        };
    }

    /** A provider with a name and neither create method. */
    private static class Named implements BackendProvider {
        private final String name;
        private final int threads;

        Named(String name) {
            this(name, 1);
        }

        Named(String name, int threads) {
            this.name = name;
            this.threads = threads;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return 1;
        }

        @Override
        public Availability availability() {
            return Availability.available("here");
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder("test").maxThreads(threads).build();
        }
    }

    /** A provider as the api before {@link BackendOptions} asked for: {@code create()} alone. */
    private static final class LegacyProvider extends Named {
        final List<String> calls = new ArrayList<>();

        LegacyProvider(String name, int threads) {
            super(name, threads);
        }

        @Override
        public Backend create() {
            calls.add("create()");
            return backend(name(), capabilities().maxThreads());
        }
    }
}
