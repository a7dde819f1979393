package org.attn4j.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleFinder;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Starts {@code attn4j.jar} again with {@code --add-modules jdk.incubator.vector} when the JVM was started without
 * it, so that {@code java -jar attn4j.jar …} runs the EJML backend's SIMD attention kernel (several times faster in
 * F32) without the user typing a flag. A jar's manifest cannot add a module to the boot layer ({@code Add-Opens}
 * and {@code Launcher-Agent-Class} act after it is resolved), so the only way is a second JVM: same {@code java}
 * executable, same JVM options, same class path and arguments, standard input and output inherited, and the exit
 * code passed through. Its standard error is copied here as it comes (a progress bar's carriage returns included),
 * less the JDK's {@code WARNING: Using incubator modules} line; whether this JVM's standard error is a terminal is
 * passed on in {@link Terminal#PROPERTY}. Unless the JVM's options choose a collector or a young generation, the new
 * JVM also gets {@link #MEMORY_OPTIONS}; and, unless they set them, the access options of {@link #accessOptions} that
 * its JDK has, so that the native libraries and {@code sun.misc.Unsafe} of the backends and their libraries (JCuda,
 * JavaCPP, protobuf) run without the warnings JDK 24 and later print for them; and its class-data sharing archive
 * ({@link ClassDataArchive}), so that from the second run on its classes are mapped rather than loaded.
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
    /**
     * The heap the relaunched JVM gets unless its options choose otherwise: the serial collector with a 32 MB young
     * generation, so that the resident memory of a process holding a model stays near the model's weights (they live
     * in the old generation, allocated once) instead of following a young generation that G1 grows to hundreds of
     * megabytes of garbage between collections.
     */
    static final List<String> MEMORY_OPTIONS = List.of("-XX:+UseSerialGC", "-Xmn32m");

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
     * Runs {@code mainClass} in a JVM like this one with the vector module added, and its class-data sharing archive
     * ({@link ClassDataArchive}) mapped, or written at its exit and then put in place.
     *
     * @param mainClass the class whose {@code main} the new JVM runs
     * @param args its arguments
     * @param err where the new JVM's standard error goes
     * @return its exit code; empty if this JVM's options cannot be read (no {@code java.management} module), and
     *     nothing was run
     * @throws IOException if it cannot be started
     */
    static OptionalInt relaunch(Class<?> mainClass, String[] args, PrintStream err) throws IOException {
        List<String> jvmOptions;
        try {
            jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();
        } catch (LinkageError e) {
            return OptionalInt.empty();
        }
        Optional<ClassDataArchive> archive = ClassDataArchive.of(jvmOptions);
        int feature = Runtime.version().feature();
        List<String> extra = archive.map(a -> a.options(feature)).orElse(List.of());
        int exit = run(command(jvmOptions, feature, extra, mainClass, args), err);
        archive.ifPresent(ClassDataArchive::publish);
        return OptionalInt.of(exit);
    }

    /**
     * @param jvmOptions this JVM's options
     * @param mainClass the class whose {@code main} the new JVM runs
     * @param args its arguments
     * @return the command line: those options, {@link #MEMORY_OPTIONS} unless they choose a collector or a young
     *     generation, the {@link #accessOptions} they do not set, the vector module, the class path, the main class
     *     and the arguments
     */
    static List<String> command(List<String> jvmOptions, Class<?> mainClass, String[] args) {
        return command(jvmOptions, Runtime.version().feature(), mainClass, args);
    }

    /**
     * @param jvmOptions this JVM's options
     * @param feature the feature version of the JDK that runs the command
     * @param mainClass the class whose {@code main} the new JVM runs
     * @param args its arguments
     * @return as {@link #command(List, Class, String[])}, with the access options of that JDK version
     */
    static List<String> command(List<String> jvmOptions, int feature, Class<?> mainClass, String[] args) {
        return command(jvmOptions, feature, List.of(), mainClass, args);
    }

    /**
     * @param jvmOptions this JVM's options
     * @param feature the feature version of the JDK that runs the command
     * @param extra options added after them (a class-data sharing archive's)
     * @param mainClass the class whose {@code main} the new JVM runs
     * @param args its arguments
     * @return as {@link #command(List, int, Class, String[])}, with {@code extra} after this JVM's options
     */
    static List<String> command(List<String> jvmOptions, int feature, List<String> extra, Class<?> mainClass,
                                String[] args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(extra);
        if (jvmOptions.stream().noneMatch(VectorModuleRelaunch::choosesTheHeapLayout)) {
            command.addAll(MEMORY_OPTIONS);
        }
        for (String option : accessOptions(feature)) {
            String name = option.substring(0, option.indexOf('='));
            if (jvmOptions.stream().noneMatch(o -> o.startsWith(name))) {
                command.add(option);
            }
        }
        if (System.getProperty(Terminal.PROPERTY) == null) {
            command.add("-D" + Terminal.PROPERTY + "=" + Terminal.stderrIsTerminal());
        }
        command.add("--add-modules");
        command.add(MODULE);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The options that let code on the class path use what the JDK restricts, for the JDK versions that have them:
     * {@code --enable-native-access=ALL-UNNAMED} from Java 22 (the standard option since the foreign function API;
     * from Java 24 a JNI library loaded without it prints four lines of warning) and
     * {@code --sun-misc-unsafe-memory-access=allow} from Java 23 (from Java 24 the first use of
     * {@code sun.misc.Unsafe}'s memory methods prints four lines).
     *
     * @param feature the JDK's feature version, {@code Runtime.version().feature()}
     * @return the options, each {@code --name=value}
     */
    static List<String> accessOptions(int feature) {
        List<String> options = new ArrayList<>();
        if (feature >= 22) {
            options.add("--enable-native-access=ALL-UNNAMED");
        }
        if (feature >= 23) {
            options.add("--sun-misc-unsafe-memory-access=allow");
        }
        return options;
    }

    /** @return whether a JVM option picks the garbage collector or sizes the young generation */
    private static boolean choosesTheHeapLayout(String option) {
        return option.matches("-XX:\\+Use\\w*GC") || option.startsWith("-Xmn") || option.startsWith("-XX:NewSize")
                || option.startsWith("-XX:MaxNewSize") || option.startsWith("-XX:NewRatio");
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
        Thread copier = new Thread(() -> copyWithoutIncubatorWarning(process.getErrorStream(), err),
                "attn4j-relaunch-stderr");
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

    /**
     * Copies {@code in} to {@code out} as the bytes come, except a line equal to the JDK's incubator warning: bytes
     * at the start of a line that could still become that warning are held back until they can tell.
     *
     * @param in a JVM's standard error
     * @param out where it goes
     */
    static void copyWithoutIncubatorWarning(InputStream in, OutputStream out) {
        byte[] warning = INCUBATOR_WARNING.getBytes(Charset.defaultCharset());
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        boolean lineStart = true;
        boolean dropNewline = false;
        byte[] buffer = new byte[8192];
        try (in) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    if (dropNewline) {
                        dropNewline = false;
                        if (b == '\n') {
                            continue;
                        }
                    }
                    int h = held.size();
                    if (lineStart && h < warning.length && b == warning[h]) {
                        held.write(b);
                        continue;
                    }
                    if (h == warning.length && (b == '\n' || b == '\r')) {
                        held.reset();
                        dropNewline = b == '\r';
                        continue;
                    }
                    if (h > 0) {
                        held.writeTo(out);
                        held.reset();
                    }
                    out.write(b);
                    lineStart = b == '\n' || b == '\r';
                }
                out.flush();
            }
            held.writeTo(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
