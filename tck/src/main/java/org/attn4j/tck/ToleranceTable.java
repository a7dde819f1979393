package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.attn4j.api.DType;

/**
 * The tolerance of every op per dtype, each with the reason for its value, plus the overrides a backend declared.
 * Look-up order: a matching override, then a default entry whose case pattern names the case, then the op's
 * default entry.
 *
 * <p>F32 results are compared with the F64 golden value rounded to F32 (so an F32 overflow to infinity or
 * underflow to zero is expected, not an error); the F32 inputs are the golden inputs rounded to F32, so every F32
 * tolerance has to absorb that input rounding (2<sup>-24</sup> relative per input) as the op propagates it.
 */
public final class ToleranceTable {
    private static final String EXACT_F64 = "moves, selects or compares values and rounds nothing, so the result is"
            + " the golden value bit for bit";
    private static final String EXACT_F32 = "the F32 input is the golden input rounded to F32 and the op moves it"
            + " unchanged, so the result is the golden output rounded to F32, bit for bit";
    private static final Set<String> EXACT = Set.of("reshape", "permute", "transpose", "concat", "split", "chunk",
            "embedding", "cast", "relu", "max", "maskCausal", "maskKeyPadding", "additiveMask");
    private static final Set<String> ELEMENTWISE = Set.of("add", "sub", "mul", "div", "scale", "dropout");
    private static final Set<String> REDUCTIONS = Set.of("sum", "mean");
    private static final Set<String> PRODUCTS = Set.of("matmul", "linear");

    private static final List<Entry> DEFAULTS = List.of(
            new Entry(EXACT, DType.F64, ".*", new Tolerance(0, 0, EXACT_F64)),
            new Entry(EXACT, DType.F32, ".*", new Tolerance(0, 0, EXACT_F32)),
            new Entry(ELEMENTWISE, DType.F64, ".*", new Tolerance(0, 4.5e-16,
                    "IEEE +, −, ×, ÷ are correctly rounded, so they match PyTorch bit for bit; 2 ulps (2·2^-52) allow"
                            + " a division or dropout's 1/(1−p) computed as a multiplication by a reciprocal")),
            new Entry(ELEMENTWISE, DType.F32, ".*", new Tolerance(1e-6, 3e-7,
                    "each F32 input is the golden one rounded (2^-24 relative each) and the op rounds once: at most"
                            + " 3·2^-24 = 1.8e-7 relative, with margin; the absolute 1e-6 covers add/sub cancellation,"
                            + " where the inputs' rounding (|a|+|b|)·2^-24 shows against a small result")),
            new Entry(Set.of("exp"), DType.F64, ".*", new Tolerance(0, 4.5e-16,
                    "Math.exp and the C library's exp are each within 1 ulp of the true value")),
            new Entry(Set.of("exp"), DType.F32, ".*", new Tolerance(0, 6e-6,
                    "exp turns the input's rounding error into a relative error of |x|·2^-24; |x| reaches 88 before"
                            + " F32 overflows: 88·2^-24 = 5.2e-6")),
            new Entry(Set.of("gelu"), DType.F64, ".*", new Tolerance(1e-15, 1e-13,
                    "erf is not in java.lang.Math, so each backend brings its own erf (or tanh for the tanh form);"
                            + " F64 erf approximations reach 1e-16 (W. J. Cody), 1e-13 leaves room for a simpler one")),
            new Entry(Set.of("gelu"), DType.F32, ".*", new Tolerance(1e-6, 1e-6,
                    "the input's rounding (|x|·2^-24, |x| ≤ 5) moves gelu by about as much, as its slope is at most"
                            + " 1.13; plus F32 rounding of erf and the product")),
            new Entry(REDUCTIONS, DType.F64, ".*", new Tolerance(2e-12, 1e-13,
                    "summation order differs from PyTorch's (pairwise, vectorised); the error bound is n·ε·Σ|x| with"
                            + " n ≤ 129: 1.4e-12 absolute for unit-size values, 1.4e-14 relative with an offset of 1000")),
            new Entry(REDUCTIONS, DType.F32, ".*", new Tolerance(2e-5, 2e-6,
                    "inputs rounded to F32 (Σ|x|·2^-24) plus a naive sum's n·2^-24·Σ|x| with n ≤ 129, of which a"
                            + " tenth is reached in practice (rounding errors are random, growing as √n)")),
            new Entry(Set.of("variance"), DType.F64, ".*", new Tolerance(2e-12, 1e-12,
                    "a sum of squared deviations after a mean (both reductions as above); a one-pass formula"
                            + " would lose more and is not allowed")),
            new Entry(Set.of("variance"), DType.F32, ".*", new Tolerance(2e-5, 2e-5,
                    "the squared deviations carry the inputs' rounding twice: 2·|x−mean|·|x|·2^-24 per element")),
            new Entry(Set.of("variance"), DType.F32, ".*offset.*|.*_2x129_.*", new Tolerance(2e-4, 1e-4,
                    "values near 1000 lose 3e-5 each when rounded to F32 (ulp(1000)/2), and the variance of unit-size"
                            + " deviations inherits 2·|x−mean|·3e-5")),
            new Entry(PRODUCTS, DType.F64, ".*", new Tolerance(2e-12, 1e-13,
                    "dot products of length k ≤ 129 summed in another order: k·ε·Σ|a·b| ≈ 129·1.1e-16·83 = 1.2e-12")),
            new Entry(PRODUCTS, DType.F32, ".*", new Tolerance(2e-5, 2e-5,
                    "inputs rounded to F32 (2·2^-24 relative per product) and k ≤ 129 F32 additions: k·2^-24·Σ|a·b|"
                            + " bounds it at 6e-4; random rounding grows as √k, giving 2e-5 for unit-normal inputs")),
            new Entry(Set.of("softmax"), DType.F64, ".*", new Tolerance(1e-16, 5e-14,
                    "e^(x−max) has relative error ε·|x−max| plus an ulp of exp, the normalising sum n·ε with"
                            + " n ≤ 129: (129 + |x−max| ≤ 300)·1.1e-16")),
            new Entry(Set.of("softmax"), DType.F32, ".*", new Tolerance(1e-7, 2e-5,
                    "rounding a logit x to F32 moves it by |x|·2^-24, which e^(x−max) turns into a relative error of"
                            + " as much (|x| ≤ 30 here), plus the sum's n·2^-24 (n ≤ 129)")),
            new Entry(Set.of("softmax"), DType.F32, ".*large_logits.*", new Tolerance(1e-6, 2e-3,
                    "logits near 3e4 are rounded to F32 with an error of up to ulp(3e4)/2 = 9.8e-4, which moves"
                            + " e^(x−max) by as much relative; no F32 backend can do better from F32 inputs")),
            new Entry(Set.of("layerNorm"), DType.F64, ".*", new Tolerance(1e-12, 1e-12,
                    "a mean and a variance (reductions, as above) then one division by sqrt(var + eps)")),
            new Entry(Set.of("layerNorm"), DType.F32, ".*", new Tolerance(1e-5, 1e-5,
                    "the reductions' F32 error (about 1e-6 relative) divided by a standard deviation near 1, then"
                            + " multiplied by gamma (|gamma| ≤ 3)")),
            new Entry(Set.of("layerNorm"), DType.F32, ".*offset1000.*", new Tolerance(2e-4, 1e-4,
                    "values near 1000 lose 3e-5 each when rounded to F32 (ulp(1000)/2); normalised by a standard"
                            + " deviation near 1 and scaled by gamma, that is up to 1e-4")),
            new Entry(Set.of("attention", "attention.weights"), DType.F64, ".*", new Tolerance(1e-13, 1e-12,
                    "two products of length ≤ 129 and a softmax (each as above); large-logit cases make the weights"
                            + " move by ε·|logit| ≈ 2e-12 relative for logits near 1e4")),
            new Entry(Set.of("attention", "attention.weights"), DType.F32, ".*", new Tolerance(2e-5, 1e-4,
                    "q·kᵀ in F32 (error ≈ 2e-5 as matmul) feeds e^(logit), a relative error of as much in each weight;"
                            + " weights·v adds the matmul error again")),
            new Entry(Set.of("attention", "attention.weights"), DType.F32, ".*large_logits.*", new Tolerance(5e-3, 5e-3,
                    "logits near 1e4 carry an F32 rounding error of ulp(1e4)/2 = 4.9e-4 from q·kᵀ alone, which moves"
                            + " each weight by that much relative; an F32 kernel cannot avoid it")),
            new Entry(Set.of("law"), DType.F64, ".*", new Tolerance(1e-12, 1e-12,
                    "a law compares two results of the same backend on the same data computed in another order or"
                            + " shape: only rounding differs, a few ulps times the reduction length")),
            new Entry(Set.of("law"), DType.F32, ".*", new Tolerance(5e-6, 5e-6,
                    "as for F64, with F32's ε = 2^-24 and reductions of length ≤ 64")));

    private final List<Entry> entries;
    private final List<ToleranceOverride> overrides;

    private ToleranceTable(List<Entry> entries, List<ToleranceOverride> overrides) {
        this.entries = List.copyOf(entries);
        this.overrides = List.copyOf(overrides);
    }

    /** @return the kit's default table, with no overrides */
    public static ToleranceTable defaults() {
        return new ToleranceTable(DEFAULTS, List.of());
    }

    /**
     * @param more overrides a backend declares
     * @return this table with {@code more} taking precedence over the defaults
     */
    public ToleranceTable withOverrides(Collection<ToleranceOverride> more) {
        List<ToleranceOverride> all = new ArrayList<>(more);
        all.addAll(overrides);
        return new ToleranceTable(entries, all);
    }

    /**
     * @param op the op as the report names it
     * @param caseName the case
     * @param dtype the element type of the run
     * @return the tolerance that applies
     * @throws IllegalStateException if the table has no entry for the op (a bug in the kit)
     */
    public Tolerance lookup(String op, String caseName, DType dtype) {
        for (ToleranceOverride o : overrides) {
            if (o.matches(op, caseName, dtype)) {
                return o.tolerance();
            }
        }
        Entry general = null;
        for (Entry e : entries) {
            if (e.ops().contains(op) && e.dtype() == dtype) {
                if (!e.casePattern().equals(".*") && caseName.matches(e.casePattern())) {
                    return e.tolerance();
                }
                if (e.casePattern().equals(".*")) {
                    general = e;
                }
            }
        }
        if (general == null) {
            throw new IllegalStateException("ToleranceTable: no tolerance for op " + op + " in " + dtype
                    + "; add an entry with its reason");
        }
        return general.tolerance();
    }

    /** @return the default entries, in table order */
    public List<Entry> entries() {
        return entries;
    }

    /** @return the overrides in force, most recently added first */
    public List<ToleranceOverride> overrides() {
        return overrides;
    }

    /** @return the table as Markdown: ops, dtype, cases, abs, rel, reason */
    public String toMarkdown() {
        StringBuilder b = new StringBuilder("| ops | dtype | cases | abs | rel | reason |\n|---|---|---|---|---|---|\n");
        for (Entry e : entries) {
            b.append("| ").append(String.join(", ", e.ops().stream().sorted().toList())).append(" | ")
                    .append(e.dtype()).append(" | `").append(e.casePattern()).append("` | ")
                    .append(e.tolerance().abs()).append(" | ").append(e.tolerance().rel()).append(" | ")
                    .append(e.tolerance().reason()).append(" |\n");
        }
        return b.toString();
    }

    /**
     * One row of the table.
     *
     * @param ops the ops it covers, as the report names them
     * @param dtype the element type
     * @param casePattern a regular expression over case names; {@code ".*"} for the op's default
     * @param tolerance the slack and its reason
     */
    public record Entry(Set<String> ops, DType dtype, String casePattern, Tolerance tolerance) {

        /** Copies the op set. */
        public Entry {
            ops = Set.copyOf(ops);
        }
    }
}
