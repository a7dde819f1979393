package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.attn4j.api.Backends;
import org.attn4j.api.ProviderReport;
import org.attn4j.tck.Status;
import org.attn4j.tck.TckReport;
import org.attn4j.tck.TckRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j tck}: runs the technology compatibility kit ({@link TckRunner}) against one backend or every
 * provider on the class path and prints its conformance table. Exit code 0 when no case failed; 1 when one did, or
 * when the backend named with {@code --backend} cannot run here (its cases were all skipped, so nothing was shown).
 */
@Command(name = "tck", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the technology compatibility kit and print its conformance table: per backend, kind of "
                + "check (golden, law, differential, bad-input), op and dtype, the cases passed, skipped and failed "
                + "and the largest errors. A skipped case is never counted as passed."},
        footer = {"", "Exit codes: 0 no case failed, 1 a case failed or the requested backend cannot run here, "
                + "2 bad input."})
final class TckCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to check (see 'attn4j backends'); default: every provider on the class path, "
                    + "unavailable ones reported as skipped with the reason.")
    private String backend;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write the report (summary, table rows, every case) as JSON to FILE.")
    private Path json;

    @Override
    public Integer call() throws IOException {
        checkJsonTarget();
        String name = null;
        if (backend != null) {
            if (!BackendChoice.known().contains(backend.toLowerCase(Locale.ROOT))) {
                throw BackendChoice.unknown(backend, spec);
            }
            name = backend;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("attn4j tck: " + (name == null ? "every backend on the class path" : "backend " + name));
        out.flush();
        TckReport report = name == null ? TckRunner.runAll() : TckRunner.run(name);
        out.print(report.toTable());
        if (json != null) {
            report.writeJson(json);
            out.println("json: " + json);
        }
        out.flush();
        if (name != null) {
            String requested = name;
            Optional<ProviderReport> found = Backends.describe().stream()
                    .filter(p -> p.name().equalsIgnoreCase(requested)).findFirst();
            if (found.isPresent() && !found.get().availability().available()) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": backend '" + found.get().name()
                        + "' cannot run here, so none of its cases ran: " + found.get().availability().reason());
                return 1;
            }
        }
        if (!report.passed()) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + report.count(Status.FAILED)
                    + " case(s) failed; see the FAILED lines above");
            return 1;
        }
        return 0;
    }

    /** Rejects a --json target that can never be written, before the kit runs. */
    private void checkJsonTarget() {
        if (json == null) {
            return;
        }
        if (Files.isDirectory(json)) {
            throw bad("--json " + json + " is a directory; name a file");
        }
        Directories.requireWritable(json.toAbsolutePath().getParent(), "--json " + json + ": its directory", spec);
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
