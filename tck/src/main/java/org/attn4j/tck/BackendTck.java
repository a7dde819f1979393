package org.attn4j.tck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.BackendProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The kit as a JUnit 5 test class: extend it, name your backend, and every conformance case runs as a test named
 * {@code required_…[F32]} or {@code optional_…[F64]}. A case the backend cannot run (it is unavailable here, or
 * declares it lacks an optional feature) is reported skipped with the reason. After the run the report is printed
 * (totals, verdict, a summary per op, skip reasons, failures), and written whole as text and JSON to
 * {@link #reportDirectory()}.
 * <pre>{@code
 * class MyBackendConformanceTest extends BackendTck {
 *     MyBackendConformanceTest() {
 *         super("mine");    // the provider's name(): the kit finds it through ServiceLoader, as Backends does
 *     }
 * }
 * }</pre>
 * Or override {@link #provider()} to hand the kit a provider instance; its wiring (the service file that lets
 * {@code Backends} find it) is checked either way. The system properties {@value TckSettings#ONLY_PROPERTY}
 * ({@code -Dattn4j.tck.only=softmax,attention}) and {@value TckSettings#CASES_PROPERTY} (a pattern of test names) run
 * part of the kit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BackendTck {
    /** How many failure messages the printed table holds; the JSON report holds them all. */
    static final int PRINTED_FAILURES = 20;
    private final List<CaseResult> results = Collections.synchronizedList(new ArrayList<>());
    private final String backendName;
    private TckRunner runner;

    /** For a subclass that overrides {@link #provider()}. */
    protected BackendTck() {
        this.backendName = null;
    }

    /**
     * @param backendName the {@code name()} of the provider to check, found through {@link java.util.ServiceLoader}
     *     on the test class path as {@code Backends} finds it; if none has that name, the wiring case fails saying
     *     what was found, and nothing else runs
     */
    protected BackendTck(String backendName) {
        if (backendName == null || backendName.isBlank()) {
            throw new IllegalArgumentException("BackendTck: argument backendName is empty; give your provider's"
                    + " name()");
        }
        this.backendName = backendName;
    }

    /**
     * Override to hand the kit a provider instance instead of naming it in the constructor.
     *
     * @return the provider of the backend under test, or null to have the kit find the one named in the
     *     constructor
     */
    protected BackendProvider provider() {
        if (backendName == null) {
            throw new IllegalStateException(getClass().getName() + ": name the backend (super(\"name\")) or"
                    + " override provider()");
        }
        return null;
    }

    /**
     * Override to run golden cases of your own, for example {@code GoldenFixtures.directory(Path.of("my-goldens"))}.
     *
     * @return where the golden cases come from; by default the PyTorch float64 files shipped in this jar
     */
    protected FixtureSource fixtures() {
        return GoldenFixtures.classpath();
    }

    /**
     * Override to declare a looser (or tighter) tolerance for an op; every override is printed in the report.
     *
     * @return tolerances that replace the kit's table where they match; none by default
     */
    protected List<ToleranceOverride> toleranceOverrides() {
        return List.of();
    }

    /**
     * Override to choose the backends the differential checks compare with, {@link PeerBackends#none()} for none.
     *
     * @return the peers; by default every provider on the class path
     */
    protected PeerBackends peers() {
        return PeerBackends.discovered();
    }

    /**
     * Override to change the seed or the kinds of checks.
     *
     * @return the settings; by default {@link TckSettings#defaults()}
     */
    protected TckSettings settings() {
        return TckSettings.defaults();
    }

    /**
     * @return where the JSON report goes: the system property {@code attn4j.tck.reportDir}, else
     *     {@code target/attn4j-tck}
     */
    protected Path reportDirectory() {
        return Path.of(System.getProperty("attn4j.tck.reportDir", "target/attn4j-tck"));
    }

    /** @return every conformance case, grouped by kind and op */
    @TestFactory
    public final Stream<DynamicNode> conformance() {
        TckOptions options = TckOptions.of(fixtures(), toleranceOverrides(), peers(),
                settings().withSystemProperties());
        BackendProvider given = provider();
        if (given == null && backendName == null) {
            throw new IllegalStateException(getClass().getName() + ": provider() returned null and no backend was"
                    + " named in the constructor");
        }
        runner = given != null ? TckRunner.create(given, options) : TckRunner.create(backendName, options);
        return Tck.dynamicTests(runner, getClass(), results::add, "the whole message is in " + reportFile());
    }

    private Path reportFile() {
        return reportDirectory().resolve(runner.backendName() + ".json");
    }

    /**
     * Prints what a build log needs — the versions, the totals, the verdict, the summary per op, the skip reasons,
     * the peers compared with and at most {@value #PRINTED_FAILURES} failure messages (with the legend of case names
     * when something failed) — and writes the whole report next to the JSON: as text ({@code <backend>.txt}: the
     * report, its notes and legend, every failure, and the detail table) and as JSON ({@code <backend>.json}).
     *
     * @throws IOException if the report cannot be written
     */
    @AfterAll
    public final void report() throws IOException {
        if (runner == null) {
            return;
        }
        TckReport report = runner.report(results);
        Path json = reportFile();
        Path text = json.resolveSibling(runner.backendName() + ".txt");
        report.writeJson(json);
        Files.writeString(text, report.toTable() + "\n" + report.toDetail());
        StringBuilder printed = new StringBuilder();
        boolean failed = !report.passed();
        for (String line : report.toTable(PRINTED_FAILURES).lines().toList()) {
            if (!line.startsWith("note: ") && (failed || !line.startsWith("legend: "))) {
                printed.append(line).append('\n');
            }
        }
        printed.append("report: ").append(text).append(" (notes, every failure, the table per kind and variant)"
                + " and ").append(json).append('\n');
        System.out.print(printed);
    }
}
