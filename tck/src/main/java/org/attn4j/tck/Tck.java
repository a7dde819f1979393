package org.attn4j.tck;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.attn4j.api.BackendProvider;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import picocli.CommandLine;

/**
 * Entry points of the kit: a command line ({@link #main(String[])}, parsed by {@link TckCommand}, which a CLI can
 * add as a subcommand), the same for a caller that captures the output ({@link #run(String[], PrintStream)}), and JUnit 5 dynamic tests for a {@code @TestFactory}
 * ({@link #dynamicTests(BackendProvider, TckOptions)}).
 */
public final class Tck {
    /** How many failures of a run are reported to JUnit with their whole message and cause. */
    static final int DETAILED_FAILURES = 10;
    /** How long the message of a later failure may be. */
    static final int BRIEF_LENGTH = 200;
    private static final String ALL_DETAILS_IN_FIRST = "the first " + DETAILED_FAILURES
            + " failures carry every detail";
    private static final StackWalker CALLER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private Tck() {
    }

    /**
     * Runs {@link TckCommand} and exits with its code: 0 if no case failed, 1 if one did (or the named backend cannot
     * run here), 2 on a usage error.
     *
     * @param args {@code [--backend NAME] [--json FILE] [--only OP,...] [--cases PATTERN] [--detail]}; without a
     *     backend, every provider on the class path
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * Runs {@link TckCommand} and prints the conformance table, or a usage error on one line.
     *
     * @param args {@code [--backend NAME] [--json FILE] [--only OP,...] [--cases PATTERN] [--detail]}; without a
     *     backend, every provider on the class path
     * @param out where the table and any error go
     * @return 0 if no case failed, 1 if one did (or the named backend cannot run here), 2 on a usage error
     */
    public static int run(String[] args, PrintStream out) {
        PrintWriter writer = new PrintWriter(out, true);
        return new CommandLine(new TckCommand())
                .setOut(writer)
                .setErr(writer)
                .setParameterExceptionHandler((e, ignored) -> {
                    CommandLine cmd = e.getCommandLine();
                    cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage()
                            + " (see 'tck --help')");
                    return cmd.getCommandSpec().exitCodeOnInvalidInput();
                })
                .execute(args);
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
     * @return containers per kind and op holding one test per case, named {@code required_…[F32]} etc.
     */
    public static Stream<DynamicNode> dynamicTests(BackendProvider provider) {
        return dynamicTests(TckRunner.create(provider, withSystemProperties(TckOptions.defaults())),
                CALLER.getCallerClass(), result -> { }, ALL_DETAILS_IN_FIRST);
    }

    /**
     * @param provider the provider of the backend under test
     * @param options the fixtures, tolerance overrides, peers and settings to use
     * @return containers per kind and op holding one test per case, named {@code required_…[F32]} etc.
     */
    public static Stream<DynamicNode> dynamicTests(BackendProvider provider, TckOptions options) {
        return dynamicTests(TckRunner.create(provider, withSystemProperties(options)), CALLER.getCallerClass(),
                result -> { }, ALL_DETAILS_IN_FIRST);
    }

    /**
     * @param options options as given
     * @return the same with the filter of the system properties {@value TckSettings#ONLY_PROPERTY} and
     *     {@value TckSettings#CASES_PROPERTY} applied, as the JUnit route reads them
     */
    static TckOptions withSystemProperties(TckOptions options) {
        return options.withSettings(options.settings().withSystemProperties());
    }

    /**
     * The tests, each with a {@code method:} source URI naming the test class and the case, so that tools which
     * name tests by their source, as Maven surefire does by default, name each case
     * ({@code MyBackendConformanceTest.required_attn_causal_square[F32]}) rather than the factory method.
     *
     * @param runner the planned run
     * @param testClass the test class whose factory returns the tests
     * @param sink receives every case's result
     * @param detailsAt where a failure beyond the first {@value #DETAILED_FAILURES} says its full message is
     * @return the tests, grouped by kind and op
     */
    static Stream<DynamicNode> dynamicTests(TckRunner runner, Class<?> testClass, Consumer<CaseResult> sink,
                                            String detailsAt) {
        AtomicInteger failures = new AtomicInteger();
        Map<Kind, Map<String, List<DynamicNode>>> tree = new LinkedHashMap<>();
        for (TckCase c : runner.cases()) {
            tree.computeIfAbsent(c.kind(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(c.op(), o -> new ArrayList<>())
                    .add(DynamicTest.dynamicTest(c.testName(), source(testClass, c.testName()),
                            () -> check(runner.execute(c), sink, failures, detailsAt)));
        }
        return tree.entrySet().stream().map(kind -> DynamicContainer.dynamicContainer(
                runner.backendName() + " " + kind.getKey().label(),
                kind.getValue().entrySet().stream().map(op -> DynamicContainer.dynamicContainer(op.getKey(),
                        op.getValue().stream()))));
    }

    static URI source(Class<?> testClass, String testName) {
        try {
            return new URI("method", testClass.getName(), testName);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("tck: test " + testName + " has no method URI", e);
        }
    }

    /**
     * Reports one result to JUnit: a skip as an aborted test, a failure as an assertion error without a stack trace
     * of its own (the kit's and JUnit's frames say nothing about the backend). The first
     * {@value #DETAILED_FAILURES} failures carry the whole message and what the backend threw (its frames up to the
     * kit's); later ones only the message's first line, cut at {@value #BRIEF_LENGTH} characters, and where the rest
     * is, so that a badly broken backend does not bury the build's output under thousands of lines.
     */
    private static void check(CaseResult result, Consumer<CaseResult> sink, AtomicInteger failures,
                              String detailsAt) {
        sink.accept(result);
        switch (result.status()) {
            case SKIPPED -> throw new TestAbortedException(result.message());
            case FAILED -> {
                int n = failures.incrementAndGet();
                if (n <= DETAILED_FAILURES) {
                    AssertionFailedError detailed = new AssertionFailedError(result.message(), result.cause());
                    detailed.setStackTrace(new StackTraceElement[0]);
                    throw detailed;
                }
                String first = result.message().lines().findFirst().orElse("");
                AssertionFailedError brief = new AssertionFailedError((first.length() > BRIEF_LENGTH
                        ? first.substring(0, BRIEF_LENGTH) + "…" : first) + " [failure " + n + ": " + detailsAt
                        + "]");
                brief.setStackTrace(new StackTraceElement[0]);
                throw brief;
            }
            default -> {
            }
        }
    }
}
