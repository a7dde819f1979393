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
    void theRelaunchedJvmKeepsItsHeapNearWhatItHoldsUnlessTheOptionsChooseAHeapLayout() {
        String[] args = {"generate"};
        List<String> plain = VectorModuleRelaunch.command(List.of("-Xmx4g"), Main.class, args);
        assertEquals(List.of("-Xmx4g", "-XX:+UseSerialGC", "-Xmn32m"), plain.subList(1, 4));
        for (String chosen : List.of("-XX:+UseG1GC", "-XX:+UseZGC", "-Xmn256m", "-XX:MaxNewSize=64m")) {
            List<String> command = VectorModuleRelaunch.command(List.of(chosen), Main.class, args);
            assertEquals(List.of(chosen, "--add-modules"), command.subList(1, 3), chosen);
        }
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
