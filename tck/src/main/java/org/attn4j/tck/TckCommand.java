package org.attn4j.tck;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The kit's command line, {@code tck [--backend NAME] [--json FILE] [--only OP,...] [--cases PATTERN] [--detail]}:
 * runs {@link TckRunner} against one backend or every provider the class path offers and prints
 * {@link TckReport#toTable()}, versions, totals and verdicts first. The same command is {@link Tck#main(String[])}
 * and the cli's {@code attn4j tck}.
 *
 * <p>It judges whatever providers {@link java.util.ServiceLoader} finds through the thread's context class loader,
 * as {@code Backends} does: a tool that adds backend jars at run time (the cli's {@code --backend-jar}) sets that
 * loader before it calls the command, and nothing here needs to know how the jars were found.
 *
 * <p>Exit codes: 0 when no case failed; 1 when one did, when the backend named with {@code --backend} cannot run
 * here (none of its cases ran, and a 0 would hide that), or when the api on the class path is of another minor
 * version than the kit's; 2 on bad input (an unknown option, backend or op, a {@code --json} target that cannot be
 * written), reported as a {@link ParameterException} before the kit runs.
 */
@Command(name = "tck", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the technology compatibility kit on the backends the class path offers and print its "
                + "report: the kit's and the api's versions, the totals and a verdict per backend (conformant, not "
                + "conformant, or not run with the reason), then per backend and op the cases passed, failed and "
                + "skipped with the largest errors relative to the case's scale and to the tolerance, the skip "
                + "reasons, the pairs compared, a legend of case names and every failure. A skipped case is never "
                + "counted as passed."},
        footer = {"", "Exit codes: 0 no case failed, 1 a case failed, the requested backend cannot run here or the "
                + "api is of another minor version, 2 bad input."})
public final class TckCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The backend to check; default: every provider on the class path, unavailable ones "
                    + "reported as not run with the reason.")
    private String backend;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write the report (summary, verdicts, table rows, every case) as JSON to FILE.")
    private Path json;

    @Option(names = "--only", paramLabel = "OP[,OP...]", split = ",",
            description = "Run only the cases of these ops (softmax, attention, …) or kinds (golden, law, "
                    + "differential, bad-input, wiring, model); a partial run makes no conformance claim.")
    private List<String> only = List.of();

    @Option(names = "--cases", paramLabel = "PATTERN",
            description = "Run only the cases whose test name contains a match of this regular expression, for "
                    + "example attn_causal or '\\[F32\\]$'.")
    private String cases;

    @Option(names = "--detail",
            description = "Also print the table per backend, kind of check, op and variant.")
    private boolean detail;

    @Override
    public Integer call() throws IOException {
        checkJsonTarget();
        if (backend != null) {
            List<String> known = PeerBackends.discovered().backends().stream()
                    .map(b -> b.name().toLowerCase(Locale.ROOT)).sorted().toList();
            if (!known.contains(backend.toLowerCase(Locale.ROOT))) {
                throw new ParameterException(spec.commandLine(), "unknown backend '" + backend
                        + "'; known backends: " + (known.isEmpty() ? "none (no backend jar is on the class path)"
                        : String.join(", ", known)));
            }
        }
        TckSettings settings;
        try {
            settings = TckSettings.defaults().withOnly(only).withCases(cases);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--cases: " + e.getMessage());
        }
        Optional<String> versions = Versions.current().problem();
        if (versions.isPresent()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": " + versions.get());
            err.flush();
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        TckReport report;
        try {
            report = backend == null ? TckRunner.runAll(settings)
                    : TckRunner.run(backend, TckOptions.defaults().withSettings(settings));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage().replaceFirst("^tck: ", ""));
        }
        out.println(spec.qualifiedName() + ": " + (backend == null ? "every backend on the class path"
                : "backend " + backend));
        out.print(report.toTable());
        if (detail) {
            out.println();
            out.print(report.toDetail());
        }
        if (json != null) {
            report.writeJson(json);
            out.println("json: " + json);
        }
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        if (backend != null && report.verdicts().values().stream().allMatch(v -> v == TckReport.Verdict.NOT_RUN)) {
            err.println(spec.qualifiedName() + ": backend '" + report.results().get(0).backend()
                    + "' cannot run here, so none of its cases ran: " + report.unavailableReasons().values()
                    .iterator().next());
            err.flush();
            return 1;
        }
        if (!report.passed()) {
            err.println(spec.qualifiedName() + ": " + report.count(Status.FAILED)
                    + " case(s) failed; see the FAILED lines above");
            err.flush();
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
            throw new ParameterException(spec.commandLine(), "--json " + json + " is a directory; name a file");
        }
        Path dir = json.toAbsolutePath().getParent();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--json " + json + ": its directory cannot be created: "
                    + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw new ParameterException(spec.commandLine(), "--json " + json + ": its directory is not writable");
        }
        boolean existed = Files.exists(json);
        try (FileChannel probe = FileChannel.open(json, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            probe.size();
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--json " + json + " cannot be written: " + e);
        }
        try {
            if (!existed) {
                Files.delete(json);
            }
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--json " + json + " cannot be written: " + e);
        }
    }
}
