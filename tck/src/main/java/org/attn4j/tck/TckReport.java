package org.attn4j.tck;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The outcome of a kit run: every case's result, notes on what was and was not compared, the versions checked and
 * the filter applied. {@link #toTable()} is the report a backend's author reads first (totals, verdicts, a summary
 * per op, folded skips, the peers that ran, notes, a legend of case names, failures); {@link #toDetail()} the table
 * per backend × kind × op × variant; {@link #toJson()} all of it as JSON.
 *
 * @param results every case, in run order
 * @param notes human sentences about the run
 * @param kitVersion the kit's version, or null if unknown
 * @param apiVersion the version of the api on the class path, or null if unknown
 * @param filter the {@code --only} / case filter of a partial run, or null for a whole run
 */
public record TckReport(List<CaseResult> results, List<String> notes, String kitVersion, String apiVersion,
                        String filter) {
    private static final JsonFactory JSON = new JsonFactory();
    /** The legend printed after the notes: how to read a case's name. */
    static final List<String> LEGEND = List.of(
            "required_<case>[…] must pass on every backend; optional_<case>[…] needs a dtype or feature the backend"
                    + " may declare it lacks (then it is skipped, never passed)",
            "[F32] / [F64]: the dtype of the run; [F32 a~b]: backend a's F32 result against backend b's;"
                    + " [F32~F64]: against the backend's own F64; [F32~reference]: against the kit's host reference"
                    + " in F64; [F32 fused~reference]: ops.attention against ReferenceAttention on the backend's"
                    + " primitives",
            "golden names: matmul_MxKxN_TN (transposeA T, transposeB N), attn_* (an attention option set), <op>_*;"
                    + " differential: diff_<op>_<variant>_<dims> (attention dims B×H×Lq×Lk×d_k×d_v); law_*: a"
                    + " property of the backend alone; bad_input_*: a mistake that must throw; wiring_*: how the"
                    + " backend is found and what it declares; model_*: a whole model",
            "error÷scale: the largest |actual − expected| of a case divided by its largest |expected|;"
                    + " ÷tolerance: the largest |actual − expected| ÷ (abs + rel·|expected|), 1 being the limit;"
                    + " a failure spells out the operands' shapes and the op's flags");

    /** Copies the lists. */
    public TckReport {
        results = List.copyOf(results);
        notes = List.copyOf(notes);
    }

    /**
     * A report without versions or filter.
     *
     * @param results every case, in run order
     * @param notes human sentences about the run
     */
    public TckReport(List<CaseResult> results, List<String> notes) {
        this(results, notes, null, null, null);
    }

    /**
     * @param reports reports of several backends
     * @return one report holding them all, with the first report's versions and filter
     */
    public static TckReport merge(List<TckReport> reports) {
        List<CaseResult> results = new ArrayList<>();
        Set<String> notes = new LinkedHashSet<>();
        for (TckReport r : reports) {
            results.addAll(r.results());
            notes.addAll(r.notes());
        }
        TckReport first = reports.isEmpty() ? new TckReport(List.of(), List.of()) : reports.get(0);
        return new TckReport(results, new ArrayList<>(notes), first.kitVersion(), first.apiVersion(),
                first.filter());
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
        /**
         * Nothing failed and it ran cases beyond its wiring; skipped ones were optional features it declares it
         * lacks.
         */
        CONFORMANT,
        /** At least one case failed, its wiring included. */
        NOT_CONFORMANT,
        /** Nothing failed, but nothing beyond its wiring ran either: the backend is unavailable here. */
        NOT_RUN
    }

    /** @return each backend's verdict, in first-seen order */
    public Map<String, Verdict> verdicts() {
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        for (CaseResult r : results) {
            Verdict now = r.status() == Status.FAILED ? Verdict.NOT_CONFORMANT
                    : r.status() == Status.PASSED && r.kind() != Kind.WIRING ? Verdict.CONFORMANT : Verdict.NOT_RUN;
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
     * One row of the detail table: a backend, a kind of check, an op and a variant.
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
     * @param errorToScale the largest absolute error of a case divided by that case's scale
     * @param toleranceUsed the largest fraction of the tolerance a case used
     */
    public record Row(String backend, Kind kind, String op, String variant, int passed, int skipped, int failed,
                      double maxAbsError, double maxRelError, double errorToScale, double toleranceUsed) {
        Row add(CaseResult r) {
            return new Row(backend, kind, op, variant, passed + (r.status() == Status.PASSED ? 1 : 0),
                    skipped + (r.status() == Status.SKIPPED ? 1 : 0), failed + (r.status() == Status.FAILED ? 1 : 0),
                    Math.max(maxAbsError, r.maxAbsError()), Math.max(maxRelError, r.maxRelError()),
                    Math.max(errorToScale, r.errorToScale()), Math.max(toleranceUsed, r.toleranceUsed()));
        }
    }

    /** @return the detail table's rows, grouped by backend × kind × op × variant in first-seen order */
    public List<Row> rows() {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (CaseResult r : results) {
            String key = r.backend() + "\u0000" + r.kind() + "\u0000" + r.op() + "\u0000" + r.variant();
            rows.put(key, rows.getOrDefault(key, new Row(r.backend(), r.kind(), r.op(), r.variant(), 0, 0, 0, 0, 0,
                    0, 0)).add(r));
        }
        return List.copyOf(rows.values());
    }

    /**
     * One row of the summary per op, as ONNX's backend test report has per operator.
     *
     * @param backend the backend's name
     * @param op the op
     * @param passed how many of its cases passed
     * @param failed how many failed
     * @param skipped how many were skipped
     * @param errorToScale the largest absolute error of a case divided by that case's scale
     * @param toleranceUsed the largest fraction of its tolerance a case used
     * @param kinds the kinds of check that ran it, in {@link Kind} order
     */
    public record OpSummary(String backend, String op, int passed, int failed, int skipped, double errorToScale,
                            double toleranceUsed, Set<Kind> kinds) {
    }

    /** @return one summary per backend and op, ops grouped with their {@code .weights} and the like */
    public List<OpSummary> opSummaries() {
        Map<String, List<CaseResult>> byOp = new LinkedHashMap<>();
        for (CaseResult r : results) {
            String op = r.op().contains(".") ? r.op().substring(0, r.op().indexOf('.')) : r.op();
            byOp.computeIfAbsent(r.backend() + "\u0000" + op, k -> new ArrayList<>()).add(r);
        }
        List<OpSummary> out = new ArrayList<>();
        byOp.forEach((key, cases) -> {
            Set<Kind> kinds = cases.stream().filter(c -> c.status() != Status.SKIPPED).map(CaseResult::kind)
                    .collect(Collectors.toCollection(() -> EnumSet.noneOf(Kind.class)));
            out.add(new OpSummary(key.substring(0, key.indexOf('\u0000')), key.substring(key.indexOf('\u0000') + 1),
                    (int) cases.stream().filter(c -> c.status() == Status.PASSED).count(),
                    (int) cases.stream().filter(c -> c.status() == Status.FAILED).count(),
                    (int) cases.stream().filter(c -> c.status() == Status.SKIPPED).count(),
                    cases.stream().mapToDouble(CaseResult::errorToScale).max().orElse(0),
                    cases.stream().mapToDouble(CaseResult::toleranceUsed).max().orElse(0),
                    Collections.unmodifiableSet(kinds)));
        });
        return out;
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
                results.stream().filter(r -> r.backend().equals(backend) && r.status() == Status.SKIPPED)
                        .findFirst().map(CaseResult::message)
                        .ifPresent(m -> reasons.put(backend, m.startsWith(prefix) ? m.substring(prefix.length()) : m));
            }
        });
        return reasons;
    }

    /**
     * @return for each backend, the comparisons its differential cases made ({@code F32 ejml~nd4j}, {@code
     *     F32~reference}, …) with how many cases of each ran; pairs none of whose cases ran are left out
     */
    public Map<String, Map<String, Integer>> peersThatRan() {
        Map<String, Map<String, Integer>> pairs = new LinkedHashMap<>();
        for (CaseResult r : results) {
            if (r.kind() == Kind.DIFFERENTIAL && r.status() != Status.SKIPPED) {
                pairs.computeIfAbsent(r.backend(), b -> new LinkedHashMap<>()).merge(r.variant(), 1, Integer::sum);
            }
        }
        return pairs;
    }

    /** @return the report as text; see {@link #toTable(int)} */
    public String toTable() {
        return toTable(Integer.MAX_VALUE);
    }

    /**
     * The report a backend's author reads first, most important first: the versions, the totals and one verdict
     * line per backend (an unavailable one with its reason, and nothing else about it); then per backend that ran a
     * summary per op (passed, failed, skipped, the largest error relative to the case's scale and to the
     * tolerance, the kinds of check), the skipped cases folded into one line per reason, the peers its
     * differential cases were compared with, what its passing cases noted; the run's notes, a legend of case names,
     * and the failures.
     *
     * @param failureLines how many failure messages to print at most; the rest are counted in one line
     * @return the report as text
     */
    public String toTable(int failureLines) {
        StringBuilder b = new StringBuilder();
        if (kitVersion != null || apiVersion != null) {
            b.append("attn4j-tck ").append(kitVersion == null ? "(version unknown)" : kitVersion)
                    .append(" on attn4j-api ").append(apiVersion == null ? "(version unknown)" : apiVersion)
                    .append('\n');
        }
        b.append(String.format(Locale.ROOT, "total: %d passed, %d skipped, %d failed%n", count(Status.PASSED),
                count(Status.SKIPPED), count(Status.FAILED)));
        Map<String, String> unavailable = unavailableReasons();
        verdicts().forEach((backend, verdict) -> {
            b.append("verdict: ").append(backend).append(' ')
                    .append(verdict.name().toLowerCase(Locale.ROOT).replace('_', ' '));
            if (unavailable.containsKey(backend)) {
                b.append(", unavailable here: ").append(unavailable.get(backend));
            } else if (filter != null) {
                b.append(" on the cases selected by ").append(filter).append(" (a partial run: no conformance"
                        + " claim)");
            }
            b.append('\n');
        });
        for (String backend : verdicts().keySet()) {
            if (!unavailable.containsKey(backend)) {
                summary(b, backend);
            }
        }
        for (String note : notes) {
            if (unavailable.keySet().stream().noneMatch(n -> note.startsWith(DifferentialSuite.unavailablePeer(n)))) {
                b.append("note: ").append(note).append('\n');
            }
        }
        if (!results.isEmpty() && unavailable.size() < verdicts().size()) {
            LEGEND.forEach(l -> b.append("legend: ").append(l).append('\n'));
        }
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

    private void summary(StringBuilder b, String backend) {
        List<OpSummary> ops = opSummaries().stream().filter(s -> s.backend().equals(backend)
                && s.passed() + s.failed() > 0).toList();
        if (!ops.isEmpty()) {
            int opWidth = Math.max(2, ops.stream().mapToInt(s -> s.op().length()).max().orElse(0));
            String format = "%-" + opWidth + "s  %6s  %6s  %7s  %11s  %10s  %s%n";
            b.append('\n').append(backend).append(", per op:\n");
            b.append(String.format(Locale.ROOT, format, "op", "passed", "failed", "skipped", "error÷scale",
                    "÷tolerance", "checked by"));
            for (OpSummary s : ops) {
                b.append(String.format(Locale.ROOT, format, s.op(), s.passed(), s.failed(), s.skipped(),
                        error(s.errorToScale()), fraction(s.toleranceUsed()), s.kinds().stream()
                                .map(Kind::label).collect(Collectors.joining(", "))));
            }
        }
        Map<String, Map<String, Integer>> skips = new LinkedHashMap<>();
        for (CaseResult r : results) {
            if (r.backend().equals(backend) && r.status() == Status.SKIPPED) {
                skips.computeIfAbsent(r.message(), m -> new LinkedHashMap<>()).merge(r.kind().label(), 1,
                        Integer::sum);
            }
        }
        skips.forEach((reason, kinds) -> b.append("skipped ").append(kinds.values().stream()
                .mapToInt(Integer::intValue).sum()).append(" (").append(kinds.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))).append("): ")
                .append(reason).append('\n'));
        Map<String, Integer> peers = peersThatRan().getOrDefault(backend, Map.of());
        if (!peers.isEmpty()) {
            b.append("compared with: ").append(peers.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue()
                    + " cases)").collect(Collectors.joining("; "))).append('\n');
        }
        Map<String, Integer> noted = new LinkedHashMap<>();
        for (CaseResult r : results) {
            if (r.backend().equals(backend) && r.status() == Status.PASSED && !r.message().isEmpty()) {
                noted.merge(r.message(), 1, Integer::sum);
            }
        }
        noted.forEach((note, n) -> b.append("noted").append(n > 1 ? " " + n + " ×" : "").append(": ").append(note)
                .append('\n'));
    }

    /**
     * @return the detail table: one row per backend × kind × op × variant of the backends that ran, rows whose
     *     every case was skipped left out (the skip lines of {@link #toTable()} give their reasons)
     */
    public String toDetail() {
        Map<String, String> unavailable = unavailableReasons();
        List<Row> rows = rows().stream().filter(r -> !unavailable.containsKey(r.backend())
                && r.passed() + r.failed() > 0).toList();
        if (rows.isEmpty()) {
            return "";
        }
        int backendWidth = Math.max(7, rows.stream().mapToInt(r -> r.backend().length()).max().orElse(0));
        int opWidth = Math.max(2, rows.stream().mapToInt(r -> r.op().length()).max().orElse(0));
        int variantWidth = Math.max(7, rows.stream().mapToInt(r -> r.variant().length()).max().orElse(0));
        String format = "%-" + backendWidth + "s  %-12s  %-" + opWidth + "s  %-" + variantWidth
                + "s  %6s  %7s  %6s  %11s  %10s  %11s  %11s%n";
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, format, "backend", "kind", "op", "variant",
                "passed", "skipped", "failed", "error÷scale", "÷tolerance", "max abs err", "max rel err"));
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, format, r.backend(), r.kind().label(), r.op(), r.variant(),
                    r.passed(), r.skipped(), r.failed(), error(r.errorToScale()), fraction(r.toleranceUsed()),
                    error(r.maxAbsError()), error(r.maxRelError())));
        }
        return b.toString();
    }

    private static String error(double e) {
        return e == 0 ? "0" : Double.isInfinite(e) ? "inf" : String.format(Locale.ROOT, "%.2e", e);
    }

    private static String fraction(double f) {
        return f == 0 ? "0" : Double.isInfinite(f) ? "inf" : String.format(Locale.ROOT, "%.2g", f);
    }

    /**
     * A NaN or infinite error is written as the string {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"}, the
     * project's one rule for non-finite numbers in JSON (SEMANTICS.md).
     *
     * @return {@code {"versions": {...}, "filter": ..., "summary": {...}, "verdicts": {...}, "notes": [...],
     *     "ops": [...], "rows": [...], "results": [...]}}
     */
    public String toJson() {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeObjectFieldStart("versions");
            g.writeStringField("kit", kitVersion);
            g.writeStringField("api", apiVersion);
            g.writeEndObject();
            g.writeStringField("filter", filter);
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
            g.writeObjectFieldStart("comparedWith");
            for (Map.Entry<String, Map<String, Integer>> p : peersThatRan().entrySet()) {
                g.writeObjectFieldStart(p.getKey());
                for (Map.Entry<String, Integer> e : p.getValue().entrySet()) {
                    g.writeNumberField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeArrayFieldStart("ops");
            for (OpSummary s : opSummaries()) {
                g.writeStartObject();
                g.writeStringField("backend", s.backend());
                g.writeStringField("op", s.op());
                g.writeNumberField("passed", s.passed());
                g.writeNumberField("failed", s.failed());
                g.writeNumberField("skipped", s.skipped());
                g.writeNumberField("errorToScale", s.errorToScale());
                g.writeNumberField("toleranceUsed", s.toleranceUsed());
                g.writeArrayFieldStart("kinds");
                for (Kind k : s.kinds()) {
                    g.writeString(k.label());
                }
                g.writeEndArray();
                g.writeEndObject();
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
                g.writeNumberField("errorToScale", r.errorToScale());
                g.writeNumberField("toleranceUsed", r.toleranceUsed());
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
                g.writeNumberField("errorToScale", r.errorToScale());
                g.writeNumberField("toleranceUsed", r.toleranceUsed());
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
