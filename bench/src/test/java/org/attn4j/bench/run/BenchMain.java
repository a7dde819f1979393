package org.attn4j.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.attn4j.api.Backends;
import org.attn4j.api.ProviderReport;
import org.attn4j.bench.BenchReport;
import org.attn4j.bench.Environment;
import org.attn4j.bench.Measurement;
import org.attn4j.bench.ReportWriter;
import org.attn4j.bench.Suite;
import org.attn4j.bench.Timing;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs every benchmark of a {@link Plan}, one JMH fork per job, and writes {@code bench.json} and {@code bench.md}.
 *
 * <p>System properties: {@code bench.quick} ({@code true} for the smoke-test plan, written to {@code
 * target/bench-quick}), {@code bench.include} (a comma-separated list of {@link Suite} names, all if blank),
 * {@code bench.lengths} (a comma-separated list of attention lengths replacing the plan's), {@code bench.module}
 * (the module directory; a full, unrestricted run writes to its {@code results}, a restricted one to {@code
 * target/bench-partial}), {@code bench.command} (the command recorded in the report).
 */
public final class BenchMain {
    private BenchMain() {
    }

    /**
     * @param args none
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        boolean quick = Boolean.parseBoolean(System.getProperty("bench.quick", "false"));
        String include = System.getProperty("bench.include", "").trim();
        String lengths = System.getProperty("bench.lengths", "").trim();
        Set<Suite> suites = suites(include);
        Path module = Path.of(System.getProperty("bench.module", "bench"));
        boolean partial = !include.isEmpty() || !lengths.isEmpty();
        Path out = module.resolve(quick ? "target/bench-quick" : partial ? "target/bench-partial" : "results");
        String command = System.getProperty("bench.command", "BenchMain") + (quick ? " -Dbench.quick" : "")
                + (include.isEmpty() ? "" : " -Dbench.include=" + include)
                + (lengths.isEmpty() ? "" : " -Dbench.lengths=" + lengths);

        String started = now();
        String loadBefore = loadAverage();
        List<String> notes = new ArrayList<>();
        List<String> backends = availableBackends(notes);
        Path systemOpenBlas = Path.of(Plan.SYSTEM_OPENBLAS_DIR, "libopenblas.so.0");
        Plan.NativeOptions natives = new Plan.NativeOptions(Files.exists(systemOpenBlas),
                cpuFlags().contains("avx512f"));
        notes.addAll(nativeNotes(natives, systemOpenBlas));
        Path jvms = module.resolve("target/bench-jvm");

        Plan plan = quick ? Plan.quick() : Plan.full();
        if (!lengths.isEmpty()) {
            plan = plan.withLengths(Arrays.stream(lengths.split(",")).map(String::trim).map(Integer::valueOf)
                    .toList());
        }
        List<Job> jobs = plan.jobs(backends, suites, natives);
        List<Measurement> measurements = new ArrayList<>();
        List<Double> loads = new ArrayList<>();
        Runnable write = () -> ReportWriter.write(new BenchReport(environment(started, command, quick, loadBefore,
                notes, loads), measurements, natives.ownGemm()), out);
        write.run();
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            loads.add(oneMinuteLoad());
            System.out.printf(Locale.ROOT, "%n[%d/%d] %s: %s on %s (load %.2f)%n", i + 1, jobs.size(),
                    job.suite().title(), job.implementation(), job.workload().label(), loads.get(i));
            Measurement m = run(job, quick, jvms);
            measurements.add(m);
            System.out.println(m.ok() ? String.format(Locale.ROOT, "  median %.6g s, %.4g GFLOP/s",
                    m.timing().medianSeconds(), m.gflops()) : "  FAILED: " + m.failure());
            write.run();
        }
        System.out.println("\nWrote " + out.resolve("bench.json") + " and " + out.resolve("bench.md"));
    }

    /**
     * @return the names of the available backends (the CUDA one only where a GPU and driver are present); the
     *     others go into {@code notes} with the reason
     */
    private static List<String> availableBackends(List<String> notes) {
        List<String> backends = new ArrayList<>();
        for (ProviderReport p : Backends.describe()) {
            if (p.availability().available()) {
                backends.add(p.name());
            } else {
                notes.add("Backend " + p.name() + " not measured: " + p.availability().reason());
            }
        }
        notes.add("Backends measured: " + (backends.isEmpty() ? "none found on the class path" : backends)
                + "; each CPU implementation uses all " + BenchData.threads() + " processors (ONNX Runtime: "
                + BenchData.threads() + " intra-op threads; EJML MT: EjmlConcurrency.setMaxThreads("
                + BenchData.threads() + "); ND4J and OpenBLAS: their defaults, one thread per core).");
        return backends;
    }

    private static List<String> nativeNotes(Plan.NativeOptions natives, Path systemOpenBlas) {
        List<String> notes = new ArrayList<>();
        String inherited = System.getenv().entrySet().stream()
                .filter(e -> e.getKey().matches("(OPENBLAS|GOTO|OMP|GOMP|MKL)_.*")).sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        notes.add("Plain 'nd4j' is the ND4J backend as it comes: its bundled OpenBLAS 0.3.19, under the environment"
                + " every fork inherits: " + (inherited.isEmpty() ? "no OpenBLAS or OpenMP variables" : inherited)
                + ".");
        notes.add(natives.systemOpenBlas() ? "'+ system OpenBLAS': ND4J in a JVM started with "
                + String.join(" ", Plan.SYSTEM_OPENBLAS) + "; JavaCPP then loads " + systemOpenBlas
                + " (Debian's libopenblas0-pthread) for both of ND4J's OpenBLAS libraries instead of its bundled"
                + " copies." : "No " + systemOpenBlas + ": install Debian's libopenblas0-pthread to measure ND4J on"
                + " it.");
        if (natives.avx512()) {
            notes.add("'+ AVX-512 kernels': ND4J with the environment variable " + Plan.AVX512_KERNELS.entrySet()
                    .stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "))
                    + " in its forked JVM, so that OpenBLAS uses its AVX-512 kernels whatever the inherited"
                    + " environment says.");
        }
        return notes;
    }

    private static Environment environment(String started, String command, boolean quick, String loadBefore,
                                           List<String> notes, List<Double> loads) {
        List<String> all = new ArrayList<>(notes);
        if (!loads.isEmpty()) {
            List<Double> sorted = loads.stream().sorted().toList();
            all.add(String.format(Locale.ROOT, "1-minute load average at the start of each of the %d jobs: min %.2f,"
                    + " median %.2f, max %.2f (%d processors; above that, other work competed for them).",
                    sorted.size(), sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1),
                    BenchData.threads()));
        }
        return new Environment(started, now(), command, BenchData.threads(), quick,
                System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.arch"), cpuModel(),
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(), jmhSettings(quick), all,
                BenchData.threads() * 2 * 8 * 2 * clockGhz());
    }

    static Measurement run(Job job, boolean quick, Path jvms) throws IOException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + Pattern.quote(job.benchmark().getName() + ".") + "\\w+$")
                .forks(job.singleShot() ? 1 : forks(quick))
                .shouldFailOnError(true)
                .timeUnit(TimeUnit.NANOSECONDS)
                .jvmArgs(job.jvmArgs().toArray(String[]::new));
        job.params().forEach(options::param);
        if (!job.env().isEmpty()) {
            options.jvm(launcher(job.env(), jvms).toString());
        }
        if (job.singleShot()) {
            options.mode(org.openjdk.jmh.annotations.Mode.SingleShotTime)
                    .warmupIterations(0).measurementIterations(1);
        } else {
            Iterations it = Iterations.of(quick, job.workload().flops());
            options.mode(org.openjdk.jmh.annotations.Mode.SampleTime)
                    .warmupIterations(it.warmups()).warmupTime(it.time())
                    .measurementIterations(it.measurements()).measurementTime(it.time());
        }
        try {
            Collection<RunResult> results = new Runner(options.build()).run();
            if (results.isEmpty()) {
                return Measurement.failed(job.suite(), job.implementation(), job.workload(),
                        "JMH returned no result; see its log above");
            }
            RunResult result = results.iterator().next();
            Statistics s = result.getPrimaryResult().getStatistics();
            double slowest = 0;
            int forks = 0;
            for (BenchmarkResult fork : result.getBenchmarkResults()) {
                slowest = Math.max(slowest, fork.getPrimaryResult().getStatistics().getPercentile(50));
                forks++;
            }
            return Measurement.of(job.suite(), job.implementation(), job.workload(), new Timing(s.getN(),
                    s.getPercentile(50) * 1e-9, s.getMin() * 1e-9, s.getMax() * 1e-9, s.getPercentile(10) * 1e-9,
                    s.getPercentile(90) * 1e-9, Math.max(1, forks), slowest * 1e-9));
        } catch (RunnerException e) {
            return Measurement.failed(job.suite(), job.implementation(), job.workload(), rootCause(e));
        }
    }

    /**
     * @param quick whether this is the smoke test
     * @return forked JVMs per benchmark and shape: {@code -Dbench.forks}, by default 3 (1 for the smoke test), so
     *     that a JVM that compiled the kernels worse than the others shows as the slowest fork
     */
    static int forks(boolean quick) {
        return Integer.getInteger("bench.forks", quick ? 1 : 3);
    }

    /**
     * Warm-up and measurement iterations: five seconds of warm-up, since C2 takes a few seconds to compile every
     * SIMD kernel (more on a loaded machine, whose compiler queue is long) and calls made before that would land in
     * the samples; fewer measured iterations for calls of more than 20 GFLOP, which take seconds each.
     */
    record Iterations(int warmups, int measurements, TimeValue time) {
        static Iterations of(boolean quick, double flops) {
            if (quick) {
                return new Iterations(1, 2, TimeValue.milliseconds(200));
            }
            return flops > 2e10 ? new Iterations(5, 2, TimeValue.seconds(1))
                    : new Iterations(5, 3, TimeValue.seconds(1));
        }

        String describe() {
            return warmups + " warm-up and " + measurements + " measured iterations of at least " + time;
        }
    }

    private static String jmhSettings(boolean quick) {
        return forks(quick) + " forks per benchmark and shape (JVM " + String.join(" ", Plan.JVM)
                + "; the median over all of them, and the slowest fork's own), mode SampleTime; "
                + (quick ? Iterations.of(true, 0).describe() : Iterations.of(false, 0).describe()
                + " (calls above 20 GFLOP: " + Iterations.of(false, 3e10).describe() + ")")
                + "; the long-sequence check: one cold call (SingleShotTime) in a JVM with "
                + String.join(" ", Plan.JVM_LONG);
    }

    private static String rootCause(Throwable t) {
        Throwable deepest = t;
        for (Throwable c = t; c != null; c = c.getCause() != null ? c.getCause()
                : c.getSuppressed().length > 0 ? c.getSuppressed()[0] : null) {
            deepest = c;
        }
        return deepest.toString();
    }

    private static Set<Suite> suites(String include) {
        if (include.isBlank()) {
            return EnumSet.allOf(Suite.class);
        }
        Map<String, Suite> byName = Arrays.stream(Suite.values())
                .collect(Collectors.toMap(s -> s.name().toLowerCase(Locale.ROOT), s -> s));
        EnumSet<Suite> chosen = EnumSet.noneOf(Suite.class);
        for (String name : include.split(",")) {
            Suite s = byName.get(name.trim().toLowerCase(Locale.ROOT));
            if (s == null) {
                throw new IllegalArgumentException("bench.include: unknown suite '" + name.trim() + "'; expected "
                        + "a comma-separated list of " + byName.keySet());
            }
            chosen.add(s);
        }
        return chosen;
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return String.join(" ", Arrays.asList(fields).subList(0, Math.min(3, fields.length)));
        } catch (IOException e) {
            return "unknown (" + e + ")";
        }
    }

    /** @return the 1-minute load average, or NaN where {@code /proc/loadavg} cannot be read */
    private static double oneMinuteLoad() {
        String first = loadAverage().split(" ")[0];
        return first.matches("[0-9.]+") ? Double.parseDouble(first) : Double.NaN;
    }

    /**
     * JMH cannot set a fork's environment, only which {@code java} it starts: this writes a script that exports the
     * variables and runs this JVM's {@code java}.
     */
    private static Path launcher(Map<String, String> env, Path dir) throws IOException {
        StringBuilder script = new StringBuilder("#!/bin/sh\n");
        StringBuilder name = new StringBuilder("java");
        new TreeMap<>(env).forEach((k, v) -> {
            script.append("export ").append(k).append("='").append(v).append("'\n");
            name.append('-').append(k).append('-').append(v);
        });
        script.append("exec '").append(Path.of(System.getProperty("java.home"), "bin", "java")).append("' \"$@\"\n");
        Path file = Files.createDirectories(dir).resolve(name.toString());
        Files.writeString(file, script);
        if (!file.toFile().setExecutable(true)) {
            throw new IOException("Could not make " + file + " executable; the benchmark needs it to set " + env);
        }
        return file;
    }

    /** @return the first processor's fields of {@code /proc/cpuinfo}, or an empty map where there is none */
    private static Map<String, String> cpuInfo() throws IOException {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        Map<String, String> fields = new HashMap<>();
        if (Files.exists(cpuinfo)) {
            for (String line : Files.readAllLines(cpuinfo)) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    fields.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
                }
            }
        }
        return fields;
    }

    private static String cpuFlags() throws IOException {
        return cpuInfo().getOrDefault("flags", "");
    }

    /**
     * @return the first processor's {@code cpu MHz} in {@code /proc/cpuinfo}, in GHz, or NaN; under a hypervisor
     *     that is the nominal clock, the boost clock is not visible there
     */
    private static double clockGhz() {
        try {
            String mhz = cpuInfo().getOrDefault("cpu MHz", "");
            return mhz.matches("[0-9.]+") ? Double.parseDouble(mhz) / 1000 : Double.NaN;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /** @return the model name, family and model numbers, the vector extensions and the clock */
    private static String cpuModel() {
        Map<String, String> fields;
        try {
            fields = cpuInfo();
        } catch (IOException e) {
            return "unknown CPU (" + e + ")";
        }
        List<String> flags = Arrays.asList(fields.getOrDefault("flags", "").split(" "));
        String vector = Stream.of("avx2", "fma", "avx512f").filter(flags::contains).collect(Collectors.joining(", "));
        return fields.getOrDefault("model name", "unknown CPU") + " (family " + fields.getOrDefault("cpu family", "?")
                + ", model " + fields.getOrDefault("model", "?") + (vector.isEmpty() ? "" : "; " + vector)
                + "; clock " + fields.getOrDefault("cpu MHz", "?") + " MHz, the first processor's 'cpu MHz' in"
                + " /proc/cpuinfo when the run ended)";
    }
}
