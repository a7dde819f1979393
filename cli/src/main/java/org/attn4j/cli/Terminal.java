package org.attn4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether standard error is a terminal, which decides whether a command draws a progress bar there. Java 17 can
 * only say whether standard input and output both are ({@link System#console()}), so on Linux the answer comes from
 * {@code /proc/self/fd/2} (a {@code /dev/pts/N} or {@code /dev/ttyN} device); elsewhere from the console. The system
 * property {@value #PROPERTY} overrides both; {@link VectorModuleRelaunch} sets it for the JVM it starts, whose
 * standard error is a pipe back to the first one.
 */
final class Terminal {
    /** {@code true} or {@code false}: whether standard error is a terminal, as the caller knows it. */
    static final String PROPERTY = "attn4j.stderr.terminal";

    private Terminal() {
    }

    /** @return whether standard error is a terminal */
    static boolean stderrIsTerminal() {
        String known = System.getProperty(PROPERTY);
        if (known != null) {
            return Boolean.parseBoolean(known);
        }
        try {
            String device = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return System.console() != null;
        }
    }
}
