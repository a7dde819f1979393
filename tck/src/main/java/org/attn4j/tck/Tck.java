package org.attn4j.tck;

import com.google.inject.Module;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.attn4j.api.BackendProvider;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Entry points of the kit: a command line ({@link #main(String[])}), the same for a CLI to call
 * ({@link #run(String[], PrintStream)}), and JUnit 5 dynamic tests for a {@code @TestFactory}
 * ({@link #dynamicTests(BackendProvider, Module...)}).
 */
public final class Tck {

    private Tck() {
    }

    /**
     * Runs the kit and exits with 0 if no case failed, 1 if one did, 2 on a usage error.
     *
     * @param args {@code [--backend NAME] [--json FILE]}; without a backend, every provider on the class path
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * Runs the kit and prints the conformance table.
     *
     * @param args {@code [--backend NAME] [--json FILE]}; without a backend, every provider on the class path
     * @param out where the table goes
     * @return 0 if no case failed, 1 if one did, 2 on a usage error
     */
    public static int run(String[] args, PrintStream out) {
        String backend = null;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            boolean hasValue = i + 1 < args.length;
            if (args[i].equals("--backend") && hasValue) {
                backend = args[++i];
            } else if (args[i].equals("--json") && hasValue) {
                json = Path.of(args[++i]);
            } else {
                out.println("usage: Tck [--backend NAME] [--json FILE]   (unknown or incomplete argument: " + args[i]
                        + ")");
                return 2;
            }
        }
        TckReport report;
        try {
            report = backend == null ? TckRunner.runAll() : TckRunner.run(backend);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        }
        if (report.results().isEmpty()) {
            out.println("tck: no backend provider on the class path; add a backend jar, for example"
                    + " org.attn4j:attn4j-backend-cpu-ejml");
            return 2;
        }
        out.print(report.toTable());
        if (json != null) {
            try {
                report.writeJson(json);
                out.println("wrote " + json.toAbsolutePath());
            } catch (IOException e) {
                out.println("cannot write " + json + ": " + e);
                return 2;
            }
        }
        return report.passed() ? 0 : 1;
    }

    /**
     * The kit as JUnit 5 dynamic tests, for a {@code @TestFactory}:
     * <pre>{@code
     * @TestFactory
     * Stream<DynamicNode> tck() {
     *     return Tck.dynamicTests(new MyBackendProvider());
     * }
     * }</pre>
     *
     * @param provider the provider of the backend under test
     * @param overrides Guice modules replacing {@link TckModule}'s bindings
     * @return containers per kind and op holding one test per case, named {@code required_…[F32]} etc.
     */
    public static Stream<DynamicNode> dynamicTests(BackendProvider provider, Module... overrides) {
        return dynamicTests(TckRunner.create(provider, overrides), result -> { });
    }

    static Stream<DynamicNode> dynamicTests(TckRunner runner, Consumer<CaseResult> sink) {
        Map<Kind, Map<String, List<DynamicNode>>> tree = new LinkedHashMap<>();
        for (TckCase c : runner.cases()) {
            tree.computeIfAbsent(c.kind(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(c.op(), o -> new ArrayList<>())
                    .add(DynamicTest.dynamicTest(c.testName(), () -> check(runner.execute(c), sink)));
        }
        return tree.entrySet().stream().map(kind -> DynamicContainer.dynamicContainer(
                runner.backendName() + " " + kind.getKey().label(),
                kind.getValue().entrySet().stream().map(op -> DynamicContainer.dynamicContainer(op.getKey(),
                        op.getValue().stream()))));
    }

    private static void check(CaseResult result, Consumer<CaseResult> sink) {
        sink.accept(result);
        switch (result.status()) {
            case SKIPPED -> throw new TestAbortedException(result.message());
            case FAILED -> throw new AssertionFailedError(result.message(), result.cause());
            default -> {
            }
        }
    }
}
