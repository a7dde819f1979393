package org.attn4j.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.RunLast;

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
            OptionalInt exit = VectorModuleRelaunch.relaunch(Main.class, args, System.err);
            if (exit.isPresent()) {
                System.exit(exit.getAsInt());
            }
        }
        Heatmap.useHeadlessGraphics();
        CommandLog.useOneLineFormat();
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        System.exit(commandLine(out, err).execute(args));
    }

    /**
     * @param out where results go (UTF-8 when run by {@link #main})
     * @param err where errors go
     * @return the {@code attn4j} command with its subcommands, writers and exit-code handlers configured
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return new CommandLine(new Attn4jCommand())
                .setOut(out)
                .setErr(err)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionStrategy(Main::withBackendJars)
                .setParameterExceptionHandler(Failures::onBadInput)
                .setExecutionExceptionHandler(Failures::onFailure);
    }

    /**
     * Runs the command with the backend jars of {@code --backend-jar} (given on any command of the line) and of the
     * folder next to {@code attn4j.jar} visible to {@link org.attn4j.api.Backends}, through the thread's context
     * class loader, which is restored afterwards.
     */
    private static int withBackendJars(ParseResult parsed) {
        List<String> named = new ArrayList<>();
        CommandLine innermost = parsed.commandSpec().commandLine();
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            innermost = p.commandSpec().commandLine();
            OptionSpec option = p.matchedOption(Attn4jCommand.BACKEND_JAR);
            if (option != null) {
                named.addAll(option.originalStringValues());
            }
        }
        Optional<BackendJars> jars;
        try {
            jars = BackendJars.open(named.stream().map(Path::of).toList(), BackendJars.folderNextToJar());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(innermost, e.getMessage());
        }
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try {
            jars.ifPresent(j -> thread.setContextClassLoader(j.loader()));
            return new RunLast().execute(parsed);
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
