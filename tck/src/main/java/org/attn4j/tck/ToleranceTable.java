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
            "embedding", "cast", "relu", "max", "maskCausal", "maskKeyPadding", "additiveMask", "writeSlice");
    private static final Set<String> ELEMENTWISE = Set.of("add", "sub", "mul", "div", "scale", "dropout");
    private static final Set<String> REDUCTIONS = Set.of("sum", "mean");
    private static final Set<String> PRODUCTS = Set.of("matmul", "linear");
    private static final Set<String> ATTENTION = Set.of("attention", "attention.weights", "packedAttention",
            "packedAttention.weights");
    private static final String ALL = ".*";

    private static final List<Entry> DEFAULTS = List.of(
            row(EXACT, DType.F64, ALL, 0, 0, EXACT_F64),
            row(EXACT, DType.F32, ALL, 0, 0, EXACT_F32),
            row(ELEMENTWISE, DType.F64, ALL, 0, 4.5e-16, "IEEE +, −, ×, ÷ are correctly rounded, so they match"
                    + " PyTorch bit for bit; 2 ulps (2·2^-52) allow a division or dropout's 1/(1−p) computed as a"
                    + " multiplication by a reciprocal"),
            row(ELEMENTWISE, DType.F32, ALL, 1e-6, 3e-7, "each F32 input is the golden one rounded (2^-24 relative"
                    + " each) and the op rounds once: at most 3·2^-24 = 1.8e-7 relative, with margin; the absolute"
                    + " 1e-6 covers add/sub cancellation, where the inputs' rounding (|a|+|b|)·2^-24 shows against a"
                    + " small result"),
            row(Set.of("exp"), DType.F64, ALL, 1e-320, 4.5e-16, "Math.exp and the C library's exp are each within"
                    + " 1 ulp of the true value; below the normal range (2.2e-308) implementations differ in where"
                    + " they flush to zero, which the absolute 1e-320 allows and nothing else"),
            row(Set.of("exp"), DType.F32, ALL, 0, 6e-6, "exp turns the input's rounding error into a relative error"
                    + " of |x|·2^-24; |x| reaches 88 before F32 overflows: 88·2^-24 = 5.2e-6"),
            row(Set.of("gelu"), DType.F64, ALL, 1e-15, 1e-13, "erf is not in java.lang.Math, so each backend brings"
                    + " its own erf (or tanh for the tanh form); F64 erf approximations reach 1e-16 (W. J. Cody),"
                    + " 1e-13 leaves room for a simpler one"),
            row(Set.of("gelu"), DType.F32, ALL, 1e-6, 1e-6, "the input's rounding (|x|·2^-24, |x| ≤ 5) moves gelu by"
                    + " about as much, as its slope is at most 1.13; plus F32 rounding of erf and the product"),
            row(REDUCTIONS, DType.F64, ALL, 2e-12, 1e-13, "summation order differs from PyTorch's (pairwise,"
                    + " vectorised); the error bound is n·ε·Σ|x| with n ≤ 129: 1.4e-12 absolute for unit-size values,"
                    + " 1.4e-14 relative with an offset of 1000"),
            row(REDUCTIONS, DType.F32, ALL, 1e-5, 2e-6, "inputs rounded to F32 (Σ|x|·2^-24) plus a naive sum's"
                    + " n·2^-24·Σ|x| with n ≤ 129, of which a tenth is reached in practice (rounding errors are"
                    + " random, growing as √n); 1e-5 is PyTorch's own default absolute tolerance for float32"),
            row(Set.of("variance"), DType.F64, ALL, 2e-12, 1e-12, "a sum of squared deviations after a mean (both"
                    + " reductions as above); a one-pass formula would lose more and is not allowed"),
            row(Set.of("variance"), DType.F32, ALL, 2e-5, 2e-5, "each squared deviation carries its input's rounding"
                    + " twice, 2·|x−mean|·|x|·2^-24: values near 1000 lose up to 3e-5 each (ulp(1000)/2), which"
                    + " averages to about 5e-6 over 129 values"),
            row(PRODUCTS, DType.F64, ALL, 2e-12, 1e-13, "dot products of length k ≤ 129 summed in another order:"
                    + " k·ε·Σ|a·b| ≈ 129·1.1e-16·83 = 1.2e-12"),
            row(PRODUCTS, DType.F32, ALL, 2e-5, 2e-5, "inputs rounded to F32 (2·2^-24 relative per product) and"
                    + " k ≤ 129 F32 additions: k·2^-24·Σ|a·b| bounds it at 6e-4; random rounding grows as √k, giving"
                    + " 2e-5 for unit-normal inputs"),
            row(Set.of("softmax"), DType.F64, ALL, 1e-16, 5e-14, "e^(x−max) has relative error ε·|x−max| plus an"
                    + " ulp of exp, the normalising sum n·ε with n ≤ 129: (129 + |x−max| ≤ 300)·1.1e-16"),
            row(Set.of("softmax"), DType.F32, ALL, 1e-7, 2e-5, "rounding a logit x to F32 moves it by |x|·2^-24,"
                    + " which e^(x−max) turns into a relative error of as much (|x| ≤ 30 here; the large logits, up"
                    + " to 3e4, are integers and exact in F32), plus the sum's n·2^-24 (n ≤ 129)"),
            row(Set.of("layerNorm"), DType.F64, ALL, 1e-12, 1e-12, "a mean and a variance (reductions, as above)"
                    + " then one division by sqrt(var + eps)"),
            row(Set.of("layerNorm"), DType.F32, ALL, 1e-5, 1e-5, "the reductions' F32 error (about 1e-6 relative)"
                    + " divided by a standard deviation near 1, then multiplied by gamma (|gamma| ≤ 3)"),
            row(Set.of("layerNorm"), DType.F32, ".*offset1000.*", 1e-4, 1e-4, "values near 1000 lose 3e-5 each"
                    + " when rounded to F32 (ulp(1000)/2); normalised by a standard deviation near 1 and scaled by"
                    + " gamma, that is up to 1e-4"),
            row(Set.of("rmsNorm"), DType.F64, ALL, 1e-13, 1e-13, "one mean of squares (a reduction of length"
                    + " ≤ 64, as above) and one division by its square root"),
            row(Set.of("rmsNorm"), DType.F32, ALL, 1e-5, 1e-5, "as layerNorm: the F32 inputs' rounding and the mean"
                    + " square's error (about 1e-6 relative), scaled by a weight |w| ≤ 3"),
            row(Set.of("silu"), DType.F64, ALL, 1e-300, 1e-15, "x/(1+e^-x) against x·sigmoid(x): exp within an ulp,"
                    + " one division; below 1e-300 the two forms underflow differently"),
            row(Set.of("silu"), DType.F32, ALL, 1e-6, 1e-6, "the input's rounding (|x|·2^-24, |x| ≤ 30) moves"
                    + " silu by as much, its slope being at most 1.1, plus F32 rounding of the result"),
            row(Set.of("rope"), DType.F64, ALL, 1e-13, 1e-12, "the angle (offset + p)·ω is one correctly rounded"
                    + " product in PyTorch and here alike, then cos and sin are each within an ulp in either library;"
                    + " the attention scaling is one more correctly rounded product"),
            row(Set.of("rope"), DType.F32, ALL, 2e-6, 2e-6, "each output is a·cos − b·sin of F32-rounded inputs"
                    + " (2·2^-24 relative each) with the angles exact in double, rounded once"),
            row(Set.of("softcap"), DType.F64, ALL, 5e-14, 1e-15, "c·tanh(x/c) with a library tanh (the spi's"
                    + " default uses Math.tanh) is within an ulp or two; a kernel that forms tanh(y) as"
                    + " 1 − 2/(e^(2y) + 1) errs near 0 by an absolute 3ε instead: times the goldens' caps (≤ 50),"
                    + " 3.3e-14"),
            row(Set.of("softcap"), DType.F32, ALL, 1e-5, 1e-6, "the input's rounding (2^-24 relative) moves"
                    + " c·tanh(x/c) by at most as much relative, its relative slope (x/c)·sech²(x/c)/tanh(x/c) being at"
                    + " most 1, plus a tanh within 2 ulps (CUDA's tanhf); a kernel through e^(2y) errs by an absolute"
                    + " 3·2^-24 near 0 instead: times the goldens' caps (≤ 50), 9e-6; the laws' cap of 10^6 holds"
                    + " such a kernel to its F64 form (the spi's default computes in double on the host)"),
            row(ATTENTION, DType.F64, ALL, 1e-13, 1e-12, "two products of length ≤ 129 and a softmax (each as"
                    + " above); large-logit cases make the weights move by ε·|logit| ≈ 2e-12 relative for logits"
                    + " near 1e4"),
            row(ATTENTION, DType.F32, ALL, 1e-5, 1e-5, "q·kᵀ of length d_k ≤ 64 in F32 errs by about 1e-6 (as"
                    + " matmul, scaled by 1/sqrt(d_k)) and e^logit turns that into as much relative error per"
                    + " weight; weights·v (weights ≤ 1, length ≤ 129) adds a matmul's error; 1e-5 is PyTorch's"
                    + " default absolute tolerance for float32"),
            row(Set.of("scope"), DType.F64, ALL, 0, 0, "a copy into or out of an F64 tensor moves values unchanged"),
            row(Set.of("scope"), DType.F32, ALL, 0, 0, "a copy into an F32 tensor rounds each value to nearest once,"
                    + " and the comparison expects exactly that rounding"),
            row(Set.of("law"), DType.F64, ALL, 1e-12, 1e-12, "a law compares two results of the same backend on the"
                    + " same data computed in another order or shape: only rounding differs, a few ulps times the"
                    + " reduction length"),
            row(Set.of("law"), DType.F32, ALL, 5e-6, 5e-6, "as for F64, with F32's ε = 2^-24 and reductions of"
                    + " length ≤ 64"),
            row(Set.of(ModelSuite.MINILM_OP), DType.F64, ALL, 1e-7, 0, "the arithmetic is F64 on the model's F32"
                    + " weights, as the reference's (errors near 1e-13), but embeddings are returned as float: one"
                    + " F32 rounding of values below 1, at most 6e-8"),
            row(Set.of(ModelSuite.MINILM_OP), DType.F32, ALL, 1e-4, 0, "six layers of F32 products of length 384"
                    + " and 1536, softmaxes and layer norms carry relative errors near 1e-6 through mean pooling and"
                    + " normalisation; ONNX Runtime differs from float64 by about 2e-6, and 1e-4 is the models"
                    + " module's bound against it"),
            row(Set.of(ModelSuite.DECODER_OP), DType.F64, ALL, 1e-10, 1e-10, "two blocks of products of length up"
                    + " to 48, norms and attention in another order than PyTorch's: a few hundred ulps"),
            row(Set.of(ModelSuite.DECODER_OP), DType.F32, ALL, 2e-4, 2e-4, "two blocks of F32 products of length"
                    + " up to 48 and norms, whose 1e-6 relative errors the residual stream carries into logits of"
                    + " magnitude up to about 10"));

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
                if (!e.casePattern().equals(ALL) && caseName.matches(e.casePattern())) {
                    return e.tolerance();
                }
                if (e.casePattern().equals(ALL)) {
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

    private static Entry row(Set<String> ops, DType dtype, String cases, double abs, double rel, String reason) {
        return new Entry(ops, dtype, cases, new Tolerance(abs, rel, reason));
    }

    /** @return the default entries, in table order */
    public List<Entry> entries() {
        return entries;
    }

    /** @return the overrides in force, most recently added first */
    public List<ToleranceOverride> overrides() {
        return overrides;
    }

    /** @return the table as Markdown (ops, dtype, cases, abs, rel, reason), pipes in reasons escaped */
    public String toMarkdown() {
        StringBuilder b = new StringBuilder("| ops | dtype | cases | abs | rel | reason |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Entry e : entries) {
            b.append("| ").append(String.join(", ", e.ops().stream().sorted().toList())).append(" | ")
                    .append(e.dtype()).append(" | `").append(e.casePattern()).append("` | ")
                    .append(e.tolerance().abs()).append(" | ").append(e.tolerance().rel()).append(" | ")
                    .append(e.tolerance().reason().replace("|", "\\|")).append(" |\n");
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
