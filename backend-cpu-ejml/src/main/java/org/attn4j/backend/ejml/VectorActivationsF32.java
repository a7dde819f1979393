package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The epilogue steps of {@code linear} on explicit SIMD vectors, each in place over a run of a row: adding a row
 * (a bias, an up projection, a residual), multiplying by one (a gate), and the activations in F32:
 * <pre>
 *   relu(x)      = max(x, 0), NaN kept
 *   gelu(x)      = x·Φ(x),   Φ(x) = ½·erfc(|x|/√2) for x &lt; 0, 1 - ½·erfc(x/√2) otherwise
 *   geluTanh(x)  = x / (1 + e^(-2·√(2/π)·(x + 0.044715·x³)))       (= x/2·(1 + tanh(…)))
 *   silu(x)      = x / (1 + e^-x)
 * </pre>
 * {@code erfc(z) = t·e^(-z² + P(t))}, {@code t = 1/(1 + z/2)}, {@code P} the degree-9 polynomial of Numerical
 * Recipes' {@code erfcc} (relative error below 1.2e-7 for every {@code z ≥ 0}), with {@code z² = x²/2} carried as
 * an exact sum of two floats and the rounding of {@code -z² + P} carried beside it, so that the tail keeps its
 * relative accuracy: a few ulp on every input, large negative ones included, where {@code 1 + erf} would cancel.
 * {@code e^x} ({@link #expReducePass}, {@link #expScalePass}) splits {@code x = n·ln2 + r} (Cody-Waite, two
 * constants), takes Cephes' polynomial on {@code |r| ≤ ln2/2} and {@code 2ⁿ} from the exponent bits; it is 0 where
 * the result would be subnormal (below {@code -87.3}) and {@code +∞} above {@code 88.72}; NaN gives NaN throughout.
 *
 * <p>The activations run in chunks of {@link #CHUNK} elements copied into a per-thread scratch, one short pass per
 * step over each chunk, the last vector zero-padded. That is how the kernels stay within what C2 compiles to
 * vector instructions in every JVM ({@link VectorGemmF32} explains): no pass makes more than about 20 Vector API
 * calls, no pass is inlined into another ({@link #run}), and a vector is the receiver of a call only where it is
 * fresh. Only callers that {@link Simd#enabled()}
 * admitted may load this class.
 */
final class VectorActivationsF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
    private static final int LANES = SPECIES.length();
    /** Elements per chunk; the scratch holds five chunks. */
    private static final int CHUNK = 256;
    private static final int X = 0;
    private static final int A = CHUNK;
    private static final int B = 2 * CHUNK;
    private static final int C = 3 * CHUNK;
    private static final int D = 4 * CHUNK;

    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    /** {@code 1.5·2²³ + 126}: adding it rounds to an integer {@code n} and leaves {@code n + 126} in the low bits. */
    private static final float ROUND_BIASED = 12583038f;
    /** Below it, {@code e^x} is under F32's smallest normal number and the exponent bits give exactly 0. */
    private static final float EXP_LOW = -87.68f;
    /** Past {@code ln(MAX_VALUE) = 88.72} the last product overflows to +∞; below 89, {@code n} fits the exponent. */
    private static final float EXP_HIGH = 89f;
    private static final float[] EXP = {
        1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f,
    };

    private static final float HALF_SQRT_HALF = 0.35355339059327376f;
    /** Beyond it {@code erfc(|x|/√2)} is 0 in F32; clamping keeps {@code x²} finite for infinite {@code x}. */
    private static final float ERFC_CLAMP = 16f;
    private static final float[] ERFC = {
        -1.26551223f, 1.00002368f, 0.37409196f, 0.09678418f, -0.18628806f,
        0.27886807f, -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f,
    };
    private static final float TANH_SCALE = 2 * 0.7978845608028654f;
    private static final float TANH_CUBE = 0.044715f;

    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[5 * CHUNK]);

    /** One step of an activation over the first {@code n} (whole vectors) of each part of the scratch. */
    @FunctionalInterface
    private interface Pass {
        void run(float[] s, int n);
    }

    private static final Pass[] SILU_PASSES = {
        VectorActivationsF32::negatePass, VectorActivationsF32::expReducePass, VectorActivationsF32::expScalePass,
        VectorActivationsF32::quotientPass,
    };
    private static final Pass[] GELU_TANH_PASSES = {
        VectorActivationsF32::tanhArgumentPass, VectorActivationsF32::expReducePass,
        VectorActivationsF32::expScalePass, VectorActivationsF32::quotientPass,
    };
    private static final Pass[] GELU_PASSES = {
        VectorActivationsF32::erfcPolynomialPass, VectorActivationsF32::erfcArgumentPass,
        VectorActivationsF32::expReducePass, VectorActivationsF32::expScalePass, VectorActivationsF32::geluPass,
    };

    /** The steps of {@link #step}. */
    static final int ADD = 0;
    static final int MUL = 1;
    static final int RELU = 2;
    static final int GELU = 3;
    static final int GELU_TANH = 4;
    static final int SILU = 5;

    /** One step of the epilogue over a run of a row, {@code a} its operand where it has one. */
    @FunctionalInterface
    private interface RowStep {
        void apply(float[] y, int yo, float[] a, int ao, int len);
    }

    private static final RowStep[] STEPS = {
        VectorActivationsF32::add, VectorActivationsF32::mul, (y, yo, a, ao, len) -> relu(y, yo, len),
        (y, yo, a, ao, len) -> gelu(y, yo, len), (y, yo, a, ao, len) -> geluTanh(y, yo, len),
        (y, yo, a, ao, len) -> silu(y, yo, len),
    };

    private VectorActivationsF32() {
    }

    /**
     * Runs one step of the epilogue over a run of a row. Every step is called from the one call site here, so that a
     * caller that calls this method once (as {@link Epilogues} does) inlines at most the two steps its profile says are
     * the most common, a few vector calls each; the activations themselves are passes that are never inlined
     * ({@link #run}).
     *
     * @param kind {@link #ADD} ({@code y += a}), {@link #MUL} ({@code y *= a}), or an activation of {@code y}
     * @param y the row, modified
     * @param yo where the run starts
     * @param a the operand of {@link #ADD} and {@link #MUL}, not modified; ignored by the activations
     * @param ao where its run starts
     * @param len the run's length
     */
    static void step(int kind, float[] y, int yo, float[] a, int ao, int len) {
        STEPS[kind].apply(y, yo, a, ao, len);
    }

    /**
     * {@code y[yo + i] += a[ao + i]} for {@code i < len}.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param a what is added, not modified
     * @param ao where its run starts
     * @param len the run's length
     */
    private static void add(float[] y, int yo, float[] a, int ao, int len) {
        int i = 0;
        for (; i + LANES <= len; i += LANES) {
            FloatVector.fromArray(SPECIES, a, ao + i).add(FloatVector.fromArray(SPECIES, y, yo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < len; i++) {
            y[yo + i] += a[ao + i];
        }
    }

    /**
     * {@code y[yo + i] *= a[ao + i]} for {@code i < len}.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param a the factors, not modified
     * @param ao where their run starts
     * @param len the run's length
     */
    private static void mul(float[] y, int yo, float[] a, int ao, int len) {
        int i = 0;
        for (; i + LANES <= len; i += LANES) {
            FloatVector.fromArray(SPECIES, a, ao + i).mul(FloatVector.fromArray(SPECIES, y, yo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < len; i++) {
            y[yo + i] *= a[ao + i];
        }
    }

    /**
     * {@code y[yo + i] = relu(y[yo + i])} for {@code i < len}: 0 for every {@code x ≤ 0}, NaN kept.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    private static void relu(float[] y, int yo, int len) {
        int i = 0;
        for (; i + LANES <= len; i += LANES) {
            FloatVector v = FloatVector.fromArray(SPECIES, y, yo + i);
            v.blend(0f, v.compare(VectorOperators.LE, 0f)).intoArray(y, yo + i);
        }
        for (; i < len; i++) {
            float v = y[yo + i];
            y[yo + i] = v <= 0 ? 0f : v;
        }
    }

    /**
     * {@code y[yo + i] = silu(y[yo + i])} for {@code i < len}.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    private static void silu(float[] y, int yo, int len) {
        run(SILU_PASSES, y, yo, len);
    }

    /**
     * {@code y[yo + i] = geluTanh(y[yo + i])} for {@code i < len}.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    private static void geluTanh(float[] y, int yo, int len) {
        run(GELU_TANH_PASSES, y, yo, len);
    }

    /**
     * {@code y[yo + i] = gelu(y[yo + i])} for {@code i < len}, the exact GELU.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    private static void gelu(float[] y, int yo, int len) {
        run(GELU_PASSES, y, yo, len);
    }

    /**
     * Runs an activation's passes over a run, chunk by chunk: each chunk is copied into the scratch's {@code X}
     * part, zero-padded to whole vectors, and back. Every pass of every activation is called from the one call site
     * here, which so sees many classes and inlines none: each pass is compiled on its own, within the budget that
     * keeps its vector calls intrinsified.
     */
    private static void run(Pass[] passes, float[] y, int yo, int len) {
        float[] s = SCRATCH.get();
        for (int c = 0; c < len; c += CHUNK) {
            int n = Math.min(CHUNK, len - c);
            System.arraycopy(y, yo + c, s, X, n);
            int padded = (n + LANES - 1) / LANES * LANES;
            for (int i = n; i < padded; i++) {
                s[X + i] = 0f;
            }
            for (Pass pass : passes) {
                pass.run(s, padded);
            }
            System.arraycopy(s, X, y, yo + c, n);
        }
    }

    /** {@code A = -X}. */
    private static void negatePass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(SPECIES, s, X + i).neg().intoArray(s, A + i);
        }
    }

    /** {@code A = -2·√(2/π)·(X + 0.044715·X³)}. */
    private static void tanhArgumentPass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector x = FloatVector.fromArray(SPECIES, s, X + i);
            x.mul(x).mul(TANH_CUBE).mul(x).add(x).mul(-TANH_SCALE).intoArray(s, A + i);
        }
    }

    /** {@code X = X / (1 + A)}. */
    private static void quotientPass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(SPECIES, s, X + i).div(FloatVector.fromArray(SPECIES, s, A + i).add(1f))
                    .intoArray(s, X + i);
        }
    }

    /** {@code B = t = 1/(1 + |X|/(2√2))} and {@code C = P(t)}. */
    private static void erfcPolynomialPass(float[] s, int n) {
        FloatVector one = FloatVector.broadcast(SPECIES, 1f);
        for (int i = 0; i < n; i += LANES) {
            FloatVector a = FloatVector.fromArray(SPECIES, s, X + i).abs().min(ERFC_CLAMP);
            FloatVector t = one.div(a.mul(HALF_SQRT_HALF).add(1f));
            t.intoArray(s, B + i);
            FloatVector p = t.mul(ERFC[9]).add(ERFC[8]);
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[7]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[6]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[5]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[4]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[3]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[2]));
            p = t.fma(p, FloatVector.broadcast(SPECIES, ERFC[1]));
            t.fma(p, FloatVector.broadcast(SPECIES, ERFC[0])).intoArray(s, C + i);
        }
    }

    /**
     * {@code A = C - a²/2} rounded, and {@code B = t·(1 + c)/2} with {@code c} the part of {@code -a²/2 + P} that
     * rounding left out of {@code A} ({@code a = min(|X|, 16)}), so that {@code ½·erfc = e^A · B}.
     */
    private static void erfcArgumentPass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector a = FloatVector.fromArray(SPECIES, s, X + i).abs().min(ERFC_CLAMP);
            FloatVector p = FloatVector.fromArray(SPECIES, s, C + i);
            FloatVector hi = a.mul(a);
            FloatVector lo = a.fma(a, hi.neg());
            FloatVector half = hi.mul(-0.5f);
            FloatVector sum = half.add(p);
            sum.intoArray(s, A + i);
            FloatVector c = half.sub(sum).add(p).sub(lo.mul(0.5f));
            FloatVector t = FloatVector.fromArray(SPECIES, s, B + i);
            t.mul(0.5f).mul(c.add(1f)).intoArray(s, B + i);
        }
    }

    /** {@code X = X·Φ(X)} with {@code ½·erfc(|X|/√2) = A·B}, {@code A} already exponentiated. */
    private static void geluPass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector x = FloatVector.fromArray(SPECIES, s, X + i);
            FloatVector tail = FloatVector.fromArray(SPECIES, s, A + i).mul(FloatVector.fromArray(SPECIES, s, B + i));
            FloatVector upper = tail.neg().add(1f);
            upper.blend(tail, x.compare(VectorOperators.LT, 0f)).mul(x).intoArray(s, X + i);
        }
    }

    /**
     * The first half of {@code A = e^A}: {@code A = r} and {@code D = n + 126 + 1.5·2²³} (as a float), where
     * {@code e^A = e^r · 2ⁿ} and {@code |r| ≤ ln2/2}, {@code A} first clamped to {@code [-87.68, 89]} (at the lower
     * end {@code n = -126}, whose scale {@code 2^(n-1)} has exponent bits 0: the result is 0).
     */
    private static void expReducePass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector c = FloatVector.fromArray(SPECIES, s, A + i).max(EXP_LOW).min(EXP_HIGH);
            FloatVector rounded = c.mul(LOG2E).add(ROUND_BIASED);
            rounded.intoArray(s, D + i);
            FloatVector k = rounded.sub(ROUND_BIASED);
            FloatVector r = k.mul(-LN2_HI).add(c);
            k.mul(-LN2_LO).add(r).intoArray(s, A + i);
        }
    }

    /** The second half of {@code A = e^A}: {@code e^r} by Cephes' polynomial, times {@code 2ⁿ} from {@code D}'s bits. */
    private static void expScalePass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector r = FloatVector.fromArray(SPECIES, s, A + i);
            FloatVector p = r.mul(EXP[0]).add(EXP[1]);
            p = r.mul(p).add(EXP[2]);
            p = r.mul(p).add(EXP[3]);
            p = r.mul(p).add(EXP[4]);
            p = r.mul(p).add(EXP[5]);
            FloatVector e = r.mul(r).mul(p).add(r).add(1f);
            FloatVector scale = FloatVector.fromArray(SPECIES, s, D + i).reinterpretAsInts()
                    .lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            scale.mul(e).mul(2f).intoArray(s, A + i);
        }
    }
}
