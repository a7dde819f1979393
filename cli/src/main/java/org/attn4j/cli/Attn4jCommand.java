package org.attn4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.attn4j.tck.TckCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** {@code attn4j}: the parent of every subcommand; run without one, it is a usage error. */
@Command(name = "attn4j", mixinStandardHelpOptions = true, versionProvider = Attn4jCommand.Version.class,
        description = "Transformer attention for the JVM with pluggable backends.",
        subcommands = {DemoCommand.class, EmbedCommand.class, RerankCommand.class, BackendsCommand.class,
                TckCommand.class, GenerateCommand.class, ChatCommand.class, ServeCommand.class},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input.",
                "Choose a backend with --backend, -Dattn4j.backend=NAME or ATTN4J_BACKEND=NAME.",
                "Backend jars: --backend-jar PATH, or put them in the folder 'backends' next to attn4j.jar."})
final class Attn4jCommand implements Callable<Integer> {
    /** The option that loads backend jars, on this command and, inherited, on every subcommand. */
    static final String BACKEND_JAR = "--backend-jar";

    @Spec
    private CommandSpec spec;

    @Option(names = BACKEND_JAR, scope = ScopeType.INHERIT, paramLabel = "PATH",
            description = "Load a backend jar (or every *.jar of a folder) besides attn4j.jar, for example the "
                    + "attn4j-nd4j.jar add-on or a third party's backend: it needs only its BackendProvider and "
                    + "META-INF/services/org.attn4j.api.BackendProvider. Repeatable; the jars in the folder "
                    + "'backends' next to attn4j.jar are always loaded.")
    private List<Path> backendJars = new ArrayList<>();

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "a command is required: "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** Reads the version Maven wrote into {@code version.properties}. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = Attn4jCommand.class.getResourceAsStream("version.properties")) {
                if (in == null) {
                    throw new IllegalStateException("attn4j --version: the resource org/attn4j/cli/"
                            + "version.properties is missing from the class path; rebuild the cli module");
                }
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new String[] {"attn4j " + p.getProperty("version"),
                    "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
