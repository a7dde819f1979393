package org.attn4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs {@code attn4j} in-process, as {@link Main} would, and captures what it prints.
 *
 * @param exitCode what {@code main} would exit with
 * @param out standard output
 * @param err standard error
 */
record Cli(int exitCode, String out, String err) {

    static Cli run(String... args) {
        Heatmap.useHeadlessGraphics();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    /** @return everything printed, for assertion messages */
    String transcript() {
        return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
