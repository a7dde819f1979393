package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;

/** The entry point of {@code attn4j.jar}: {@code java -jar attn4j.jar <command> [options]}. */
public final class Main {
    private Main() {
    }

    /**
     * Runs one command and exits the JVM with its exit code: 0 ok, 1 failure, 2 usage error. Started without
     * {@code --add-modules jdk.incubator.vector}, it first runs itself again in a JVM with that module
     * ({@link VectorModuleRelaunch}), so that the EJML backend's SIMD kernel runs.
     *
     * @param args the command line, for example {@code demo --heads 4}
     * @throws IOException if the JVM with the vector module cannot be started
     */
    public static void main(String[] args) throws IOException {
        if (VectorModuleRelaunch.wanted()) {
            Optional<List<String>> command = VectorModuleRelaunch.command(Main.class, args);
            if (command.isPresent()) {
                System.exit(VectorModuleRelaunch.run(command.get(), System.err));
            }
        }
        Heatmap.useHeadlessGraphics();
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
