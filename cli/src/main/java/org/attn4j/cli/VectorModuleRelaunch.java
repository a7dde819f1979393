package org.attn4j.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleFinder;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts {@code attn4j.jar} again with {@code --add-modules jdk.incubator.vector} when the JVM was started without
 * it, so that {@code java -jar attn4j.jar …} runs the EJML backend's SIMD attention kernel (several times faster in
 * F32) without the user typing a flag. A jar's manifest cannot add a module to the boot layer ({@code Add-Opens}
 * and {@code Launcher-Agent-Class} act after it is resolved), so the only way is a second JVM: same {@code java}
 * executable, same JVM options, same class path and arguments, standard input and output inherited, and the exit
 * code passed through. The JDK's {@code WARNING: Using incubator modules} line is dropped from its standard error.
 *
 * <p>Nothing is relaunched when the module is already resolved, when the JDK has no such module, under
 * {@code -Dattn4j.relaunch=false}, under {@code -Dattn4j.ejml.simd=false} (the SIMD kernel is off anyway), or in
 * the relaunched JVM itself ({@value #MARKER} is set in its environment).
 */
final class VectorModuleRelaunch {
    /** The system property that turns the relaunch off when {@code false}. */
    static final String PROPERTY = "attn4j.relaunch";
    /** Set in the relaunched JVM's environment, so that it never relaunches again. */
    static final String MARKER = "ATTN4J_RELAUNCHED";

    private static final String MODULE = "jdk.incubator.vector";
    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: " + MODULE;

    private VectorModuleRelaunch() {
    }

    /** @return whether this JVM lacks the vector module that its JDK has, and may be relaunched with it */
    static boolean wanted() {
        return Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))
                && Boolean.parseBoolean(System.getProperty("attn4j.ejml.simd", "true"))
                && System.getenv(MARKER) == null
                && ModuleLayer.boot().findModule(MODULE).isEmpty()
                && ModuleFinder.ofSystem().find(MODULE).isPresent();
    }

    /**
     * @param mainClass the class whose {@code main} the new JVM runs
     * @param args its arguments
     * @return the command line of a JVM like this one, with the vector module added; empty if this JVM's options
     *     cannot be read (no {@code java.management} module)
     */
    static Optional<List<String>> command(Class<?> mainClass, String[] args) {
        List<String> jvmOptions;
        try {
            jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();
        } catch (LinkageError e) {
            return Optional.empty();
        }
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.add("--add-modules");
        command.add(MODULE);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        return Optional.of(command);
    }

    /**
     * Runs {@code command} with this process's standard input and output, copying its standard error here without
     * the JDK's incubator warning.
     *
     * @param command from {@link #command}
     * @param err where the new JVM's standard error goes
     * @return its exit code
     * @throws IOException if it cannot be started
     */
    static int run(List<String> command, PrintStream err) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put(MARKER, "1");
        Process process = builder.start();
        Thread stop = new Thread(() -> stop(process), "attn4j-relaunch-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        Thread copier = new Thread(() -> copyWithoutIncubatorWarning(process, err), "attn4j-relaunch-stderr");
        copier.start();
        while (true) {
            try {
                int exit = process.waitFor();
                copier.join();
                return exit;
            } catch (InterruptedException e) {
                process.destroy();
            }
        }
    }

    /** Ends the new JVM when this one is stopped (SIGTERM, Ctrl-C), so that none outlives it (a server, say). */
    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
        }
    }

    private static void copyWithoutIncubatorWarning(Process process, PrintStream err) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                Charset.defaultCharset()))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.equals(INCUBATOR_WARNING)) {
                    err.println(line);
                }
            }
            err.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
