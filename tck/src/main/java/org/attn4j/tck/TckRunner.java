package org.attn4j.tck;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
 *
 * <p>Providers are found as {@code Backends} finds them: through {@link java.util.ServiceLoader} on the thread's
 * context class loader, so a tool that loads backend jars at run time (the cli) sets that loader before it runs the
 * kit. Every run first checks that the api on the class path is of the kit's minor version ({@code Versions}) and
 * refuses to run otherwise.
 */
public final class TckRunner {
    private final BackendUnderTest underTest;
    private final FixtureSource fixtures;
    private final ToleranceTable tolerances;
    private final PeerBackends peers;
    private final TckSettings settings;
    private final ServiceWiring wiring;
    private final Versions versions;
    private final List<String> notes = new ArrayList<>();
    private List<TckCase> plan;

    private TckRunner(BackendUnderTest underTest, TckOptions options, ServiceWiring wiring) {
        this.versions = Versions.current();
        versions.requireCompatible();
        this.underTest = underTest;
        this.fixtures = options.fixtures();
        this.tolerances = options.tolerances();
        this.peers = options.peers();
        this.settings = options.settings();
        this.wiring = wiring;
    }

    /**
     * @param provider the provider of the backend under test
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return a runner that plans its cases on first use
     * @throws IllegalStateException if the api on the class path is not of the kit's minor version
     */
    public static TckRunner create(BackendProvider provider, TckOptions options) {
        return new TckRunner(new BackendUnderTest(provider), options, ServiceWiring.current());
    }

    /**
     * The runner of a provider named as users name it, found as {@code Backends} finds it: through
     * {@link java.util.ServiceLoader} on the context class loader. If none has that name, the runner still runs: its
     * {@code wiring_found_by_service_loader} case fails, saying what was found instead, and no other case runs.
     *
     * @param providerName the provider's {@code name()} (case-insensitive)
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return a runner that plans its cases on first use
     */
    public static TckRunner create(String providerName, TckOptions options) {
        ServiceWiring wiring = ServiceWiring.current();
        BackendProvider provider = wiring.providers().stream().filter(p -> p.name().equalsIgnoreCase(providerName))
                .findFirst().orElseGet(() -> new WiringSuite.MissingProvider(providerName, wiring));
        BackendUnderTest underTest = options.peers().backends().stream()
                .filter(b -> b.provider().getClass() == provider.getClass() && b.name().equals(provider.name()))
                .findFirst().orElseGet(() -> new BackendUnderTest(provider));
        return new TckRunner(underTest, options, wiring);
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
        return run(providerName, TckOptions.defaults());
    }

    /**
     * @param providerName the name of a provider on the class path (case-insensitive)
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return the report of every case
     * @throws IllegalArgumentException if no provider has that name; the message lists those found
     */
    public static TckReport run(String providerName, TckOptions options) {
        ServiceWiring wiring = ServiceWiring.current();
        if (wiring.providers().stream().noneMatch(p -> p.name().equalsIgnoreCase(providerName))) {
            throw new IllegalArgumentException("tck: no backend provider named '" + providerName + "' on the class"
                    + " path; found " + wiring.providers().stream().map(BackendProvider::name).toList()
                    + ". Add the backend's jar to the class path.");
        }
        return create(providerName, options).run();
    }

    /**
     * @param backend a backend created by other means, reported as available
     * @return the report of every case, with {@link TckOptions#defaults()}
     */
    public static TckReport run(Backend backend) {
        return run(backend, TckOptions.defaults());
    }

    /**
     * @param backend a backend created by other means, reported as available; its wiring is checked by name only
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return the report of every case
     */
    public static TckReport run(Backend backend, TckOptions options) {
        return new TckRunner(BackendUnderTest.of(backend), options, ServiceWiring.current()).run();
    }

    /**
     * Runs the kit on every provider on the class path, each compared with the others; each backend is created
     * once and shared by all the runs.
     *
     * @return one report covering them all, unavailable ones reported as not run
     */
    public static TckReport runAll() {
        return runAll(TckSettings.defaults());
    }

    /**
     * @param settings the seed, kinds and filter of every run
     * @return one report covering every provider on the class path, unavailable ones reported as not run
     */
    public static TckReport runAll(TckSettings settings) {
        PeerBackends all = PeerBackends.discovered();
        TckOptions options = TckOptions.defaults().withPeers(all).withSettings(settings);
        ServiceWiring wiring = ServiceWiring.current();
        List<TckReport> reports = new ArrayList<>();
        for (BackendUnderTest b : all.backends()) {
            reports.add(new TckRunner(b, options, wiring).run());
        }
        return TckReport.merge(reports);
    }

    /** @return the name of the backend under test */
    public String backendName() {
        return underTest.name();
    }

    /** @return every planned case the filter keeps, in order: wiring, golden, laws, differential, bad input, model */
    synchronized List<TckCase> cases() {
        if (plan == null) {
            List<FixtureSource> sources = new ArrayList<>();
            sources.add(fixtures);
            sources.addAll(GoldenFixtures.families());
            List<TckCase> all = new ArrayList<>();
            if (settings.kinds().contains(Kind.WIRING)) {
                all.addAll(WiringSuite.plan(underTest, wiring));
            }
            if (settings.kinds().contains(Kind.GOLDEN)) {
                for (FixtureSource source : sources) {
                    all.addAll(GoldenSuite.plan(source, tolerances));
                }
                if (fixtures == GoldenFixtures.classpath()) {
                    all.addAll(GgufBlockSuite.plan(settings.seed()));
                }
                notes.add("golden: " + String.join("; ", sources.stream().map(FixtureSource::description).toList())
                        + "; groups " + new TreeSet<>(GoldenSuite.GROUPS) + " (the decoders of group models run in"
                        + " the model suite)");
            }
            if (settings.kinds().contains(Kind.LAW)) {
                all.addAll(LawSuite.plan(tolerances, settings.seed()));
                all.addAll(OpLawSuite.plan(tolerances, settings.seed()));
                all.addAll(FusedLawSuite.plan(tolerances, settings.seed()));
                all.addAll(DecoderLawSuite.plan(tolerances, settings.seed()));
                all.addAll(BatchInvarianceSuite.plan(settings.seed()));
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
            if (settings.kinds().contains(Kind.MODEL)) {
                all.addAll(ModelSuite.plan(sources, tolerances));
            }
            for (ToleranceOverride o : tolerances.overrides()) {
                notes.add("tolerance override for " + o.op() + " " + o.dtype() + " cases " + o.casePattern() + ": "
                        + o.tolerance().rule() + " — " + o.reason());
            }
            plan = List.copyOf(filter(all));
        }
        return plan;
    }

    private List<TckCase> filter(List<TckCase> all) {
        if (!settings.filtered()) {
            return all;
        }
        List<String> unknown = settings.only().stream()
                .filter(n -> all.stream().noneMatch(c -> TckSettings.names(n, c))).sorted().toList();
        if (!unknown.isEmpty()) {
            Set<String> ops = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
            all.forEach(c -> ops.add(c.op().contains(".") ? c.op().substring(0, c.op().indexOf('.')) : c.op()));
            throw new IllegalArgumentException("tck: --only names no op or kind of the kit: " + unknown + "; ops: "
                    + String.join(", ", ops) + "; kinds: " + String.join(", ", Arrays.stream(Kind.values())
                    .map(Kind::label).toList()));
        }
        List<TckCase> kept = all.stream().filter(settings::keeps).toList();
        if (kept.isEmpty()) {
            throw new IllegalArgumentException("tck: the filter " + settings.describeFilter() + " keeps none of the "
                    + all.size() + " cases");
        }
        notes.add("filtered by " + settings.describeFilter() + ": " + kept.size() + " of " + all.size()
                + " cases planned");
        return kept;
    }

    /**
     * Runs one case: skipped if the backend is unavailable (its provider's wiring still checked) or lacks an
     * optional feature the case needs, or if the case cannot run here; else passed or failed. An exception thrown by
     * the backend fails the case; the result keeps it as its cause, its stack cut at the kit's first frame.
     *
     * @param c a case of {@link #cases()}
     * @return its outcome
     */
    CaseResult execute(TckCase c) {
        boolean withoutBackend = WiringSuite.runsWithoutBackend(c);
        if (!withoutBackend && !underTest.availability().available()) {
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
            Measurement m = c.body().run(withoutBackend ? null : underTest.backend());
            if (m.skipped() != null) {
                return result(c, Status.SKIPPED, m, m.skipped(), null);
            }
            if (m.failure() != null) {
                return result(c, Status.FAILED, m, m.failure() + operands(c), null);
            }
            return result(c, Status.PASSED, m, m.note() == null ? "" : m.note(), null);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            cutAtTheKit(e);
            StackTraceElement[] trace = e.getStackTrace();
            return result(c, Status.FAILED, Measurement.EXACT, c.op() + " case " + c.id() + " [" + c.variant()
                    + "] on " + underTest.name() + " threw " + e + (trace.length > 0 ? " at " + trace[0] : "")
                    + operands(c), e);
        }
    }

    private static String operands(TckCase c) {
        String detail = c.detail().get();
        return detail.isEmpty() ? "" : " [operands: " + detail + "]";
    }

    /**
     * Keeps the frames of what the backend threw (and of its causes) up to the first frame of the kit's own classes:
     * what the author needs is where in the backend it happened, not the kit's and JUnit's frames that called it.
     */
    private static void cutAtTheKit(Throwable e) {
        Set<Throwable> seen = new LinkedHashSet<>();
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            StackTraceElement[] trace = t.getStackTrace();
            int keep = 0;
            while (keep < trace.length && !ofTheKit(trace[keep].getClassName())) {
                keep++;
            }
            t.setStackTrace(Arrays.copyOf(trace, keep));
        }
    }

    /** @return whether the class of a stack frame is one of the kit's, loaded from the kit's jar or folder */
    private static boolean ofTheKit(String className) {
        if (!className.startsWith(TckRunner.class.getPackageName() + ".")) {
            return false;
        }
        int lambda = className.indexOf("$$");
        try {
            Class<?> type = Class.forName(lambda < 0 ? className : className.substring(0, lambda), false,
                    TckRunner.class.getClassLoader());
            Path home = ServiceWiring.home(TckRunner.class);
            return home == null || home.equals(ServiceWiring.home(type));
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            return true;
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
                m.maxAbsError(), m.maxRelError(), m.errorToScale(), m.toleranceUsed(), message, cause);
    }

    /**
     * @return notes on what was and was not compared, gathered while planning; none for a backend that is
     *     unavailable here, since nothing of it ran (its verdict says why)
     */
    synchronized List<String> notes() {
        cases();
        return underTest.availability().available() ? List.copyOf(notes) : List.of();
    }

    /**
     * @param results the results of {@link #cases()}
     * @return the report of them, with this run's notes, versions and filter
     */
    TckReport report(List<CaseResult> results) {
        return new TckReport(results, notes(), versions.kit(), versions.api(), settings.describeFilter());
    }

    /** @return the report of every planned case */
    public TckReport run() {
        List<CaseResult> results = new ArrayList<>();
        for (TckCase c : cases()) {
            results.add(execute(c));
        }
        return report(results);
    }
}
