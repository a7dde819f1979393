package org.attn4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns exceptions into one line on standard error and an exit code: {@link ParameterException} (bad input, also
 * when a command throws it after parsing) gives 2; anything else a command throws gives 1. Expected failures (a
 * backend that cannot run, an I/O error) print their message only; any other exception is a bug and also prints
 * its stack trace.
 */
final class Failures {

    private Failures() {
    }

    static int onBadInput(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        cmd.getErr().println(name + ": " + e.getMessage() + " (see '" + name + " --help')");
        cmd.getErr().flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    static int onFailure(Exception e, CommandLine cmd, ParseResult parsed) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + message);
        if (!(e instanceof IllegalStateException || e instanceof IOException || e instanceof UncheckedIOException)) {
            e.printStackTrace(cmd.getErr());
        }
        cmd.getErr().flush();
        return cmd.getCommandSpec().exitCodeOnExecutionException();
    }
}
