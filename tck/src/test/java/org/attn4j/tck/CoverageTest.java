package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.attn4j.api.Ops;
import org.junit.jupiter.api.Test;

class CoverageTest {

    @Test
    void everyOpOfTheApiHasGoldenCases() {
        Set<String> golden = GoldenFixtures.classpath().cases().stream()
                .filter(c -> GoldenSuite.GROUPS.contains(c.group())).map(GoldenCase::op).collect(Collectors.toSet());
        Set<String> missing = new TreeSet<>();
        for (Method m : Ops.class.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers()) && !m.getName().equals("scope") && !golden.contains(m.getName())) {
                missing.add(m.getName());
            }
        }
        assertEquals(Set.of(), missing, "Ops methods without a golden case");
    }
}
