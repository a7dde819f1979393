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
        List<String> command = VectorModuleRelaunch.command(
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments(), Main.class,
                new String[] {"demo", "--heads", "2"});
        int cp = command.indexOf("-cp");
        assertEquals(List.of("--add-modules", "jdk.incubator.vector"), command.subList(cp - 2, cp));
        assertTrue(command.contains("-D" + Terminal.PROPERTY + "=" + Terminal.stderrIsTerminal())
                || System.getProperty(Terminal.PROPERTY) != null, command.toString());
        assertEquals(List.of(System.getProperty("java.class.path"), Main.class.getName(), "demo", "--heads", "2"),
                command.subList(cp + 1, command.size()));
    }

    @Test
    void aClassDataArchivesOptionsFollowTheJvmsOwnAndPrecedeTheVectorModule() {
        List<String> extra = List.of("-XX:SharedArchiveFile=/cache/a.jsa", "-Xlog:cds=off");
        List<String> command = VectorModuleRelaunch.command(List.of("-Xmx1g"), 17, extra, Main.class,
                new String[] {"embed"});
        assertEquals("-Xmx1g", command.get(1));
        assertEquals(extra, command.subList(2, 4));
        assertTrue(command.indexOf("--add-modules") > 3, command.toString());
    }

    @Test
    void theRelaunchedJvmKeepsItsHeapNearWhatItHoldsUnlessTheOptionsChooseAHeapLayout() {
        String[] args = {"generate"};
        List<String> plain = VectorModuleRelaunch.command(List.of("-Xmx4g"), Main.class, args);
        assertEquals(List.of("-Xmx4g", "-XX:+UseSerialGC", "-Xmn32m"), plain.subList(1, 4));
        for (String chosen : List.of("-XX:+UseG1GC", "-XX:+UseZGC", "-Xmn256m", "-XX:MaxNewSize=64m")) {
            List<String> command = VectorModuleRelaunch.command(List.of(chosen), Main.class, args);
            assertEquals(chosen, command.get(1), chosen);
            assertFalse(command.contains("-XX:+UseSerialGC") || command.contains("-Xmn32m"), chosen + ": " + command);
        }
    }

    @Test
    void theRelaunchedJvmEnablesNativeAccessAndUnsafeMemoryAccessWhereItsJdkHasTheOptions() {
        assertEquals(List.of(), VectorModuleRelaunch.accessOptions(21));
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED"), VectorModuleRelaunch.accessOptions(22));
        List<String> both = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
        assertEquals(both, VectorModuleRelaunch.accessOptions(25));

        String[] args = {"backends"};
        List<String> command = VectorModuleRelaunch.command(List.of(), 25, Main.class, args);
        List<String> options = command.subList(1, command.indexOf("--add-modules"));
        assertTrue(options.containsAll(both), options.toString());
        List<String> onJava17 = VectorModuleRelaunch.command(List.of(), 17, Main.class, args);
        assertFalse(onJava17.stream().anyMatch(o -> o.startsWith("--enable-native-access")
                || o.startsWith("--sun-misc")), onJava17.subList(0, onJava17.indexOf("-cp")).toString());
    }

    @Test
    void anAccessOptionTheUserSetIsKeptAndNotRepeated() {
        List<String> own = List.of("--sun-misc-unsafe-memory-access=warn", "--enable-native-access=M");
        List<String> command = VectorModuleRelaunch.command(own, 25, Main.class, new String[] {"backends"});
        List<String> options = command.subList(1, command.indexOf("-cp"));
        assertEquals(1, options.stream().filter(o -> o.startsWith("--sun-misc-unsafe-memory-access")).count(),
                options.toString());
        assertEquals(1, options.stream().filter(o -> o.startsWith("--enable-native-access")).count(),
                options.toString());
        assertEquals(own, options.subList(0, 2));
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
    void standardErrorIsCopiedAsItComesWithoutTheWarningLineOnly() {
        String warning = "WARNING: Using incubator modules: jdk.incubator.vector";
        String in = warning + "\nWARNING: something else\n  10 texts\r  20 texts\rWARNING: Using incubator\n"
                + warning + "\r\nlast";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        VectorModuleRelaunch.copyWithoutIncubatorWarning(
                new java.io.ByteArrayInputStream(in.getBytes(java.nio.charset.Charset.defaultCharset())), out);
        assertEquals("WARNING: something else\n  10 texts\r  20 texts\rWARNING: Using incubator\nlast",
                out.toString(java.nio.charset.Charset.defaultCharset()));
    }

    @Test
    void aProgressLineReachesTheParentBeforeItsLineEnds() throws Exception {
        java.io.PipedOutputStream child = new java.io.PipedOutputStream();
        java.io.PipedInputStream fromChild = new java.io.PipedInputStream(child);
        java.util.concurrent.LinkedBlockingQueue<Integer> seen = new java.util.concurrent.LinkedBlockingQueue<>();
        OutputStreamProbe probe = new OutputStreamProbe(seen);
        Thread copier = new Thread(() -> VectorModuleRelaunch.copyWithoutIncubatorWarning(fromChild, probe));
        copier.start();
        child.write("\r  42 texts".getBytes(StandardCharsets.US_ASCII));
        child.flush();
        StringBuilder got = new StringBuilder();
        while (got.length() < "\r  42 texts".length()) {
            Integer b = seen.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(b != null, "only '" + got + "' arrived while the line was still open");
            got.append((char) b.intValue());
        }
        child.close();
        copier.join();
        assertEquals("\r  42 texts", got.toString());
    }

    /** Hands on every byte written. */
    private static final class OutputStreamProbe extends java.io.OutputStream {
        private final java.util.concurrent.BlockingQueue<Integer> seen;

        OutputStreamProbe(java.util.concurrent.BlockingQueue<Integer> seen) {
            this.seen = seen;
        }

        @Override
        public void write(int b) {
            seen.add(b & 0xff);
        }
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
