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
 * The kit as a JUnit 5 test class: extend it, name your provider, and every conformance case runs as a test named
 * {@code required_…[F32]} or {@code optional_…[F64]}. A case the backend cannot run (it is unavailable here, or
 * declares it lacks an optional feature) is reported skipped with the reason. After the run the totals and the
 * verdict are printed, and the whole report is written as text and JSON to {@link #reportDirectory()}.
 * <pre>{@code
 * class MyBackendConformanceTest extends BackendTck {
 *     @Override
 *     protected BackendProvider provider() {
 *         return new MyBackendProvider();
 *     }
 * }
 * }</pre>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BackendTck {
    /** How many failure messages the printed table holds; the JSON report holds them all. */
    static final int PRINTED_FAILURES = 20;
    private final List<CaseResult> results = Collections.synchronizedList(new ArrayList<>());
    private TckRunner runner;

    /** @return the provider of the backend under test */
    protected abstract BackendProvider provider();

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
        runner = TckRunner.create(provider(),
                TckOptions.of(fixtures(), toleranceOverrides(), peers(), settings()));
        return Tck.dynamicTests(runner, getClass(), results::add, "the whole message is in " + reportFile());
    }

    private Path reportFile() {
        return reportDirectory().resolve(runner.backendName() + ".json");
    }

    /**
     * Prints what a build log needs — the totals, the verdict and at most {@value #PRINTED_FAILURES} failure
     * messages — and writes the whole report next to the JSON: the conformance table as text
     * ({@code <backend>.txt}) and every case as JSON ({@code <backend>.json}).
     *
     * @throws IOException if the report cannot be written
     */
    @AfterAll
    public final void report() throws IOException {
        if (runner == null) {
            return;
        }
        TckReport report = new TckReport(results, runner.notes());
        Path json = reportFile();
        Path text = json.resolveSibling(runner.backendName() + ".txt");
        report.writeJson(json);
        Files.writeString(text, report.toTable());
        StringBuilder printed = new StringBuilder();
        List<String> lines = report.toTable(PRINTED_FAILURES).lines().toList();
        lines.stream().takeWhile(l -> !l.isEmpty()).forEach(l -> printed.append(l).append('\n'));
        printed.append("report: ").append(text).append(" (table, notes, every failure) and ").append(json)
                .append('\n');
        lines.stream().filter(l -> l.startsWith("FAILED ") || l.startsWith("… and "))
                .forEach(l -> printed.append(l).append('\n'));
        System.out.print(printed);
    }
}
