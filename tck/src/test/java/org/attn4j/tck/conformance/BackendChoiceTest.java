package org.attn4j.tck.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.attn4j.api.Backends;
import org.junit.jupiter.api.Test;

/** With the EJML and ND4J jars both on the class path, ND4J is the default and the property still chooses. */
class BackendChoiceTest {

    @Test
    void nd4jIsTheDefaultWhenBothCpuBackendsArePresent() {
        assumeTrue(System.getenv(Backends.ENVIRONMENT) == null, Backends.ENVIRONMENT + " is set and would choose");
        String previous = System.clearProperty(Backends.PROPERTY);
        try {
            assertEquals("nd4j", Backends.load().name());
        } finally {
            if (previous != null) {
                System.setProperty(Backends.PROPERTY, previous);
            }
        }
    }

    @Test
    void systemPropertySelectsEjmlOverTheHigherPriorityNd4j() {
        String previous = System.setProperty(Backends.PROPERTY, "ejml");
        try {
            assertEquals("ejml", Backends.load().name());
        } finally {
            if (previous == null) {
                System.clearProperty(Backends.PROPERTY);
            } else {
                System.setProperty(Backends.PROPERTY, previous);
            }
        }
    }
}
