package org.attn4j.cli;

import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * The load and first-call times of a command's model, logged at INFO through {@link System.Logger} (logger
 * {@code org.attn4j.cli.CommandLog}), one line each, for example
 * {@code attn4j embed: all-MiniLM-L6-v2 (embedded) loaded in 812 ms} and
 * {@code attn4j embed: first call (3 texts) took 41 ms}. {@link Main} gives the JDK's logging a one-line format unless
 * the user configured it ({@link #useOneLineFormat}).
 */
final class CommandLog {
    private static final System.Logger LOG = System.getLogger(CommandLog.class.getName());
    private static final String FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";

    private CommandLog() {
    }

    /**
     * @param command the command's name, for example {@code attn4j embed}
     * @param model what was loaded
     * @param startNanos {@link System#nanoTime()} when loading began
     */
    static void loaded(String command, String model, long startNanos) {
        long ms = (System.nanoTime() - startNanos) / 1_000_000;
        LOG.log(Level.INFO, () -> String.format(Locale.ROOT, "%s: %s loaded in %d ms", command, model, ms));
    }

    /**
     * @param command the command's name
     * @param size what the first call did, for example {@code 3 texts}
     * @param startNanos {@link System#nanoTime()} when it began
     */
    static void firstCall(String command, String size, long startNanos) {
        long ms = (System.nanoTime() - startNanos) / 1_000_000;
        LOG.log(Level.INFO, () -> String.format(Locale.ROOT, "%s: first call (%s) took %d ms", command, size, ms));
    }

    /**
     * Gives {@code java.util.logging}'s console lines one line each ({@code INFO: message}) instead of its default
     * two (a date and the source, then the message), unless a format or a logging configuration file is set.
     */
    static void useOneLineFormat() {
        if (System.getProperty(FORMAT_PROPERTY) == null && System.getProperty("java.util.logging.config.file") == null
                && System.getProperty("java.util.logging.config.class") == null) {
            System.setProperty(FORMAT_PROPERTY, "%4$s: %5$s%6$s%n");
        }
    }
}
