package org.attn4j.cli;

import java.io.PrintWriter;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;

/** The entry point of {@code attn4j.jar}: {@code java -jar attn4j.jar <command> [options]}. */
public final class Main {
    /**
     * attn4j's loggers, held so the level set in {@link #main} is not lost to garbage collection. The commands
     * print the backend choice themselves, so its INFO log line would only repeat it.
     */
    private static final Logger ATTN4J_LOG = Logger.getLogger("org.attn4j");

    private Main() {
    }

    /**
     * Runs one command and exits the JVM with its exit code: 0 ok, 1 failure, 2 usage error.
     *
     * @param args the command line, for example {@code demo --heads 4}
     */
    public static void main(String[] args) {
        Heatmap.useHeadlessGraphics();
        if (System.getProperty("java.util.logging.config.file") == null
                && System.getProperty("java.util.logging.config.class") == null) {
            ATTN4J_LOG.setLevel(Level.WARNING);
        }
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(commandLine(out, err).execute(args));
    }

    /**
     * @param out where results go
     * @param err where errors go
     * @return the {@code attn4j} command with its subcommands, writers and exit-code handlers configured
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return new CommandLine(new Attn4jCommand())
                .setOut(out)
                .setErr(err)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(Failures::onBadInput)
                .setExecutionExceptionHandler(Failures::onFailure);
    }
}
