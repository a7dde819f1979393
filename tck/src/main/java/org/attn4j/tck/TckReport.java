package org.attn4j.tck;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The outcome of a kit run: every case's result, plus notes on what was and was not compared (peers unavailable,
 * tolerance overrides in force). {@link #toTable()} prints the conformance table, {@link #toJson()} the same as
 * JSON.
 *
 * @param results every case, in run order
 * @param notes human sentences about the run
 */
public record TckReport(List<CaseResult> results, List<String> notes) {
    private static final JsonFactory JSON = new JsonFactory();

    /** Copies the lists. */
    public TckReport {
        results = List.copyOf(results);
        notes = List.copyOf(notes);
    }

    /**
     * @param reports reports of several backends
     * @return one report holding them all
     */
    public static TckReport merge(List<TckReport> reports) {
        List<CaseResult> results = new ArrayList<>();
        Set<String> notes = new LinkedHashSet<>();
        for (TckReport r : reports) {
            results.addAll(r.results());
            notes.addAll(r.notes());
        }
        return new TckReport(results, new ArrayList<>(notes));
    }

    /** @return true if no case failed (skipped ones are not failures, and not passes either) */
    public boolean passed() {
        return count(Status.FAILED) == 0;
    }

    /**
     * @param status an outcome
     * @return how many cases had it
     */
    public long count(Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** What a run says about one backend. */
    public enum Verdict {
        /** Every case it ran passed; skipped ones were optional features it declares it lacks. */
        CONFORMANT,
        /** At least one case failed. */
        NOT_CONFORMANT,
        /** Nothing ran: the backend is unavailable here. */
        NOT_RUN
    }

    /** @return each backend's verdict, in first-seen order */
    public Map<String, Verdict> verdicts() {
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        for (CaseResult r : results) {
            Verdict now = r.status() == Status.FAILED ? Verdict.NOT_CONFORMANT
                    : r.status() == Status.PASSED ? Verdict.CONFORMANT : Verdict.NOT_RUN;
            verdicts.merge(r.backend(), now, (a, b) -> a == Verdict.NOT_CONFORMANT || b == Verdict.NOT_CONFORMANT
                    ? Verdict.NOT_CONFORMANT : a == Verdict.CONFORMANT || b == Verdict.CONFORMANT
                    ? Verdict.CONFORMANT : Verdict.NOT_RUN);
        }
        return verdicts;
    }

    /** @return the failed cases */
    public List<CaseResult> failures() {
        return results.stream().filter(r -> r.status() == Status.FAILED).toList();
    }

    /**
     * One row of the conformance table: a backend, a kind of check, an op and a variant.
     *
     * @param backend the backend's name
     * @param kind the kind of check
     * @param op the op
     * @param variant the dtype, or for differential checks the pair compared
     * @param passed how many cases passed
     * @param skipped how many were skipped
     * @param failed how many failed
     * @param maxAbsError the largest absolute error among the cases that ran
     * @param maxRelError the largest relative error among the cases that ran
     */
    public record Row(String backend, Kind kind, String op, String variant, int passed, int skipped, int failed,
                      double maxAbsError, double maxRelError) {
    }

    /** @return the table's rows, grouped by backend × kind × op × variant in first-seen order */
    public List<Row> rows() {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (CaseResult r : results) {
            String key = r.backend() + "\u0000" + r.kind() + "\u0000" + r.op() + "\u0000" + r.variant();
            Row old = rows.getOrDefault(key, new Row(r.backend(), r.kind(), r.op(), r.variant(), 0, 0, 0, 0, 0));
            rows.put(key, new Row(old.backend(), old.kind(), old.op(), old.variant(),
                    old.passed() + (r.status() == Status.PASSED ? 1 : 0),
                    old.skipped() + (r.status() == Status.SKIPPED ? 1 : 0),
                    old.failed() + (r.status() == Status.FAILED ? 1 : 0),
                    Math.max(old.maxAbsError(), r.maxAbsError()), Math.max(old.maxRelError(), r.maxRelError())));
        }
        return List.copyOf(rows.values());
    }

    /**
     * @return for each backend that ran nothing because it is unavailable here, why (its provider's reason), in
     *     first-seen order
     */
    public Map<String, String> unavailableReasons() {
        Map<String, String> reasons = new LinkedHashMap<>();
        verdicts().forEach((backend, verdict) -> {
            if (verdict == Verdict.NOT_RUN) {
                String prefix = TckRunner.unavailable(backend);
                results.stream().filter(r -> r.backend().equals(backend)).findFirst().map(CaseResult::message)
                        .ifPresent(m -> reasons.put(backend, m.startsWith(prefix) ? m.substring(prefix.length()) : m));
            }
        });
        return reasons;
    }

    /**
     * @return the report as text, most important first: the totals and one verdict line per backend (an unavailable
     *     one with its reason, and nothing else about it); then the conformance table of the backends that ran
     *     (backend × kind × op × variant: passed, skipped, failed, max abs and rel error), the notes, the skip
     *     reasons and every failure message
     */
    public String toTable() {
        return toTable(Integer.MAX_VALUE);
    }

    /**
     * @param failureLines how many failure messages to print at most; the rest are counted in one line
     * @return {@link #toTable()} with at most {@code failureLines} failure messages
     */
    public String toTable(int failureLines) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "total: %d passed, %d skipped, %d failed%n", count(Status.PASSED),
                count(Status.SKIPPED), count(Status.FAILED)));
        Map<String, String> unavailable = unavailableReasons();
        verdicts().forEach((backend, verdict) -> {
            b.append("verdict: ").append(backend).append(' ')
                    .append(verdict.name().toLowerCase(Locale.ROOT).replace('_', ' '));
            if (unavailable.containsKey(backend)) {
                b.append(", unavailable here: ").append(unavailable.get(backend));
            }
            b.append('\n');
        });
        List<Row> rows = rows().stream().filter(r -> !unavailable.containsKey(r.backend())).toList();
        if (!rows.isEmpty()) {
            int backendWidth = Math.max(7, rows.stream().mapToInt(r -> r.backend().length()).max().orElse(0));
            int opWidth = Math.max(2, rows.stream().mapToInt(r -> r.op().length()).max().orElse(0));
            int variantWidth = Math.max(7, rows.stream().mapToInt(r -> r.variant().length()).max().orElse(0));
            String format = "%-" + backendWidth + "s  %-12s  %-" + opWidth + "s  %-" + variantWidth
                    + "s  %6s  %7s  %6s  %11s  %11s%n";
            b.append('\n').append(String.format(Locale.ROOT, format, "backend", "kind", "op", "variant", "passed",
                    "skipped", "failed", "max abs err", "max rel err"));
            for (Row r : rows) {
                b.append(String.format(Locale.ROOT, format, r.backend(), r.kind().label(), r.op(), r.variant(),
                        r.passed(), r.skipped(), r.failed(), error(r.maxAbsError()), error(r.maxRelError())));
            }
        }
        for (String note : notes) {
            if (unavailable.keySet().stream().noneMatch(n -> note.startsWith(DifferentialSuite.unavailablePeer(n)))) {
                b.append("note: ").append(note).append('\n');
            }
        }
        Map<String, Integer> skipReasons = new LinkedHashMap<>();
        for (CaseResult r : results) {
            if (r.status() == Status.SKIPPED && !unavailable.containsKey(r.backend())) {
                skipReasons.merge(r.backend() + ": " + r.message(), 1, Integer::sum);
            }
        }
        skipReasons.forEach((reason, n) -> b.append("skipped ").append(n).append(" × ").append(reason).append('\n'));
        List<CaseResult> failures = failures();
        for (CaseResult r : failures.subList(0, Math.min(failureLines, failures.size()))) {
            b.append("FAILED ").append(r.testName()).append(" on ").append(r.backend()).append(": ")
                    .append(r.message()).append('\n');
        }
        if (failures.size() > failureLines) {
            b.append("… and ").append(failures.size() - failureLines)
                    .append(" more failures, each in the JSON report\n");
        }
        return b.toString();
    }

    private static String error(double e) {
        return e == 0 ? "0" : String.format(Locale.ROOT, "%.2e", e);
    }

    /**
     * A NaN or infinite error is written as the string {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"}, the
     * project's one rule for non-finite numbers in JSON (SEMANTICS.md).
     *
     * @return {@code {"summary": {...}, "verdicts": {...}, "notes": [...], "rows": [...], "results": [...]}}
     */
    public String toJson() {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeObjectFieldStart("summary");
            g.writeNumberField("passed", count(Status.PASSED));
            g.writeNumberField("skipped", count(Status.SKIPPED));
            g.writeNumberField("failed", count(Status.FAILED));
            g.writeEndObject();
            g.writeObjectFieldStart("verdicts");
            for (Map.Entry<String, Verdict> v : verdicts().entrySet()) {
                g.writeStringField(v.getKey(), v.getValue().name());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("notes");
            for (String note : notes) {
                g.writeString(note);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("rows");
            for (Row r : rows()) {
                g.writeStartObject();
                g.writeStringField("backend", r.backend());
                g.writeStringField("kind", r.kind().label());
                g.writeStringField("op", r.op());
                g.writeStringField("variant", r.variant());
                g.writeNumberField("passed", r.passed());
                g.writeNumberField("skipped", r.skipped());
                g.writeNumberField("failed", r.failed());
                g.writeNumberField("maxAbsError", r.maxAbsError());
                g.writeNumberField("maxRelError", r.maxRelError());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("results");
            for (CaseResult r : results) {
                g.writeStartObject();
                g.writeStringField("backend", r.backend());
                g.writeStringField("kind", r.kind().label());
                g.writeStringField("op", r.op());
                g.writeStringField("test", r.testName());
                g.writeStringField("dtype", r.dtype().name());
                g.writeStringField("variant", r.variant());
                g.writeStringField("status", r.status().name());
                g.writeNumberField("maxAbsError", r.maxAbsError());
                g.writeNumberField("maxRelError", r.maxRelError());
                g.writeStringField("message", r.message());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append('\n').toString();
    }

    /**
     * @param file where to write {@link #toJson()}; parent folders are created
     * @throws IOException if it cannot be written
     */
    public void writeJson(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, toJson());
    }
}
