package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class VectorModuleRelaunchTest {

    @Test
    void theCommandIsThisJvmWithTheVectorModuleThenTheClassPathMainClassAndArguments() {
        List<String> command = VectorModuleRelaunch.command(Main.class, new String[] {"demo", "--heads", "2"})
                .orElseThrow();
        int cp = command.indexOf("-cp");
        assertEquals(List.of("--add-modules", "jdk.incubator.vector"), command.subList(cp - 2, cp));
        assertEquals(List.of(System.getProperty("java.class.path"), Main.class.getName(), "demo", "--heads", "2"),
                command.subList(cp + 1, command.size()));
    }

    @Test
    void theRelaunchedJvmRunsWithTheModuleAndItsIncubatorWarningIsDropped() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int exit = VectorModuleRelaunch.run(List.of(java, "--add-modules", "jdk.incubator.vector",
                "-version"), new PrintStream(err, true, StandardCharsets.UTF_8));

        String printed = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, printed);
        assertTrue(printed.contains(Runtime.version().feature() + "."), printed);
        assertFalse(printed.contains("Using incubator modules"), printed);
    }

    @Test
    void aJvmThatAlreadyHasTheModuleIsNotRelaunched() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            assertFalse(VectorModuleRelaunch.wanted());
        } else {
            assertTrue(VectorModuleRelaunch.wanted() || System.getenv(VectorModuleRelaunch.MARKER) != null
                    || !Boolean.parseBoolean(System.getProperty(VectorModuleRelaunch.PROPERTY, "true")));
        }
    }
}
