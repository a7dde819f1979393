package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;

/**
 * The kit's engine, usable without JUnit: plans every case for one backend, runs them and returns a
 * {@link TckReport}. The quickest calls:
 * <pre>{@code
 * TckReport report = TckRunner.run("ejml");          // a provider on the class path, by name
 * System.out.print(report.toTable());
 * Files.writeString(Path.of("tck.json"), report.toJson());
 * }</pre>
 * To change the fixtures, tolerances, peers or settings, pass {@link TckOptions}.
 */
public final class TckRunner {
    private final BackendUnderTest underTest;
    private final FixtureSource fixtures;
    private final ToleranceTable tolerances;
    private final PeerBackends peers;
    private final TckSettings settings;
    private final List<String> notes = new ArrayList<>();
    private List<TckCase> plan;

    private TckRunner(BackendUnderTest underTest, TckOptions options) {
        this.underTest = underTest;
        this.fixtures = options.fixtures();
        this.tolerances = options.tolerances();
        this.peers = options.peers();
        this.settings = options.settings();
    }

    /**
     * @param provider the provider of the backend under test
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return a runner that plans its cases on first use
     */
    public static TckRunner create(BackendProvider provider, TckOptions options) {
        return new TckRunner(new BackendUnderTest(provider), options);
    }

    /**
     * @param provider the provider of the backend under test
     * @return the report of every case, with {@link TckOptions#defaults()}
     */
    public static TckReport run(BackendProvider provider) {
        return run(provider, TckOptions.defaults());
    }

    /**
     * @param provider the provider of the backend under test
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return the report of every case
     */
    public static TckReport run(BackendProvider provider, TckOptions options) {
        return create(provider, options).run();
    }

    /**
     * @param providerName the name of a provider on the class path, as {@code -Dattn4j.backend} takes it
     *     (case-insensitive)
     * @return the report of every case
     * @throws IllegalArgumentException if no provider has that name; the message lists those found
     */
    public static TckReport run(String providerName) {
        PeerBackends all = PeerBackends.discovered();
        BackendUnderTest named = all.backends().stream().filter(b -> b.name().equalsIgnoreCase(providerName))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("tck: no backend provider named '"
                        + providerName + "' on the class path; found " + all.backends().stream()
                        .map(BackendUnderTest::name).toList() + ". Add the backend's jar to the class path."));
        return new TckRunner(named, TckOptions.defaults().withPeers(all)).run();
    }

    /**
     * @param backend a backend created by other means, reported as available
     * @return the report of every case, with {@link TckOptions#defaults()}
     */
    public static TckReport run(Backend backend) {
        return run(backend, TckOptions.defaults());
    }

    /**
     * @param backend a backend created by other means, reported as available
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return the report of every case
     */
    public static TckReport run(Backend backend, TckOptions options) {
        return new TckRunner(BackendUnderTest.of(backend), options).run();
    }

    /**
     * Runs the kit on every provider on the class path, each compared with the others; each backend is created
     * once and shared by all the runs.
     *
     * @return one report covering them all, unavailable ones reported as skipped
     */
    public static TckReport runAll() {
        PeerBackends all = PeerBackends.discovered();
        TckOptions options = TckOptions.defaults().withPeers(all);
        List<TckReport> reports = new ArrayList<>();
        for (BackendUnderTest b : all.backends()) {
            reports.add(new TckRunner(b, options).run());
        }
        return TckReport.merge(reports);
    }

    /** @return the name of the backend under test */
    public String backendName() {
        return underTest.name();
    }

    /** @return every planned case, in order: golden, laws, differential, bad input */
    synchronized List<TckCase> cases() {
        if (plan == null) {
            List<TckCase> all = new ArrayList<>();
            if (settings.kinds().contains(Kind.GOLDEN)) {
                all.addAll(GoldenSuite.plan(fixtures, tolerances));
                notes.add("golden: " + fixtures.description() + "; groups " + GoldenSuite.GROUPS
                        + " (group models is checked by the models module's own tests)");
            }
            if (settings.kinds().contains(Kind.LAW)) {
                all.addAll(LawSuite.plan(tolerances, settings.seed()));
                all.addAll(OpLawSuite.plan(tolerances, settings.seed()));
                all.addAll(OverflowSuite.plan(settings.seed()));
                all.addAll(IeeeSuite.plan());
                all.addAll(ConcurrencySuite.plan(settings.seed()));
                all.addAll(ThreadCountSuite.plan(underTest, tolerances, settings.seed()));
            }
            if (settings.kinds().contains(Kind.DIFFERENTIAL)) {
                all.addAll(DifferentialSuite.plan(underTest, peers, tolerances, settings.seed(), notes));
            }
            if (settings.kinds().contains(Kind.BAD_INPUT)) {
                all.addAll(BadInputSuite.plan());
                all.addAll(ClosingRaceSuite.plan(settings.seed()));
            }
            for (ToleranceOverride o : tolerances.overrides()) {
                notes.add("tolerance override for " + o.op() + " " + o.dtype() + " cases " + o.casePattern() + ": "
                        + o.tolerance().rule() + " — " + o.reason());
            }
            plan = List.copyOf(all);
        }
        return plan;
    }

    /**
     * Runs one case: skipped if the backend is unavailable or lacks an optional feature the case needs, else
     * passed or failed. An exception thrown by the backend fails the case; the result keeps it as its cause.
     *
     * @param c a case of {@link #cases()}
     * @return its outcome
     */
    CaseResult execute(TckCase c) {
        if (!underTest.availability().available()) {
            return result(c, Status.SKIPPED, Measurement.EXACT, unavailable(underTest.name())
                    + underTest.availability().reason(), null);
        }
        for (Feature f : c.features()) {
            Optional<String> lacking = f.required() ? Optional.empty() : f.lackedBy(underTest.capabilities());
            if (lacking.isPresent()) {
                return result(c, Status.SKIPPED, Measurement.EXACT, lacking.get(), null);
            }
        }
        try {
            Measurement m = c.body().run(underTest.backend());
            return result(c, m.failure() == null ? Status.PASSED : Status.FAILED, m,
                    m.failure() == null ? "" : m.failure(), null);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            StackTraceElement[] trace = e.getStackTrace();
            return result(c, Status.FAILED, Measurement.EXACT, c.op() + " case " + c.id() + " [" + c.variant()
                    + "] on " + underTest.name() + " threw " + e + (trace.length > 0 ? " at " + trace[0] : ""), e);
        }
    }

    /**
     * @param backend a backend's name
     * @return how the skip message of every case of that backend starts when it is unavailable; its reason follows
     */
    static String unavailable(String backend) {
        return "backend " + backend + " is unavailable here: ";
    }

    private CaseResult result(TckCase c, Status status, Measurement m, String message, Throwable cause) {
        return new CaseResult(underTest.name(), c.kind(), c.op(), c.testName(), c.dtype(), c.variant(), status,
                m.maxAbsError(), m.maxRelError(), message, cause);
    }

    /**
     * @return notes on what was and was not compared, gathered while planning; none for a backend that is
     *     unavailable here, since nothing of it ran (its verdict says why)
     */
    synchronized List<String> notes() {
        cases();
        return underTest.availability().available() ? List.copyOf(notes) : List.of();
    }

    /** @return the report of every planned case */
    public TckReport run() {
        List<CaseResult> results = new ArrayList<>();
        for (TckCase c : cases()) {
            results.add(execute(c));
        }
        return new TckReport(results, notes());
    }
}
