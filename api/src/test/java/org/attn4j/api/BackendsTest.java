package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BackendsTest {

    @Test
    void highestPriorityAvailableProviderIsChosen() {
        Backends.Discovery d = new Backends.Discovery(List.of(
                new FakeProvider("slow", 10, true), new FakeProvider("gpu", 300, false),
                new FakeProvider("fast", 200, true)));
        BackendSelection s = d.select(null, null, BackendOptions.defaults());
        assertEquals("fast", s.backend().name());
        assertTrue(s.reason().contains("highest priority (200)"), s.reason());
    }

    @Test
    void equalPrioritiesAreBrokenByNameWhateverTheDiscoveryOrder() {
        List<BackendProvider> forward = List.of(new FakeProvider("beta", 5, true), new FakeProvider("alpha", 5, true));
        List<BackendProvider> backward = List.of(forward.get(1), forward.get(0));
        BackendOptions defaults = BackendOptions.defaults();
        assertEquals("alpha", new Backends.Discovery(forward).select(null, null, defaults).backend().name());
        assertEquals("alpha", new Backends.Discovery(backward).select(null, null, defaults).backend().name());
    }

    @Test
    void requestedNameWinsOverPriorityAndIgnoresCase() {
        Backends.Discovery d = new Backends.Discovery(List.of(
                new FakeProvider("low", 1, true), new FakeProvider("high", 9, true)));
        BackendSelection s = d.select("LOW", "requested by test", BackendOptions.defaults());
        assertEquals("low", s.backend().name());
        assertEquals("requested by test", s.reason());
    }

    @Test
    void unknownNameListsEveryProviderAndWhy() {
        Backends.Discovery d = new Backends.Discovery(List.of(
                new FakeProvider("ejml", 100, true), new FakeProvider("cuda", 300, false)));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> d.select("nope", "by property", BackendOptions.defaults()));
        String m = e.getMessage();
        assertTrue(m.contains("Unknown attn4j backend 'nope'"), m);
        assertTrue(m.contains("ejml (priority 100): available"), m);
        assertTrue(m.contains("cuda (priority 300): unavailable — cuda is not here"), m);
    }

    @Test
    void requestingAnUnavailableProviderSaysWhy() {
        Backends.Discovery d = new Backends.Discovery(List.of(new FakeProvider("cuda", 300, false)));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> d.select("cuda", "by env", BackendOptions.defaults()));
        assertTrue(e.getMessage().contains("is not usable: cuda is not here"), e.getMessage());
    }

    @Test
    void noProviderAtAllNamesTheJarToAdd() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Backends.Discovery(List.of()).select(null, null, BackendOptions.defaults()));
        assertTrue(e.getMessage().contains(Backends.DEFAULT_ARTIFACT), e.getMessage());
    }

    @Test
    void noAvailableProviderListsTheUnavailableOnes() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Backends.Discovery(List.of(new FakeProvider("cuda", 300, false)))
                        .select(null, null, BackendOptions.defaults()));
        assertTrue(e.getMessage().startsWith("No usable attn4j backend."), e.getMessage());
        assertTrue(e.getMessage().contains("cuda is not here"), e.getMessage());
    }

    @Test
    void anAvailabilityCheckThatThrowsMakesTheProviderUnavailableWithTheCause() {
        FakeProvider broken = new FakeProvider("broken", 500, true) {
            @Override
            public Availability availability() {
                throw new UnsatisfiedLinkError("no libfoo.so");
            }
        };
        Backends.Discovery d = new Backends.Discovery(List.of(broken, new FakeProvider("ok", 1, true)));
        assertEquals("ok", d.select(null, null, BackendOptions.defaults()).backend().name());
        ProviderReport report = d.reports(null).get(0);
        assertFalse(report.availability().available());
        assertTrue(report.availability().reason().contains("no libfoo.so"), report.availability().reason());
    }

    @Test
    void eachBackendIsCreatedOnceAndAvailabilityCheckedOnce() {
        FakeProvider p = new FakeProvider("one", 1, true);
        Backends.Discovery d = new Backends.Discovery(List.of(p));
        Backend first = d.select(null, null, BackendOptions.defaults()).backend();
        Backend second = d.select("one", "again", BackendOptions.defaults()).backend();
        assertSame(first, second);
        assertEquals(1, p.created.get());
        assertEquals(1, p.checked.get());
    }

    @Test
    void eachThreadCountGetsItsOwnBackendCreatedOnceWithThatCount() {
        FakeProvider p = new FakeProvider("one", 1, true);
        Backends.Discovery d = new Backends.Discovery(List.of(p));
        BackendOptions two = BackendOptions.defaults().withThreads(2);
        Backend first = d.select(null, null, two).backend();
        assertSame(first, d.select("one", "again", BackendOptions.defaults().withThreads(2)).backend());
        Backend three = d.select(null, null, two.withThreads(3)).backend();
        Backend byDefault = d.select(null, null, BackendOptions.defaults()).backend();
        assertEquals(2, first.capabilities().maxThreads());
        assertEquals(3, three.capabilities().maxThreads());
        assertEquals(1, byDefault.capabilities().maxThreads());
        assertEquals(3, p.created.get());
    }

    @Test
    void theThreadsPropertyOverridesTheCountAskedForInCode() {
        FakeProvider p = new FakeProvider("one", 1, true);
        Backends.Discovery d = new Backends.Discovery(List.of(p));
        String previous = System.getProperty(BackendOptions.THREADS_PROPERTY);
        System.setProperty(BackendOptions.THREADS_PROPERTY, "5");
        try {
            Backend b = d.select(null, null, BackendOptions.defaults().withThreads(2)).backend();
            assertEquals(5, b.capabilities().maxThreads());
            assertSame(b, d.select(null, null, BackendOptions.defaults()).backend(), "both ask for 5 threads");
        } finally {
            restore(BackendOptions.THREADS_PROPERTY, previous);
        }
    }

    @Test
    void loadingWithNullOptionsNamesTheArgument() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.load("ejml", null));
        assertTrue(e.getMessage().contains("argument options is null"), e.getMessage());
    }

    @Test
    void aBackendRequestedByNameProbesAndCreatesNoOtherProvider() {
        FakeProvider wanted = new FakeProvider("ejml", 100, true);
        FakeProvider native1 = new FakeProvider("nd4j", 200, true);
        Backends.Discovery d = new Backends.Discovery(List.of(wanted, native1));
        BackendSelection s = d.select("ejml", "requested by test", BackendOptions.defaults());
        assertEquals("ejml", s.backend().name());
        assertEquals(0, native1.checked.get());
        assertEquals(0, native1.created.get());
        assertEquals(List.of("ejml", "nd4j"), s.providers().stream().map(ProviderReport::name).toList());
        assertEquals(1, native1.checked.get());
        assertEquals(0, native1.created.get());
    }

    @Test
    void theDefaultChoiceProbesFromTheHighestPriorityDownAndStopsAtTheFirstAvailable() {
        FakeProvider gpu = new FakeProvider("gpu", 300, false);
        FakeProvider java = new FakeProvider("java", 100, true);
        FakeProvider other = new FakeProvider("other", 100, true);
        FakeProvider slow = new FakeProvider("slow", 50, true);
        Backends.Discovery d = new Backends.Discovery(List.of(slow, other, java, gpu));
        BackendSelection s = d.select(null, null, BackendOptions.defaults());
        assertEquals("java", s.backend().name(), "ties at the top available priority go to the first name");
        assertEquals(1, gpu.checked.get());
        assertEquals(1, java.checked.get());
        assertEquals(0, other.checked.get(), "a provider below the chosen one is never probed");
        assertEquals(0, slow.checked.get(), "a provider below the chosen one is never probed");
    }

    @Test
    void describingProvidersCreatesNoBackend() {
        FakeProvider low = new FakeProvider("low", 1, true);
        FakeProvider high = new FakeProvider("high", 9, true);
        Backends.Discovery d = new Backends.Discovery(List.of(low, high));
        List<ProviderReport> reports = d.describe(null);
        assertEquals(List.of(true, false), reports.stream().map(ProviderReport::selected).toList());
        assertEquals(List.of(false, true), d.describe("low").stream().map(ProviderReport::selected).toList());
        assertEquals(List.of(false, false), d.describe("nope").stream().map(ProviderReport::selected).toList());
        assertEquals(0, low.created.get() + high.created.get());
    }

    @Test
    void reportsAreInNameOrderAndMarkTheSelectedProvider() {
        Backends.Discovery d = new Backends.Discovery(List.of(
                new FakeProvider("zeta", 1, true), new FakeProvider("alpha", 2, true)));
        List<ProviderReport> reports = d.select(null, null, BackendOptions.defaults()).providers();
        assertEquals(List.of("alpha", "zeta"), reports.stream().map(ProviderReport::name).toList());
        assertTrue(reports.get(0).selected());
        assertFalse(reports.get(1).selected());
        assertTrue(reports.get(0).summary().startsWith("alpha (priority 2): available, selected"),
                reports.get(0).summary());
    }

    @Test
    void systemPropertyNamingAMissingBackendFailsThroughTheRealServiceLoader() {
        String previous = System.getProperty(Backends.PROPERTY);
        System.setProperty(Backends.PROPERTY, "nope");
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, Backends::load);
            assertTrue(e.getMessage().contains("'nope' (requested by system property attn4j.backend)"),
                    e.getMessage());
        } finally {
            restore(Backends.PROPERTY, previous);
        }
    }

    private static void restore(String property, String previous) {
        if (previous == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, previous);
        }
    }

    private static class FakeProvider implements BackendProvider {
        final String name;
        final int priority;
        final boolean available;
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger checked = new AtomicInteger();

        FakeProvider(String name, int priority, boolean available) {
            this.name = name;
            this.priority = priority;
            this.available = available;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public Availability availability() {
            checked.incrementAndGet();
            return available ? Availability.available("fine") : Availability.unavailable(name + " is not here");
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder("test").build();
        }

        @Override
        public Backend create(BackendOptions options) {
            created.incrementAndGet();
            int threads = options.resolveThreads(1);
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
                    throw new UnsupportedOperationException("selection tests open no scope");
                }
            };
        }
    }
}
