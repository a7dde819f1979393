package org.attn4j.backend.ejml;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD kernels of the weights held in fewer bits than F32 ({@link NarrowPanels}): for one column panel of
 * {@code NR = 2·LANES} rows of {@code W}, the matrix-vector product with one row of input ({@code dot…}, the
 * decoding step: the panel's bytes are read once and widened in registers) and the panel widened to F32 in the layout
 * of {@link VectorGemmF32#tileRows} ({@code unpack…}, the prefill: once per call, then reused by every input row).
 * The panel is laid out as {@link NarrowPanels} describes: {@code NR} numbers of one column {@code p} side by side,
 * so one column is two F32 vectors and a product is one broadcast of {@code x[p]} and two multiply-adds:
 * <pre>
 *   BF16   short[p·NR + j]                                  value = bits &lt;&lt; 16 as a float
 *   F16    short[p·NR + j]                                  value = binary16 (normal or subnormal; no ±∞/NaN here)
 *   Q8_0   byte[p·NR + j], scale[(p/32)·NR + j]             value = q · d
 *   Q4_0   byte[p·LANES + j mod LANES], low nibble for j &lt; LANES, high nibble past it, scale as Q8_0;
 *          each nibble is the two's complement 4-bit number q - 8                  value = (q - 8) · d
 *   levels byte[p·NR + j], scale and offset[(p/g)·NR + j]   value = level · a + c   (the other GGUF block types;
 *          without offsets where all are -0.0: value = level · a)
 *   4-bit levels  byte[p·LANES + j mod LANES], low nibble for j &lt; LANES: level, unsigned; high nibble past
 *          it: level - 8, two's complement; scale and offset as levels     value = level · a + c   (Q4_1, Q4_K, Q2_K)
 * </pre>
 * A level with an offset widens in one multiply-add, {@code fma(level, a, c)}, which is GGUF's
 * {@code fl(fl(level · a) + c)} bit for bit: the product is exact in F32, {@code a} being a binary16 scale times
 * a sub-block scale of at most 6 bits (at most 17 significant bits) and the level at most 5 bits, so the one
 * rounding of the multiply-add is the rounding of the sum.
 * The decoding kernels widen each number to exactly the float its {@code unpack…} kernel writes and add its
 * product with {@code x[p]} into one chain per output vector, column after column from zero: the order in which
 * {@link VectorGemmF32#tileRows} sums over a widened panel, so that an output is the same bits whichever kernel
 * computed it, and a row's result does not depend on how many rows share the product (batch invariance).
 * They follow the rules of {@link VectorGemmF32} for C2: a vector is the receiver of a call only when it is the fresh
 * result of another call, accumulators are arguments of multiply-adds only, and results are stored from the last
 * step of the loop that makes them.
 * Only callers that {@link Simd#enabled()} admitted may load this class.
 */
final class VectorNarrowPanels {
    private static final VectorSpecies<Float> F = Vectors.F32;
    private static final int LANES = F.length();
    private static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, F.vectorShape());
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(16 * LANES));
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(8 * LANES));
    /** The high nibble of a byte of 4-bit levels, {@code 16 · (level - 8)} as a signed byte. */
    private static final byte HIGH = (byte) 0xf0;
    /** Takes {@code 16 · (level - 8)} back to {@code level - 8}, exactly. */
    private static final float SIXTEENTH = 0.0625f;
    /** Rows of {@code W} per panel: two F32 vectors, the width of {@link VectorGemmF32}'s panels. */
    static final int NR = 2 * LANES;

    private VectorNarrowPanels() {
    }

    /**
     * {@code y[yAt + j] = Σ_{p<k} x[xAt + p] · W[j][p]} for the {@code NR} rows of a BF16 panel.
     *
     * @param k the columns, at least 1
     * @param w the panels; the panel starts at {@code at}
     * @param at where the panel starts
     * @param x the input row at {@code xAt}, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotBf16(int k, short[] w, int at, float[] x, int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector a0 = zero;
        FloatVector a1 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            a0 = ((IntVector) ShortVector.fromArray(S, w, i).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(xa, a0);
            a1 = ((IntVector) ShortVector.fromArray(S, w, i + LANES).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(xa, a1);
            if (p == last) {
                a0.intoArray(y, yAt);
                a1.intoArray(y, yAt + LANES);
            }
        }
    }

    /**
     * {@link #dotBf16} for four input rows: each column of the panel widened once, then one multiply-add per row and
     * output vector, each row's chain in {@link #dotBf16}'s order, so each row gets the bits {@link #dotBf16} gives it.
     *
     * @param k the columns, at least 1
     * @param w the panels
     * @param at where the panel starts
     * @param x the input rows, not modified
     * @param xAt where each of the four rows starts
     * @param y receives {@code NR} sums per row
     * @param yAt where each row's sums go
     */
    static void dot4Bf16(int k, short[] w, int at, float[] x, int[] xAt, float[] y, int[] yAt) {
        int x0 = xAt[0];
        int x1 = xAt[1];
        int x2 = xAt[2];
        int x3 = xAt[3];
        FloatVector zero = FloatVector.zero(F);
        FloatVector a00 = zero;
        FloatVector a01 = zero;
        FloatVector a10 = zero;
        FloatVector a11 = zero;
        FloatVector a20 = zero;
        FloatVector a21 = zero;
        FloatVector a30 = zero;
        FloatVector a31 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector w0 = ((IntVector) ShortVector.fromArray(S, w, i).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector w1 = ((IntVector) ShortVector.fromArray(S, w, i + LANES)
                    .convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector b0 = FloatVector.broadcast(F, x[x0 + p]);
            a00 = w0.fma(b0, a00);
            a01 = w1.fma(b0, a01);
            FloatVector b1 = FloatVector.broadcast(F, x[x1 + p]);
            a10 = w0.fma(b1, a10);
            a11 = w1.fma(b1, a11);
            FloatVector b2 = FloatVector.broadcast(F, x[x2 + p]);
            a20 = w0.fma(b2, a20);
            a21 = w1.fma(b2, a21);
            FloatVector b3 = FloatVector.broadcast(F, x[x3 + p]);
            a30 = w0.fma(b3, a30);
            a31 = w1.fma(b3, a31);
            if (p == last) {
                a00.intoArray(y, yAt[0]);
                a01.intoArray(y, yAt[0] + LANES);
                a10.intoArray(y, yAt[1]);
                a11.intoArray(y, yAt[1] + LANES);
                a20.intoArray(y, yAt[2]);
                a21.intoArray(y, yAt[2] + LANES);
                a30.intoArray(y, yAt[3]);
                a31.intoArray(y, yAt[3] + LANES);
            }
        }
    }

    /**
     * {@link #dotBf16} over three panels at once, each {@code stride} numbers after the previous, into {@code 3·NR}
     * sums: each output's chain as {@link #dotBf16} sums it, so each gets the same bits. A core streaming three panels
     * at a time draws more of the memory's bandwidth than one streaming a single panel.
     *
     * @param k the columns, at least 1
     * @param w the panels; panel {@code t < 3} starts at {@code at + t·stride}
     * @param at where the first panel starts
     * @param stride the numbers per panel
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives panel {@code t}'s {@code NR} sums at {@code yAt + t·NR}
     * @param yAt where they go
     */
    static void dot3Bf16(int k, short[] w, int at, int stride, float[] x, int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector a00 = zero;
        FloatVector a01 = zero;
        FloatVector a10 = zero;
        FloatVector a11 = zero;
        FloatVector a20 = zero;
        FloatVector a21 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            a00 = ((IntVector) ShortVector.fromArray(S, w, i + 0 * stride).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(xa, a00);
            a01 = ((IntVector) ShortVector.fromArray(S, w, i + 0 * stride + LANES)
                    .convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()
                    .fma(xa, a01);
            a10 = ((IntVector) ShortVector.fromArray(S, w, i + 1 * stride).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(xa, a10);
            a11 = ((IntVector) ShortVector.fromArray(S, w, i + 1 * stride + LANES)
                    .convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()
                    .fma(xa, a11);
            a20 = ((IntVector) ShortVector.fromArray(S, w, i + 2 * stride).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(xa, a20);
            a21 = ((IntVector) ShortVector.fromArray(S, w, i + 2 * stride + LANES)
                    .convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()
                    .fma(xa, a21);
            if (p == last) {
                a00.intoArray(y, yAt + 0 * NR);
                a01.intoArray(y, yAt + 0 * NR + LANES);
                a10.intoArray(y, yAt + 1 * NR);
                a11.intoArray(y, yAt + 1 * NR + LANES);
                a20.intoArray(y, yAt + 2 * NR);
                a21.intoArray(y, yAt + 2 * NR + LANES);
            }
        }
    }

    /**
     * {@link #dotQ8} for three panels at once, each {@code stride} bytes and {@code k / 32 · NR} scales after the
     * previous, into {@code 3·NR} sums: each output's chain as {@link #dotQ8} sums it, so each gets the same bits.
     * Three streams of weights per core draw more of the memory's bandwidth than one.
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' numbers; panel {@code t < 3} starts at {@code at + t·stride}
     * @param at where the first panel starts
     * @param stride the bytes per panel
     * @param d the panels' scales
     * @param dAt where the first panel's scales start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives panel {@code t}'s {@code NR} sums at {@code yAt + t·NR}
     * @param yAt where they go
     */
    static void dot3Q8(int k, byte[] q, int at, int stride, float[] d, int dAt, float[] x, int xAt, float[] y,
                       int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector a00 = zero;
        FloatVector a01 = zero;
        FloatVector a10 = zero;
        FloatVector a11 = zero;
        FloatVector a20 = zero;
        FloatVector a21 = zero;
        int dStride = k / 32 * NR;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = dAt + (p / 32) * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            a00 = ((FloatVector) ByteVector.fromArray(B, q, i + 0 * stride).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s + 0 * dStride)).fma(xa, a00);
            a01 = ((FloatVector) ByteVector.fromArray(B, q, i + 0 * stride + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, d, s + 0 * dStride + LANES))
                    .fma(xa, a01);
            a10 = ((FloatVector) ByteVector.fromArray(B, q, i + 1 * stride).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s + 1 * dStride)).fma(xa, a10);
            a11 = ((FloatVector) ByteVector.fromArray(B, q, i + 1 * stride + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, d, s + 1 * dStride + LANES))
                    .fma(xa, a11);
            a20 = ((FloatVector) ByteVector.fromArray(B, q, i + 2 * stride).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s + 2 * dStride)).fma(xa, a20);
            a21 = ((FloatVector) ByteVector.fromArray(B, q, i + 2 * stride + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, d, s + 2 * dStride + LANES))
                    .fma(xa, a21);
            if (p == last) {
                a00.intoArray(y, yAt + 0 * NR);
                a01.intoArray(y, yAt + 0 * NR + LANES);
                a10.intoArray(y, yAt + 1 * NR);
                a11.intoArray(y, yAt + 1 * NR + LANES);
                a20.intoArray(y, yAt + 2 * NR);
                a21.intoArray(y, yAt + 2 * NR + LANES);
            }
        }
    }

    /**
     * Widens a BF16 panel: {@code dst[p·NR + j] = W[j][p]} for {@code p < k}.
     *
     * @param k the columns
     * @param w the panels
     * @param at where the panel starts
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackBf16(int k, short[] w, int at, float[] dst) {
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            ((IntVector) ShortVector.fromArray(S, w, i).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, p * NR);
            ((IntVector) ShortVector.fromArray(S, w, i + LANES).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@link #dotBf16} for an F16 panel whose numbers are all finite. A binary16 magnitude {@code m} (its low 15 bits)
     * widens without arithmetic on subnormal floats: {@code v = float((m << 13) + (112 << 23))} is the number itself
     * for a normal {@code m} and {@code 2^-15 + m·2^-25} for a subnormal one or zero, whose value is
     * {@code 2v - 2^-14}, exactly; for a normal {@code m}, {@code 2v - 2^-14 ≥ v}, so the value is
     * {@code min(v, 2v - 2^-14)} in every case, and the sign bit is put back last.
     *
     * @param k the columns, at least 1
     * @param w the panels
     * @param at where the panel starts
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotF16(int k, short[] w, int at, float[] x, int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector two = FloatVector.broadcast(F, 2f);
        FloatVector smallest = FloatVector.broadcast(F, -0x1p-14f);
        FloatVector a0 = zero;
        FloatVector a1 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            IntVector h0 = (IntVector) ShortVector.fromArray(S, w, i).convertShape(VectorOperators.S2I, I, 0);
            FloatVector v0 = h0.and(0x7fff).lanewise(VectorOperators.LSHL, 13).add(0x38000000).reinterpretAsFloats();
            a0 = v0.min(v0.fma(two, smallest)).reinterpretAsInts().or(h0.and(0x80000000)).reinterpretAsFloats()
                    .fma(xa, a0);
            IntVector h1 = (IntVector) ShortVector.fromArray(S, w, i + LANES).convertShape(VectorOperators.S2I, I, 0);
            FloatVector v1 = h1.and(0x7fff).lanewise(VectorOperators.LSHL, 13).add(0x38000000).reinterpretAsFloats();
            a1 = v1.min(v1.fma(two, smallest)).reinterpretAsInts().or(h1.and(0x80000000)).reinterpretAsFloats()
                    .fma(xa, a1);
            if (p == last) {
                a0.intoArray(y, yAt);
                a1.intoArray(y, yAt + LANES);
            }
        }
    }

    /**
     * Widens an F16 panel whose numbers are all finite, as {@link #unpackBf16}, the numbers widened as in
     * {@link #dotF16}.
     *
     * @param k the columns
     * @param w the panels
     * @param at where the panel starts
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackF16(int k, short[] w, int at, float[] dst) {
        FloatVector two = FloatVector.broadcast(F, 2f);
        FloatVector smallest = FloatVector.broadcast(F, -0x1p-14f);
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            IntVector h0 = (IntVector) ShortVector.fromArray(S, w, i).convertShape(VectorOperators.S2I, I, 0);
            FloatVector v0 = h0.and(0x7fff).lanewise(VectorOperators.LSHL, 13).add(0x38000000).reinterpretAsFloats();
            v0.min(v0.fma(two, smallest)).reinterpretAsInts().or(h0.and(0x80000000)).reinterpretAsFloats()
                    .intoArray(dst, p * NR);
            IntVector h1 = (IntVector) ShortVector.fromArray(S, w, i + LANES).convertShape(VectorOperators.S2I, I, 0);
            FloatVector v1 = h1.and(0x7fff).lanewise(VectorOperators.LSHL, 13).add(0x38000000).reinterpretAsFloats();
            v1.min(v1.fma(two, smallest)).reinterpretAsInts().or(h1.and(0x80000000)).reinterpretAsFloats()
                    .intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@code y[yAt + j] = Σ_{p<k} x[xAt + p] · q[j][p] · d[j][p / 32]} for the {@code NR} rows of a Q8_0 panel.
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' numbers; the panel starts at {@code at}
     * @param at where the panel starts
     * @param d the panels' scales; the panel's start at {@code dAt}
     * @param dAt where the panel's scales start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotQ8(int k, byte[] q, int at, float[] d, int dAt, float[] x, int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector a0 = zero;
        FloatVector a1 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = dAt + (p / 32) * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            a0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s)).fma(xa, a0);
            a1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s + LANES)).fma(xa, a1);
            if (p == last) {
                a0.intoArray(y, yAt);
                a1.intoArray(y, yAt + LANES);
            }
        }
    }

    /**
     * {@link #dotQ8} for four input rows: each column of the panel widened and scaled once, then one multiply-add per
     * row and output vector, each row's chain in {@link #dotQ8}'s order, so each row gets the bits {@link #dotQ8}
     * gives it.
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' numbers
     * @param at where the panel starts
     * @param d the panels' scales
     * @param dAt where the panel's scales start
     * @param x the input rows, not modified
     * @param xAt where each of the four rows starts
     * @param y receives {@code NR} sums per row
     * @param yAt where each row's sums go
     */
    static void dot4Q8(int k, byte[] q, int at, float[] d, int dAt, float[] x, int[] xAt, float[] y, int[] yAt) {
        int x0 = xAt[0];
        int x1 = xAt[1];
        int x2 = xAt[2];
        int x3 = xAt[3];
        FloatVector zero = FloatVector.zero(F);
        FloatVector a00 = zero;
        FloatVector a01 = zero;
        FloatVector a10 = zero;
        FloatVector a11 = zero;
        FloatVector a20 = zero;
        FloatVector a21 = zero;
        FloatVector a30 = zero;
        FloatVector a31 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = dAt + (p / 32) * NR;
            FloatVector w0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s));
            FloatVector w1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, d, s + LANES));
            FloatVector b0 = FloatVector.broadcast(F, x[x0 + p]);
            a00 = w0.fma(b0, a00);
            a01 = w1.fma(b0, a01);
            FloatVector b1 = FloatVector.broadcast(F, x[x1 + p]);
            a10 = w0.fma(b1, a10);
            a11 = w1.fma(b1, a11);
            FloatVector b2 = FloatVector.broadcast(F, x[x2 + p]);
            a20 = w0.fma(b2, a20);
            a21 = w1.fma(b2, a21);
            FloatVector b3 = FloatVector.broadcast(F, x[x3 + p]);
            a30 = w0.fma(b3, a30);
            a31 = w1.fma(b3, a31);
            if (p == last) {
                a00.intoArray(y, yAt[0]);
                a01.intoArray(y, yAt[0] + LANES);
                a10.intoArray(y, yAt[1]);
                a11.intoArray(y, yAt[1] + LANES);
                a20.intoArray(y, yAt[2]);
                a21.intoArray(y, yAt[2] + LANES);
                a30.intoArray(y, yAt[3]);
                a31.intoArray(y, yAt[3] + LANES);
            }
        }
    }

    /**
     * Widens a Q8_0 panel: {@code dst[p·NR + j] = q[j][p] · d[j][p / 32]}, exactly as GGUF's dequantization.
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' numbers
     * @param at where the panel starts
     * @param d the panels' scales
     * @param dAt where the panel's scales start
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackQ8(int k, byte[] q, int at, float[] d, int dAt, float[] dst) {
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = dAt + (p / 32) * NR;
            ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s)).intoArray(dst, p * NR);
            ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, d, s + LANES)).intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@link #dotQ8} for a Q4_0 panel ({@code LANES} bytes per column, two numbers each).
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' nibbles; the panel starts at {@code at}
     * @param at where the panel starts
     * @param d the panels' scales
     * @param dAt where the panel's scales start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotQ4(int k, byte[] q, int at, float[] d, int dAt, float[] x, int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector a0 = zero;
        FloatVector a1 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int s = dAt + (p / 32) * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            IntVector v = (IntVector) ByteVector.fromArray(B, q, at + p * LANES)
                    .convertShape(VectorOperators.B2I, I, 0);
            a0 = ((FloatVector) v.lanewise(VectorOperators.LSHL, 28).lanewise(VectorOperators.ASHR, 28)
                    .convert(VectorOperators.I2F, 0)).mul(FloatVector.fromArray(F, d, s)).fma(xa, a0);
            a1 = ((FloatVector) v.lanewise(VectorOperators.ASHR, 4).convert(VectorOperators.I2F, 0))
                    .mul(FloatVector.fromArray(F, d, s + LANES)).fma(xa, a1);
            if (p == last) {
                a0.intoArray(y, yAt);
                a1.intoArray(y, yAt + LANES);
            }
        }
    }

    /**
     * Widens a Q4_0 panel, as {@link #unpackQ8}.
     *
     * @param k the columns, a multiple of 32
     * @param q the panels' nibbles
     * @param at where the panel starts
     * @param d the panels' scales
     * @param dAt where the panel's scales start
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackQ4(int k, byte[] q, int at, float[] d, int dAt, float[] dst) {
        for (int p = 0; p < k; p++) {
            int s = dAt + (p / 32) * NR;
            IntVector v = (IntVector) ByteVector.fromArray(B, q, at + p * LANES)
                    .convertShape(VectorOperators.B2I, I, 0);
            ((FloatVector) v.lanewise(VectorOperators.LSHL, 28).lanewise(VectorOperators.ASHR, 28)
                    .convert(VectorOperators.I2F, 0)).mul(FloatVector.fromArray(F, d, s)).intoArray(dst, p * NR);
            ((FloatVector) v.lanewise(VectorOperators.ASHR, 4).convert(VectorOperators.I2F, 0))
                    .mul(FloatVector.fromArray(F, d, s + LANES)).intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@code y[yAt + j] = Σ_{p<k} x[xAt + p] · W[j][p]} for the {@code NR} rows of a panel of 4-bit levels
     * ({@link PanelsNibbles}), each number widened to {@code fl(fl(level · a) + c)} first, as {@link #dotLevels}.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' nibbles; the panel starts at {@code at}
     * @param at where the panel starts
     * @param a the panels' scales, {@code NR} per group
     * @param c the panels' offsets, laid out as the scales
     * @param sAt where the panel's scales and offsets start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotNibbles(int k, int g, byte[] q, int at, float[] a, float[] c, int sAt, float[] x, int xAt,
                           float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            ByteVector v = ByteVector.fromArray(B, q, at + p * LANES);
            acc0 = ((FloatVector) v.lanewise(VectorOperators.AND, (byte) 15).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).fma(xa, acc0);
            acc1 = ((FloatVector) v.lanewise(VectorOperators.AND, HIGH).convertShape(VectorOperators.B2F, F, 0))
                    .fma(SIXTEENTH, 8f)
                    .fma(FloatVector.fromArray(F, a, s + LANES), FloatVector.fromArray(F, c, s + LANES))
                    .fma(xa, acc1);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * {@link #dotNibbles} for two panels at once, as {@link #dot3Q8} for three: the second panel's nibbles
     * {@code stride} bytes after the first's, its scales and offsets {@code k / g · NR} after the first's.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' nibbles
     * @param at where the first panel starts
     * @param stride the bytes per panel
     * @param a the panels' scales
     * @param c the panels' offsets
     * @param sAt where the first panel's scales and offsets start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives the first panel's {@code NR} sums at {@code yAt}, the second's after them
     * @param yAt where they go
     */
    static void dot2Nibbles(int k, int g, byte[] q, int at, int stride, float[] a, float[] c, int sAt, float[] x,
                            int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        FloatVector acc2 = zero;
        FloatVector acc3 = zero;
        int sStride = k / g * NR;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            int t = s + sStride;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            ByteVector v = ByteVector.fromArray(B, q, at + p * LANES);
            acc0 = ((FloatVector) v.lanewise(VectorOperators.AND, (byte) 15).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).fma(xa, acc0);
            acc1 = ((FloatVector) v.lanewise(VectorOperators.AND, HIGH).convertShape(VectorOperators.B2F, F, 0))
                    .fma(SIXTEENTH, 8f)
                    .fma(FloatVector.fromArray(F, a, s + LANES), FloatVector.fromArray(F, c, s + LANES))
                    .fma(xa, acc1);
            ByteVector u = ByteVector.fromArray(B, q, at + stride + p * LANES);
            acc2 = ((FloatVector) u.lanewise(VectorOperators.AND, (byte) 15).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, t), FloatVector.fromArray(F, c, t)).fma(xa, acc2);
            acc3 = ((FloatVector) u.lanewise(VectorOperators.AND, HIGH).convertShape(VectorOperators.B2F, F, 0))
                    .fma(SIXTEENTH, 8f)
                    .fma(FloatVector.fromArray(F, a, t + LANES), FloatVector.fromArray(F, c, t + LANES))
                    .fma(xa, acc3);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
                acc2.intoArray(y, yAt + NR);
                acc3.intoArray(y, yAt + NR + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * Widens a panel of 4-bit levels: {@code dst[p·NR + j] = fl(fl(level[j][p] · a[j][p / g]) + c[j][p / g])}.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' nibbles
     * @param at where the panel starts
     * @param a the panels' scales
     * @param c the panels' offsets
     * @param sAt where the panel's scales and offsets start
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackNibbles(int k, int g, byte[] q, int at, float[] a, float[] c, int sAt, float[] dst) {
        for (int p = 0; p < k; p++) {
            int s = sAt + (p / g) * NR;
            ByteVector v = ByteVector.fromArray(B, q, at + p * LANES);
            ((FloatVector) v.lanewise(VectorOperators.AND, (byte) 15).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).intoArray(dst, p * NR);
            ((FloatVector) v.lanewise(VectorOperators.AND, HIGH).convertShape(VectorOperators.B2F, F, 0))
                    .fma(SIXTEENTH, 8f)
                    .fma(FloatVector.fromArray(F, a, s + LANES), FloatVector.fromArray(F, c, s + LANES))
                    .intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@link #dotLevels} for a panel whose offsets are all {@code -0.0} (the symmetric types), which the panel does
     * not hold: each number widened to {@code fl(level · a)}, the same float as {@code fl(fl(level · a) + -0.0)}.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels; the panel starts at {@code at}
     * @param at where the panel starts
     * @param a the panels' scales, {@code NR} per group
     * @param sAt where the panel's scales start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotScaledLevels(int k, int g, byte[] q, int at, float[] a, int sAt, float[] x, int xAt, float[] y,
                                int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            acc0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, s)).fma(xa, acc0);
            acc1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, a, s + LANES))
                    .fma(xa, acc1);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * {@link #dotScaledLevels} for two panels at once, as {@link #dot3Q8} for three: the second panel's levels
     * {@code stride} bytes after the first's, its scales {@code k / g · NR} after the first's.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels
     * @param at where the first panel starts
     * @param stride the bytes per panel
     * @param a the panels' scales
     * @param sAt where the first panel's scales start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives the first panel's {@code NR} sums at {@code yAt}, the second's after them
     * @param yAt where they go
     */
    static void dot2ScaledLevels(int k, int g, byte[] q, int at, int stride, float[] a, int sAt, float[] x,
                                 int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        FloatVector acc2 = zero;
        FloatVector acc3 = zero;
        int sStride = k / g * NR;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int t = s + sStride;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            acc0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, s)).fma(xa, acc0);
            acc1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, s + LANES)).fma(xa, acc1);
            acc2 = ((FloatVector) ByteVector.fromArray(B, q, i + stride).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, t)).fma(xa, acc2);
            acc3 = ((FloatVector) ByteVector.fromArray(B, q, i + stride + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, a, t + LANES))
                    .fma(xa, acc3);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
                acc2.intoArray(y, yAt + NR);
                acc3.intoArray(y, yAt + NR + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * Widens a panel of levels without offsets: {@code dst[p·NR + j] = fl(level[j][p] · a[j][p / g])}.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels
     * @param at where the panel starts
     * @param a the panels' scales
     * @param sAt where the panel's scales start
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackScaledLevels(int k, int g, byte[] q, int at, float[] a, int sAt, float[] dst) {
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = sAt + (p / g) * NR;
            ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, s)).intoArray(dst, p * NR);
            ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .mul(FloatVector.fromArray(F, a, s + LANES)).intoArray(dst, p * NR + LANES);
        }
    }

    /**
     * {@code y[yAt + j] = Σ_{p<k} x[xAt + p] · W[j][p]} for the {@code NR} rows of a panel of levels
     * ({@link PanelsLevels}), each number widened to {@code fl(fl(level · a) + c)} first, the product and the sum
     * rounded apart as the dequantization rounds them, so that the sum is one of the dequantized weight's exact
     * values times {@code x}, accumulated in F32.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels; the panel starts at {@code at}
     * @param at where the panel starts
     * @param a the panels' scales, {@code NR} per group
     * @param c the panels' offsets, laid out as the scales
     * @param sAt where the panel's scales and offsets start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives {@code NR} sums at {@code yAt}
     * @param yAt where they go
     */
    static void dotLevels(int k, int g, byte[] q, int at, float[] a, float[] c, int sAt, float[] x, int xAt,
                          float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            acc0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).fma(xa, acc0);
            acc1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).fma(FloatVector.fromArray(F, a, s + LANES),
                    FloatVector.fromArray(F, c, s + LANES)).fma(xa, acc1);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * {@link #dotLevels} for two panels at once, as {@link #dot3Q8} for three: the second panel's levels {@code stride}
     * bytes after the first's, its scales and offsets {@code k / g · NR} after the first's.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels
     * @param at where the first panel starts
     * @param stride the bytes per panel
     * @param a the panels' scales
     * @param c the panels' offsets
     * @param sAt where the first panel's scales and offsets start
     * @param x the input row, not modified
     * @param xAt where the row starts
     * @param y receives the first panel's {@code NR} sums at {@code yAt}, the second's after them
     * @param yAt where they go
     */
    static void dot2Levels(int k, int g, byte[] q, int at, int stride, float[] a, float[] c, int sAt, float[] x,
                           int xAt, float[] y, int yAt) {
        FloatVector zero = FloatVector.zero(F);
        FloatVector acc0 = zero;
        FloatVector acc1 = zero;
        FloatVector acc2 = zero;
        FloatVector acc3 = zero;
        int sStride = k / g * NR;
        int last = k - 1;
        int s = sAt;
        int inGroup = 0;
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int t = s + sStride;
            FloatVector xa = FloatVector.broadcast(F, x[xAt + p]);
            acc0 = ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).fma(xa, acc0);
            acc1 = ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s + LANES), FloatVector.fromArray(F, c, s + LANES))
                    .fma(xa, acc1);
            acc2 = ((FloatVector) ByteVector.fromArray(B, q, i + stride).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, t), FloatVector.fromArray(F, c, t)).fma(xa, acc2);
            acc3 = ((FloatVector) ByteVector.fromArray(B, q, i + stride + LANES)
                    .convertShape(VectorOperators.B2F, F, 0)).fma(FloatVector.fromArray(F, a, t + LANES),
                    FloatVector.fromArray(F, c, t + LANES)).fma(xa, acc3);
            if (p == last) {
                acc0.intoArray(y, yAt);
                acc1.intoArray(y, yAt + LANES);
                acc2.intoArray(y, yAt + NR);
                acc3.intoArray(y, yAt + NR + LANES);
            }
            if (++inGroup == g) {
                inGroup = 0;
                s += NR;
            }
        }
    }

    /**
     * Widens a panel of levels: {@code dst[p·NR + j] = fl(fl(level[j][p] · a[j][p / g]) + c[j][p / g])}, exactly
     * as GGUF's dequantization.
     *
     * @param k the columns, a multiple of {@code g}
     * @param g the columns per group
     * @param q the panels' levels
     * @param at where the panel starts
     * @param a the panels' scales
     * @param c the panels' offsets
     * @param sAt where the panel's scales and offsets start
     * @param dst receives {@code k·NR} floats from 0
     */
    static void unpackLevels(int k, int g, byte[] q, int at, float[] a, float[] c, int sAt, float[] dst) {
        for (int p = 0; p < k; p++) {
            int i = at + p * NR;
            int s = sAt + (p / g) * NR;
            ((FloatVector) ByteVector.fromArray(B, q, i).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s), FloatVector.fromArray(F, c, s)).intoArray(dst, p * NR);
            ((FloatVector) ByteVector.fromArray(B, q, i + LANES).convertShape(VectorOperators.B2F, F, 0))
                    .fma(FloatVector.fromArray(F, a, s + LANES), FloatVector.fromArray(F, c, s + LANES))
                    .intoArray(dst, p * NR + LANES);
        }
    }
}
