package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BackendOptionsTest {

    private String previous;

    @BeforeEach
    void noThreadsPropertyToStartWith() {
        previous = System.getProperty(BackendOptions.THREADS_PROPERTY);
        System.clearProperty(BackendOptions.THREADS_PROPERTY);
    }

    @AfterEach
    void restoreTheThreadsProperty() {
        if (previous == null) {
            System.clearProperty(BackendOptions.THREADS_PROPERTY);
        } else {
            System.setProperty(BackendOptions.THREADS_PROPERTY, previous);
        }
    }

    @Test
    void theDefaultsLeaveTheCountToTheBackend() {
        BackendOptions defaults = BackendOptions.defaults();
        assertEquals(OptionalInt.empty(), defaults.threads());
        if (System.getenv(BackendOptions.THREADS_ENVIRONMENT) == null) {
            assertEquals(7, defaults.resolveThreads(7));
        }
    }

    @Test
    void aCountSetInCodeIsUsedAndLeavesTheOriginalUnchanged() {
        BackendOptions defaults = BackendOptions.defaults();
        BackendOptions two = defaults.withThreads(2);
        assertEquals(OptionalInt.of(2), two.threads());
        assertEquals(OptionalInt.empty(), defaults.threads());
        if (System.getenv(BackendOptions.THREADS_ENVIRONMENT) == null) {
            assertEquals(2, two.resolveThreads(16));
        }
        assertEquals(two, BackendOptions.defaults().withThreads(2));
        assertEquals(two.hashCode(), BackendOptions.defaults().withThreads(2).hashCode());
        assertNotEquals(two, two.withThreads(3));
        assertEquals("BackendOptions[threads=2]", two.toString());
    }

    @Test
    void theSystemPropertyWinsOverTheCountSetInCode() {
        System.setProperty(BackendOptions.THREADS_PROPERTY, " 3 ");
        assertEquals(3, BackendOptions.defaults().withThreads(2).resolveThreads(16));
        assertEquals(3, BackendOptions.defaults().resolveThreads(16));
    }

    @Test
    void aBlankPropertyCountsAsUnset() {
        System.setProperty(BackendOptions.THREADS_PROPERTY, " ");
        if (System.getenv(BackendOptions.THREADS_ENVIRONMENT) == null) {
            assertEquals(4, BackendOptions.defaults().withThreads(4).resolveThreads(16));
        }
    }

    @Test
    void countsOutOfRangeAreRefusedWithTheArgumentAndTheValue() {
        for (int bad : new int[] {0, -1, BackendOptions.MAX_THREADS + 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BackendOptions.defaults().withThreads(bad));
            assertEquals("BackendOptions: argument threads is " + bad + "; it must be from 1 to "
                    + BackendOptions.MAX_THREADS, e.getMessage());
        }
        assertEquals(BackendOptions.MAX_THREADS,
                BackendOptions.defaults().withThreads(BackendOptions.MAX_THREADS).threads().getAsInt());
    }

    @Test
    void aMalformedPropertyIsRefusedByNameWithItsValue() {
        for (String bad : new String[] {"two", "0", "-4", "1.5", "99999999999"}) {
            System.setProperty(BackendOptions.THREADS_PROPERTY, bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BackendOptions.defaults().withThreads(2).resolveThreads(4), bad);
            assertTrue(e.getMessage().startsWith("the system property attn4j.threads is "), e.getMessage());
            assertTrue(e.getMessage().contains("it must be"), e.getMessage());
        }
    }

    @Test
    void aBackendDefaultBelowOneIsABackendBug() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BackendOptions.defaults().resolveThreads(0));
        assertTrue(e.getMessage().contains("backendDefault is 0"), e.getMessage());
    }
}
