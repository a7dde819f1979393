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
 * {@code e^x} ({@link #expPass}) splits {@code x = n·ln2 + r} (Cody-Waite, two constants), takes Cephes' degree-7
 * polynomial on {@code |r| ≤ ln2/2} and {@code 2ⁿ} from the exponent bits; it saturates at {@code 1.8e-38} below
 * {@code -86.9} (where every use here is within {@code 1e-37} of its limit) and is {@code +∞} above {@code 88.72};
 * NaN gives NaN throughout.
 *
 * <p>The activations run in chunks of {@link #CHUNK} elements copied into a per-thread scratch, one short pass per
 * step over each chunk, the last vector zero-padded. That is how the kernels stay within what C2 compiles to
 * vector instructions in every JVM ({@link VectorGemmF32} explains): no pass makes more than about 30 Vector API
 * calls, and a vector is the receiver of a call only where it is fresh. Only callers that {@link Simd#enabled()}
 * admitted may load this class.
 */
final class VectorActivationsF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
    private static final int LANES = SPECIES.length();
    /** Elements per chunk; the scratch holds four chunks. */
    private static final int CHUNK = 256;
    private static final int X = 0;
    private static final int A = CHUNK;
    private static final int B = 2 * CHUNK;
    private static final int C = 3 * CHUNK;

    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    /** {@code 1.5·2²³ + 126}: adding it rounds to an integer {@code n} and leaves {@code n + 126} in the low bits. */
    private static final float ROUND_BIASED = 12583038f;
    private static final float EXP_LOW = -86.9f;
    private static final float EXP_HIGH = 88.72284f;
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

    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[4 * CHUNK]);

    private VectorActivationsF32() {
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
    static void add(float[] y, int yo, float[] a, int ao, int len) {
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
    static void mul(float[] y, int yo, float[] a, int ao, int len) {
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
    static void relu(float[] y, int yo, int len) {
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
    static void silu(float[] y, int yo, int len) {
        float[] s = SCRATCH.get();
        for (int c = 0; c < len; c += CHUNK) {
            int n = Math.min(CHUNK, len - c);
            int vectors = load(y, yo + c, n, s);
            negatePass(s, vectors);
            expPass(s, vectors);
            quotientPass(s, vectors);
            System.arraycopy(s, X, y, yo + c, n);
        }
    }

    /**
     * {@code y[yo + i] = geluTanh(y[yo + i])} for {@code i < len}.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    static void geluTanh(float[] y, int yo, int len) {
        float[] s = SCRATCH.get();
        for (int c = 0; c < len; c += CHUNK) {
            int n = Math.min(CHUNK, len - c);
            int vectors = load(y, yo + c, n, s);
            tanhArgumentPass(s, vectors);
            expPass(s, vectors);
            quotientPass(s, vectors);
            System.arraycopy(s, X, y, yo + c, n);
        }
    }

    /**
     * {@code y[yo + i] = gelu(y[yo + i])} for {@code i < len}, the exact GELU.
     *
     * @param y the row, modified
     * @param yo where the run starts
     * @param len the run's length
     */
    static void gelu(float[] y, int yo, int len) {
        float[] s = SCRATCH.get();
        for (int c = 0; c < len; c += CHUNK) {
            int n = Math.min(CHUNK, len - c);
            int vectors = load(y, yo + c, n, s);
            erfcPolynomialPass(s, vectors);
            erfcArgumentPass(s, vectors);
            expPass(s, vectors);
            geluPass(s, vectors);
            System.arraycopy(s, X, y, yo + c, n);
        }
    }

    /** Copies {@code n} values into the scratch's {@code X} part, zero-padded to whole vectors, and counts those. */
    private static int load(float[] y, int at, int n, float[] s) {
        System.arraycopy(y, at, s, X, n);
        int padded = (n + LANES - 1) / LANES * LANES;
        for (int i = n; i < padded; i++) {
            s[X + i] = 0f;
        }
        return padded;
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
            p = t.mul(p).add(ERFC[7]);
            p = t.mul(p).add(ERFC[6]);
            p = t.mul(p).add(ERFC[5]);
            p = t.mul(p).add(ERFC[4]);
            p = t.mul(p).add(ERFC[3]);
            p = t.mul(p).add(ERFC[2]);
            p = t.mul(p).add(ERFC[1]);
            t.mul(p).add(ERFC[0]).intoArray(s, C + i);
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

    /** {@code A = e^A}, lane by lane, as the class comment says. */
    static void expPass(float[] s, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector x = FloatVector.fromArray(SPECIES, s, A + i);
            FloatVector c = x.max(EXP_LOW).min(EXP_HIGH);
            FloatVector rounded = c.mul(LOG2E).add(ROUND_BIASED);
            FloatVector k = rounded.sub(ROUND_BIASED);
            FloatVector r = k.mul(-LN2_HI).add(c);
            r = k.mul(-LN2_LO).add(r);
            FloatVector p = r.mul(EXP[0]).add(EXP[1]);
            p = r.mul(p).add(EXP[2]);
            p = r.mul(p).add(EXP[3]);
            p = r.mul(p).add(EXP[4]);
            p = r.mul(p).add(EXP[5]);
            FloatVector e = r.mul(r).mul(p).add(r).add(1f);
            FloatVector scale = rounded.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            e = scale.mul(e).mul(2f);
            e.blend(Float.POSITIVE_INFINITY, x.compare(VectorOperators.GT, EXP_HIGH)).intoArray(s, A + i);
        }
    }
}
