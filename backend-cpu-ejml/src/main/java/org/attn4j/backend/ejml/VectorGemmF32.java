package org.attn4j.backend.ejml;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * F32 matrix product on explicit SIMD vectors ({@code jdk.incubator.vector}):
 * <pre>
 *   C = op(A)·op(B)            or, with a bias row,   C[i][j] = bias[j] + Σ_p op(A)[i][p]·op(B)[p][j]
 *   op(A): m × k, op(B): k × n, C: m × n row-major
 * </pre>
 * blocked as in the GotoBLAS/BLIS scheme: the inner dimension in blocks of {@link #KC}, the columns in blocks of
 * {@link #NC}; each such block of {@code op(B)} is packed once into column panels {@link #NR} wide (shared by all
 * threads), then tasks of up to {@link #MC} rows by a range of panels pack their rows of {@code op(A)} into row
 * panels {@link #MR} high and run the register-tiled micro-kernel over every (row panel, column panel) pair. The
 * micro-kernel keeps an {@code MR × NR} tile of {@code C} in registers for the whole inner block: 6 rows × 2
 * vectors, 12 accumulators. Panels are zero-padded, so edge tiles run the same kernel into a scratch tile that is
 * then merged into {@code C}. Packing buffers are per thread and grow once, so a call allocates nothing in steady
 * state. {@link #tileRows} is the same micro-kernel over rows packed by {@link #packRows} and a weight packed once,
 * when it was bound ({@link PanelsF32}). Only callers that {@link Simd#enabled()} admitted may load this class: without
 * {@code jdk.incubator.vector} it cannot be linked.
 *
 * <p>How the micro-kernels are written decides whether C2 compiles them to vector instructions at all, in every
 * JVM: C2 inlines a Vector API call on a receiver whose class it cannot prove (a loop-carried vector, or the result
 * of a call it inlined late because the method had grown past its inlining budget) only by speculating on the
 * profiled class, and stops speculating once the deoptimisations recorded in the profiles of the Vector API's
 * shared methods, summed over every copy inlined into one method, pass {@code PerMethodTrapLimit}; the remaining
 * vector operations then run the API's non-intrinsified Java fallbacks on boxed vectors, persistently. Such counts
 * come from the API's own methods compiled on their own while kernels still run interpreted, and so differ from JVM
 * to JVM. Hence every vector here is the receiver of a call only when it is the fresh result of another call, the
 * accumulators are arguments of multiply-adds only and are stored from the last step of their loop, and each
 * kernel stays small enough (at most about 45 Vector API calls) to be parsed within the inlining budget. A
 * {@code 12 × 2} tile does not fit that budget. {@code IntrinsificationTest} holds every kernel to it by running
 * them in a JVM that never speculates on classes ({@code -XX:PerMethodTrapLimit=0}), where any vector operation left
 * to the fallback allocates.
 */
final class VectorGemmF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
    private static final int LANES = SPECIES.length();
    /** Rows of the register tile of {@link #tile}, whose input rows are packed. */
    static final int MR = 6;
    /**
     * Rows of the register tile of {@link #tileRows} and of a panel of {@link #packRows}: 8 (16 accumulators)
     * where the CPU has 32 vector registers, 6 (12) where it has 16. Eight rows give each pair of weight vectors loaded
     * sixteen multiply-adds instead of twelve.
     */
    static final int ROWS = Vectors.MANY_REGISTERS ? 8 : 6;
    /** Columns of the register tile: two vectors. */
    static final int NR = 2 * LANES;
    /** The inner block: one packed {@code KC × NR} panel of {@code B} (16 KiB) stays in the L1 cache. */
    static final int KC = 4096 / NR;
    /** Rows per task: the packed {@code MC × KC} block of {@code A} (120 KiB on 256-bit vectors) stays in L2. */
    static final int MC = 20 * MR;
    /** Columns per packed block of {@code B}. */
    static final int NC = 4096;

    /** The packed {@code A} rows of the current task on this thread, and a scratch tile for edges. */
    private static final ThreadLocal<float[]> PACKED_A = ThreadLocal.withInitial(() -> new float[MC * KC]);
    private static final ThreadLocal<float[]> EDGE_TILE = ThreadLocal.withInitial(() -> new float[MR * NR]);
    /** The packed block of {@code B} of a call, owned by the calling thread and read by the workers. */
    private static final ThreadLocal<float[][]> PACKED_B = ThreadLocal.withInitial(() -> new float[1][0]);

    private VectorGemmF32() {
    }

    /**
     * {@code c[cOff …] = (bias) + op(A)·op(B)} for one matrix of each.
     *
     * @param m rows of {@code C}
     * @param n columns of {@code C}
     * @param k the inner dimension
     * @param a {@code A} at {@code aOff}: {@code [m, k]} row-major, or {@code [k, m]} when {@code transposeA}
     * @param b {@code B} at {@code bOff}: {@code [k, n]} row-major, or {@code [n, k]} when {@code transposeB}
     * @param bias {@code n} values added to every row, or {@code null}
     * @param c {@code [m, n]} row-major at {@code cOff}; overwritten
     * @param parallel the pool the tasks run on, or {@code null} to run on the calling thread only
     */
    static void multiply(int m, int n, int k, float[] a, int aOff, boolean transposeA, float[] b, int bOff,
                         boolean transposeB, float[] bias, float[] c, int cOff, Parallel parallel) {
        Operands x = new Operands(m, n, k, a, aOff, transposeA ? 1 : k, transposeA ? m : 1, b, bOff,
                transposeB ? 1 : n, transposeB ? k : 1, c, cOff);
        boolean add = bias != null;
        if (add) {
            for (int i = 0; i < m; i++) {
                System.arraycopy(bias, 0, c, cOff + i * n, n);
            }
        }
        if (k == 0) {
            if (!add) {
                Arrays.fill(c, cOff, cOff + m * n, 0f);
            }
            return;
        }
        float[][] holder = PACKED_B.get();
        for (int jc = 0; jc < n; jc += NC) {
            int nc = Math.min(NC, n - jc);
            int panels = (nc + NR - 1) / NR;
            for (int pc = 0; pc < k; pc += KC) {
                int kc = Math.min(KC, k - pc);
                if (holder[0].length < panels * NR * kc) {
                    holder[0] = new float[panels * NR * KC];
                }
                float[] packedB = holder[0];
                int col0 = jc;
                int inner0 = pc;
                boolean accumulate = add || pc > 0;
                int rowBlocks = (m + MC - 1) / MC;
                int threads = parallel == null ? 1 : parallel.threads();
                int chunks = Math.max(1, Math.min(panels, (4 * threads + rowBlocks - 1) / rowBlocks));
                int panelsPerChunk = (panels + chunks - 1) / chunks;
                int tasks = rowBlocks * chunks;
                if (parallel == null) {
                    packB(x, packedB, col0, nc, inner0, kc, 0, panels);
                    compute(x, packedB, col0, nc, inner0, kc, accumulate, chunks, panelsPerChunk, 0, tasks);
                } else {
                    parallel.forRange(panels, (long) kc * NR,
                            (from, to) -> packB(x, packedB, col0, nc, inner0, kc, from, to));
                    parallel.forRange(tasks, (long) Math.min(MC, m) * panelsPerChunk * NR * kc,
                            (from, to) -> compute(x, packedB, col0, nc, inner0, kc, accumulate, chunks,
                                    panelsPerChunk, from, to));
                }
            }
        }
    }

    /** The operands of one product: {@code A[i][p] = a[aOff + i·aRow + p·aCol]}, likewise {@code B}. */
    private record Operands(int m, int n, int k, float[] a, int aOff, int aRow, int aCol, float[] b, int bOff,
                            int bRow, int bCol, float[] c, int cOff) {
    }

    /**
     * Packs column panels {@code [from, to)} of {@code op(B)[inner0 … +kc][col0 … +nc]}: panel {@code q} at
     * {@code q·kc·NR}, element {@code (p, j)} at {@code + p·NR + j}, zero beyond column {@code nc}.
     */
    private static void packB(Operands x, float[] packed, int col0, int nc, int inner0, int kc, int from, int to) {
        float[] b = x.b();
        int row = x.bRow();
        int col = x.bCol();
        for (int q = from; q < to; q++) {
            int base = q * kc * NR;
            int j0 = q * NR;
            int width = Math.min(NR, nc - j0);
            int src = x.bOff() + inner0 * row + (col0 + j0) * col;
            if (col == 1) {
                for (int p = 0; p < kc; p++) {
                    System.arraycopy(b, src + p * row, packed, base + p * NR, width);
                }
            } else {
                for (int j = 0; j < width; j++) {
                    int s = src + j * col;
                    int d = base + j;
                    for (int p = 0; p < kc; p++) {
                        packed[d + p * NR] = b[s + p * row];
                    }
                }
            }
            if (width < NR) {
                for (int p = 0; p < kc; p++) {
                    Arrays.fill(packed, base + p * NR + width, base + (p + 1) * NR, 0f);
                }
            }
        }
    }

    /**
     * Runs tasks {@code [from, to)}: task {@code t} covers rows block {@code t / chunks} ({@link #MC} rows) and
     * column panels {@code [(t % chunks)·panelsPerChunk, …)} of the packed block.
     */
    private static void compute(Operands x, float[] packedB, int col0, int nc, int inner0, int kc,
                                boolean accumulate, int chunks, int panelsPerChunk, int from, int to) {
        float[] packedA = PACKED_A.get();
        float[] edge = EDGE_TILE.get();
        int panels = (nc + NR - 1) / NR;
        int packedRows = -1;
        for (int t = from; t < to; t++) {
            int i0 = (t / chunks) * MC;
            int mc = Math.min(MC, x.m() - i0);
            if (i0 != packedRows) {
                packA(x, packedA, i0, mc, inner0, kc);
                packedRows = i0;
            }
            int q0 = (t % chunks) * panelsPerChunk;
            int q1 = Math.min(panels, q0 + panelsPerChunk);
            for (int q = q0; q < q1; q++) {
                int j0 = q * NR;
                int width = Math.min(NR, nc - j0);
                for (int r = 0; r < mc; r += MR) {
                    int height = Math.min(MR, mc - r);
                    int cAt = x.cOff() + (i0 + r) * x.n() + col0 + j0;
                    int aAt = r * kc;
                    int bAt = q * kc * NR;
                    if (height == MR && width == NR) {
                        tile(kc, packedA, aAt, packedB, bAt, x.c(), cAt, x.n(), accumulate);
                    } else {
                        tile(kc, packedA, aAt, packedB, bAt, edge, 0, NR, false);
                        merge(edge, x.c(), cAt, x.n(), height, width, accumulate);
                    }
                }
            }
        }
    }

    /**
     * Packs rows {@code [i0, i0 + mc)} of {@code op(A)[·][inner0 … +kc]}: row panel {@code s} at {@code s·MR·kc},
     * element {@code (i, p)} at {@code + p·MR + i}, zero beyond row {@code mc}.
     */
    private static void packA(Operands x, float[] packed, int i0, int mc, int inner0, int kc) {
        float[] a = x.a();
        int row = x.aRow();
        int col = x.aCol();
        for (int r = 0; r < mc; r += MR) {
            int height = Math.min(MR, mc - r);
            int base = r * kc;
            int src = x.aOff() + (i0 + r) * row + inner0 * col;
            if (row == 1) {
                for (int p = 0; p < kc; p++) {
                    System.arraycopy(a, src + p * col, packed, base + p * MR, height);
                }
            } else {
                for (int i = 0; i < height; i++) {
                    int s = src + i * row;
                    int d = base + i;
                    for (int p = 0; p < kc; p++) {
                        packed[d + p * MR] = a[s + p * col];
                    }
                }
            }
            if (height < MR) {
                for (int p = 0; p < kc; p++) {
                    Arrays.fill(packed, base + p * MR + height, base + (p + 1) * MR, 0f);
                }
            }
        }
    }

    /** Adds (or copies) the valid {@code height × width} corner of an edge tile into {@code C}. */
    private static void merge(float[] edge, float[] c, int cAt, int ldc, int height, int width, boolean accumulate) {
        for (int i = 0; i < height; i++) {
            int d = cAt + i * ldc;
            int s = i * NR;
            if (accumulate) {
                for (int j = 0; j < width; j++) {
                    c[d + j] += edge[s + j];
                }
            } else {
                System.arraycopy(edge, s, c, d, width);
            }
        }
    }

    /**
     * One {@code MR × NR} tile: {@code c (+)= packedA panel · packedB panel} over {@code kc ≥ 1} inner steps: 12
     * accumulators, 2 loads and 6 broadcasts per step. Written for C2 (see the class comment): the accumulators are
     * only ever arguments of a multiply-add inside the loop, and each is stored from the loop's last step, where it is
     * the fresh result of that multiply-add.
     */
    static void tile(int kc, float[] pa, int aAt, float[] pb, int bAt, float[] c, int cAt, int ldc,
                     boolean accumulate) {
        FloatVector zero = FloatVector.zero(SPECIES);
        int r0 = cAt;
        int r1 = cAt + 1 * ldc;
        int r2 = cAt + 2 * ldc;
        int r3 = cAt + 3 * ldc;
        int r4 = cAt + 4 * ldc;
        int r5 = cAt + 5 * ldc;
        FloatVector c00 = accumulate ? FloatVector.fromArray(SPECIES, c, r0) : zero;
        FloatVector c01 = accumulate ? FloatVector.fromArray(SPECIES, c, r0 + LANES) : zero;
        FloatVector c10 = accumulate ? FloatVector.fromArray(SPECIES, c, r1) : zero;
        FloatVector c11 = accumulate ? FloatVector.fromArray(SPECIES, c, r1 + LANES) : zero;
        FloatVector c20 = accumulate ? FloatVector.fromArray(SPECIES, c, r2) : zero;
        FloatVector c21 = accumulate ? FloatVector.fromArray(SPECIES, c, r2 + LANES) : zero;
        FloatVector c30 = accumulate ? FloatVector.fromArray(SPECIES, c, r3) : zero;
        FloatVector c31 = accumulate ? FloatVector.fromArray(SPECIES, c, r3 + LANES) : zero;
        FloatVector c40 = accumulate ? FloatVector.fromArray(SPECIES, c, r4) : zero;
        FloatVector c41 = accumulate ? FloatVector.fromArray(SPECIES, c, r4 + LANES) : zero;
        FloatVector c50 = accumulate ? FloatVector.fromArray(SPECIES, c, r5) : zero;
        FloatVector c51 = accumulate ? FloatVector.fromArray(SPECIES, c, r5 + LANES) : zero;
        int last = kc - 1;
        for (int p = 0; p < kc; p++) {
            int ia = aAt + p * MR;
            int ib = bAt + p * NR;
            FloatVector b0 = FloatVector.fromArray(SPECIES, pb, ib);
            FloatVector b1 = FloatVector.fromArray(SPECIES, pb, ib + LANES);
            FloatVector s0 = FloatVector.broadcast(SPECIES, pa[ia]);
            c00 = b0.fma(s0, c00);
            c01 = b1.fma(s0, c01);
            FloatVector s1 = FloatVector.broadcast(SPECIES, pa[ia + 1]);
            c10 = b0.fma(s1, c10);
            c11 = b1.fma(s1, c11);
            FloatVector s2 = FloatVector.broadcast(SPECIES, pa[ia + 2]);
            c20 = b0.fma(s2, c20);
            c21 = b1.fma(s2, c21);
            FloatVector s3 = FloatVector.broadcast(SPECIES, pa[ia + 3]);
            c30 = b0.fma(s3, c30);
            c31 = b1.fma(s3, c31);
            FloatVector s4 = FloatVector.broadcast(SPECIES, pa[ia + 4]);
            c40 = b0.fma(s4, c40);
            c41 = b1.fma(s4, c41);
            FloatVector s5 = FloatVector.broadcast(SPECIES, pa[ia + 5]);
            c50 = b0.fma(s5, c50);
            c51 = b1.fma(s5, c51);
            if (p == last) {
                c00.intoArray(c, r0);
                c01.intoArray(c, r0 + LANES);
                c10.intoArray(c, r1);
                c11.intoArray(c, r1 + LANES);
                c20.intoArray(c, r2);
                c21.intoArray(c, r2 + LANES);
                c30.intoArray(c, r3);
                c31.intoArray(c, r3 + LANES);
                c40.intoArray(c, r4);
                c41.intoArray(c, r4 + LANES);
                c50.intoArray(c, r5);
                c51.intoArray(c, r5 + LANES);
            }
        }
    }

    /**
     * @param n rows of input
     * @return the row panels of {@link #packRows} that hold them, each {@code ROWS·k} floats
     */
    static int rowPanels(int n) {
        return (n + ROWS - 1) / ROWS;
    }

    /**
     * Packs row panels {@code [from, to)} of the {@code n} rows {@code x[xOff + i·ldx + p]} ({@code p < k}) for
     * {@link #tileRows}: {@link #ROWS} rows interleaved, so that one step of the micro-kernel reads its rows' numbers
     * side by side,
     * <pre>
     *   pa[s·ROWS·k + p·ROWS + i] = x[xOff + min(s·ROWS + i, n - 1)·ldx + p]
     * </pre>
     * rows past the last repeating it (an edge tile computes them and its caller drops them).
     *
     * @param pa at least {@code to·ROWS·k} floats; panels {@code [from, to)} overwritten
     */
    static void packRows(float[] x, int xOff, int ldx, int n, int k, float[] pa, int from, int to) {
        for (int s = from; s < to; s++) {
            int base = s * ROWS * k;
            for (int i = 0; i < ROWS; i++) {
                int row = xOff + Math.min(s * ROWS + i, n - 1) * ldx;
                int d = base + i;
                for (int p = 0; p < k; p++) {
                    pa[d + p * ROWS] = x[row + p];
                }
            }
        }
    }

    /**
     * {@code tile[i·NR + j] = Σ_p pa[aAt + p·ROWS + i] · pb[bAt + p·NR + j]} for the {@link #ROWS} rows {@code i} of a
     * row panel ({@link #packRows}) and the {@link #NR} columns of one packed weight panel, over {@code k ≥ 1} inner
     * steps, each sum a chain of multiply-adds in the order of {@code p}. The tile is {@code ROWS × NR} contiguous: a
     * loop that kept the distance between output rows in a register, and a base per input row, ran out of general
     * registers and spilled in every step; with both fixed, a step is two loads, {@link #ROWS} broadcasts from
     * memory and the multiply-adds.
     *
     * @param tile at least {@code ROWS·NR} floats, overwritten from 0
     */
    static void tileRows(int k, float[] pa, int aAt, float[] pb, int bAt, float[] tile) {
        if (ROWS == 8) {
            tile8Rows(k, pa, aAt, pb, bAt, tile);
        } else {
            tile6Rows(k, pa, aAt, pb, bAt, tile);
        }
    }

    /**
     * Copies the valid {@code height × width} corner of a {@link #tileRows} tile, from its column {@code skip}, into
     * {@code out} at {@code at} with rows {@code ldo} apart.
     */
    static void storeTile(float[] tile, int skip, int height, int width, float[] out, int at, int ldo) {
        for (int r = 0; r < height; r++) {
            System.arraycopy(tile, r * NR + skip, out, at + r * ldo, width);
        }
    }

    private static void tile6Rows(int k, float[] pa, int aAt, float[] pb, int bAt, float[] tile) {
        FloatVector zero = FloatVector.zero(SPECIES);
        FloatVector c00 = zero;
        FloatVector c01 = zero;
        FloatVector c10 = zero;
        FloatVector c11 = zero;
        FloatVector c20 = zero;
        FloatVector c21 = zero;
        FloatVector c30 = zero;
        FloatVector c31 = zero;
        FloatVector c40 = zero;
        FloatVector c41 = zero;
        FloatVector c50 = zero;
        FloatVector c51 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int ia = aAt + p * 6;
            int ib = bAt + p * NR;
            FloatVector b0 = FloatVector.fromArray(SPECIES, pb, ib);
            FloatVector b1 = FloatVector.fromArray(SPECIES, pb, ib + LANES);
            FloatVector s0 = FloatVector.broadcast(SPECIES, pa[ia + 0]);
            c00 = b0.fma(s0, c00);
            c01 = b1.fma(s0, c01);
            FloatVector s1 = FloatVector.broadcast(SPECIES, pa[ia + 1]);
            c10 = b0.fma(s1, c10);
            c11 = b1.fma(s1, c11);
            FloatVector s2 = FloatVector.broadcast(SPECIES, pa[ia + 2]);
            c20 = b0.fma(s2, c20);
            c21 = b1.fma(s2, c21);
            FloatVector s3 = FloatVector.broadcast(SPECIES, pa[ia + 3]);
            c30 = b0.fma(s3, c30);
            c31 = b1.fma(s3, c31);
            FloatVector s4 = FloatVector.broadcast(SPECIES, pa[ia + 4]);
            c40 = b0.fma(s4, c40);
            c41 = b1.fma(s4, c41);
            FloatVector s5 = FloatVector.broadcast(SPECIES, pa[ia + 5]);
            c50 = b0.fma(s5, c50);
            c51 = b1.fma(s5, c51);
            if (p == last) {
                c00.intoArray(tile, 0 * NR);
                c01.intoArray(tile, 0 * NR + LANES);
                c10.intoArray(tile, 1 * NR);
                c11.intoArray(tile, 1 * NR + LANES);
                c20.intoArray(tile, 2 * NR);
                c21.intoArray(tile, 2 * NR + LANES);
                c30.intoArray(tile, 3 * NR);
                c31.intoArray(tile, 3 * NR + LANES);
                c40.intoArray(tile, 4 * NR);
                c41.intoArray(tile, 4 * NR + LANES);
                c50.intoArray(tile, 5 * NR);
                c51.intoArray(tile, 5 * NR + LANES);
            }
        }
    }

    private static void tile8Rows(int k, float[] pa, int aAt, float[] pb, int bAt, float[] tile) {
        FloatVector zero = FloatVector.zero(SPECIES);
        FloatVector c00 = zero;
        FloatVector c01 = zero;
        FloatVector c10 = zero;
        FloatVector c11 = zero;
        FloatVector c20 = zero;
        FloatVector c21 = zero;
        FloatVector c30 = zero;
        FloatVector c31 = zero;
        FloatVector c40 = zero;
        FloatVector c41 = zero;
        FloatVector c50 = zero;
        FloatVector c51 = zero;
        FloatVector c60 = zero;
        FloatVector c61 = zero;
        FloatVector c70 = zero;
        FloatVector c71 = zero;
        int last = k - 1;
        for (int p = 0; p < k; p++) {
            int ia = aAt + p * 8;
            int ib = bAt + p * NR;
            FloatVector b0 = FloatVector.fromArray(SPECIES, pb, ib);
            FloatVector b1 = FloatVector.fromArray(SPECIES, pb, ib + LANES);
            FloatVector s0 = FloatVector.broadcast(SPECIES, pa[ia + 0]);
            c00 = b0.fma(s0, c00);
            c01 = b1.fma(s0, c01);
            FloatVector s1 = FloatVector.broadcast(SPECIES, pa[ia + 1]);
            c10 = b0.fma(s1, c10);
            c11 = b1.fma(s1, c11);
            FloatVector s2 = FloatVector.broadcast(SPECIES, pa[ia + 2]);
            c20 = b0.fma(s2, c20);
            c21 = b1.fma(s2, c21);
            FloatVector s3 = FloatVector.broadcast(SPECIES, pa[ia + 3]);
            c30 = b0.fma(s3, c30);
            c31 = b1.fma(s3, c31);
            FloatVector s4 = FloatVector.broadcast(SPECIES, pa[ia + 4]);
            c40 = b0.fma(s4, c40);
            c41 = b1.fma(s4, c41);
            FloatVector s5 = FloatVector.broadcast(SPECIES, pa[ia + 5]);
            c50 = b0.fma(s5, c50);
            c51 = b1.fma(s5, c51);
            FloatVector s6 = FloatVector.broadcast(SPECIES, pa[ia + 6]);
            c60 = b0.fma(s6, c60);
            c61 = b1.fma(s6, c61);
            FloatVector s7 = FloatVector.broadcast(SPECIES, pa[ia + 7]);
            c70 = b0.fma(s7, c70);
            c71 = b1.fma(s7, c71);
            if (p == last) {
                c00.intoArray(tile, 0 * NR);
                c01.intoArray(tile, 0 * NR + LANES);
                c10.intoArray(tile, 1 * NR);
                c11.intoArray(tile, 1 * NR + LANES);
                c20.intoArray(tile, 2 * NR);
                c21.intoArray(tile, 2 * NR + LANES);
                c30.intoArray(tile, 3 * NR);
                c31.intoArray(tile, 3 * NR + LANES);
                c40.intoArray(tile, 4 * NR);
                c41.intoArray(tile, 4 * NR + LANES);
                c50.intoArray(tile, 5 * NR);
                c51.intoArray(tile, 5 * NR + LANES);
                c60.intoArray(tile, 6 * NR);
                c61.intoArray(tile, 6 * NR + LANES);
                c70.intoArray(tile, 7 * NR);
                c71.intoArray(tile, 7 * NR + LANES);
            }
        }
    }
}
