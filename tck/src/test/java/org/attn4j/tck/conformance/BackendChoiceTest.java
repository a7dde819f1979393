package org.attn4j.tck.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.attn4j.api.Backends;
import org.junit.jupiter.api.Test;

/**
 * With the EJML and ND4J jars both on the class path, EJML is the default (it ranks above ND4J, see the root README's
 * backend table) and the property still chooses ND4J.
 */
class BackendChoiceTest {

    @Test
    void ejmlIsTheDefaultWhenBothCpuBackendsArePresent() {
        assumeTrue(System.getenv(Backends.ENVIRONMENT) == null, Backends.ENVIRONMENT + " is set and would choose");
        assumeTrue(Backends.describe().stream().noneMatch(r -> r.priority() > 100 && r.availability().available()),
                "a backend ranked above the CPU ones (a GPU) is available here");
        String previous = System.clearProperty(Backends.PROPERTY);
        try {
            assertEquals("ejml", Backends.load().name());
        } finally {
            if (previous != null) {
                System.setProperty(Backends.PROPERTY, previous);
            }
        }
    }

    @Test
    void systemPropertySelectsNd4jOverTheHigherPriorityEjml() {
        String previous = System.setProperty(Backends.PROPERTY, "nd4j");
        try {
            assertEquals("nd4j", Backends.load().name());
        } finally {
            if (previous == null) {
                System.clearProperty(Backends.PROPERTY);
            } else {
                System.setProperty(Backends.PROPERTY, previous);
            }
        }
    }
}
