package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;

/**
 * A weight {@code W [rows, columns]} held in fewer bits than F32 (BF16, F16, GGUF's block types), laid out once,
 * when bound, in column panels of {@link #NR} rows of {@code W}, the whole inner dimension long, with the {@code NR}
 * numbers of one column side by side:
 * <pre>
 *   panel q, column p, lane j  =  W[q·NR + j][p]          rows past the last of W are zeros
 * </pre>
 * the order of the SIMD matrix product's packed panels ({@link VectorGemmF32}), so that one column of a panel widens
 * to two F32 vectors without any shuffle and a product needs one broadcast of {@code x[p]} per column. Blocks of 32
 * columns share one scale per row ({@code Q8_0}, {@code Q4_0}): they sit in a panel of their own, {@code NR}
 * scales per block, widened to F32 once at bind.
 *
 * <p>{@link #product} computes {@code out = x·W[from..to)ᵀ} for a block of input rows and output columns in one of
 * three ways, accumulating in F32 every way:
 * <ul>
 *   <li>fewer than {@link #TILE_ROWS} rows (a decoding step): each panel is streamed once per row, widened in
 *       registers ({@code VectorNarrowPanels.dot…}), three panels at a time for the types with a {@link #dot3}
 *       kernel, two for those with a {@link #dot2} kernel; a product reads the weight's bytes once, at memory
 *       speed;</li>
 *   <li>for the types with a {@link #dotRows} kernel (BF16, Q8_0), from {@link #DOT_ROWS} up to
 *       {@link #DOT_ROWS_UP_TO} rows (a step over several sequences): each panel is streamed once per four rows,
 *       widened in registers once for the four ({@code VectorNarrowPanels.dot4…});</li>
 *   <li>more rows (a prompt): each panel is widened once into an F32 panel ({@code VectorNarrowPanels.unpack…}) and
 *       the rows run the F32 micro-kernel over it ({@link VectorGemmF32#tileRows}), {@link VectorGemmF32#ROWS} rows
 *       at a time, so the widening is paid once for all the rows of the call.</li>
 * </ul>
 * All ways sum each output in the same order, from the same widened floats (one multiply-add per column, column
 * after column), so a row's result is the same bits whichever way ran: the number of rows in a call chooses the
 * speed, never the numbers (batch invariance, which a server decoding many sequences in one step relies on).
 * Without the Vector API, panels are 16 rows and both ways widen the panel with scalar code and take dot products
 * in F32. Products run on the calling thread and allocate nothing in steady state (per-thread scratch).
 */
abstract class NarrowPanels extends WeightStorage {
    /** Whether the kernels run on SIMD vectors ({@link Simd#enabled()}). */
    static final boolean SIMD = Simd.enabled();
    /** Rows of {@code W} per panel: {@code VectorNarrowPanels.NR} with the Vector API, else 16. */
    static final int NR = SIMD ? VectorNarrowPanels.NR : 16;
    /**
     * From this many input rows on, a product widens each panel once and runs the F32 micro-kernel over it; for a
     * type with a {@link #dotRows} kernel, from {@link #DOT_ROWS_UP_TO} rows on.
     */
    static final int TILE_ROWS = 4;
    /** Input rows one {@link #dotRows} call reads a panel for. */
    static final int DOT_ROWS = 4;
    /**
     * Below this many input rows (a decoding step over several sequences) a type with a {@link #dotRows} kernel
     * streams each panel once per {@link #DOT_ROWS} rows, widening in registers, rather than widening it into memory.
     */
    static final int DOT_ROWS_UP_TO = 24;

    private static final System.Logger LOG = System.getLogger(NarrowPanels.class.getName());
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** The types whose kernels were warmed in this JVM. */
    private static final Set<WeightType> WARMED = EnumSet.noneOf(WeightType.class);
    /** Calls of each product a warm-up makes at most, and the CPU time it may take. */
    private static final int WARM_CALLS = 3000;
    private static final long WARM_NANOS = 600_000_000L;
    private static final int WARM_COLUMNS = 64;
    /** Panels of the warm-up's weight: the one-row product runs {@link #dot3} (or {@link #dot2}) over them. */
    private static final int WARM_PANELS = 4;

    /** The panels: {@code ⌈rows / NR⌉}. */
    final int panels;

    /**
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param perNumber the elements of the storage array per number of {@code W} (1, or ½ for nibbles)
     * @param what the type's name, for the message
     * @throws IllegalArgumentException if the panels do not fit one Java array
     */
    NarrowPanels(int rows, int columns, double perNumber, String what) {
        super(rows, columns);
        this.panels = (rows + NR - 1) / NR;
        double elements = (double) panels * NR * columns * perNumber;
        if (elements > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("weight: a " + what + " weight of [" + rows + ", " + columns
                    + "] needs " + (long) elements + " array elements, more than backend ejml's limit of one Java"
                    + " array (2^31 - 9); split it");
        }
    }

    /**
     * @param q the panel
     * @param p the column
     * @param j the lane, {@code < NR}
     * @return {@code W[q·NR + j][p]} exactly as {@code WeightType.decode} reads it (zero past the last row)
     */
    abstract float value(int q, int p, int j);

    /**
     * {@code y[yAt + j] = Σ_p x[xAt + p] · W[q·NR + j][p]} for {@code j < NR}, streaming the panel once.
     *
     * @param q the panel
     * @param x the input row, not modified
     * @param xAt where it starts
     * @param y receives {@code NR} sums
     * @param yAt where they go
     */
    abstract void dot(int q, float[] x, int xAt, float[] y, int yAt);

    /** Receives one row of a GGUF weight, decoded; the arrays are reused for the next row. */
    @FunctionalInterface
    interface DecodedRow {
        void put(int r, byte[] level, float[] scale, float[] offset);
    }

    /**
     * Decodes every row of a GGUF weight ({@link WeightType#decodeLevels}) on the pool's threads, whole panels of
     * {@link #NR} rows per piece, and hands each row to {@code sink} on the thread that decoded it.
     *
     * @param type a quantized type
     * @param bytes its blocks, row-major, from position 0, checked; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns, a multiple of the type's block size
     * @param parallel the pool
     * @param sink receives row {@code r}'s levels, and its scales and offsets per group of {@code groupSize()}
     */
    static void decodeRows(WeightType type, ByteBuffer bytes, int rows, int columns, Parallel parallel,
                           DecodedRow sink) {
        int groups = columns / type.groupSize();
        long rowBytes = type.rowBytes(columns);
        Shape row = Shape.of(1, columns);
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            byte[] level = new byte[columns];
            float[] scale = new float[groups];
            float[] offset = new float[groups];
            for (int r = from; r < to; r++) {
                ByteBuffer src = bytes.duplicate().position(Math.toIntExact(r * rowBytes))
                        .limit(Math.toIntExact((r + 1) * rowBytes));
                type.decodeLevels(src, row, level, scale, offset);
                sink.put(r, level, scale, offset);
            }
        });
    }

    /** @return whether this type has a {@link #dot2} kernel */
    boolean hasDot2() {
        return false;
    }

    /**
     * {@link #dot} over panels {@code q} and {@code q + 1} at once, each output's sum in {@link #dot}'s order, so each
     * gets the same bits: a core streams two panels at a time, which draws more memory bandwidth than one. Only types
     * whose {@link #hasDot2} is true implement it.
     *
     * @param q the first panel
     * @param x the input row, not modified
     * @param xAt where it starts
     * @param y receives panel {@code q}'s {@code NR} sums at {@code yAt}, panel {@code q + 1}'s after them
     * @param yAt where they go
     */
    void dot2(int q, float[] x, int xAt, float[] y, int yAt) {
        throw new UnsupportedOperationException("dot2: " + getClass().getSimpleName() + " has no such kernel");
    }

    /** @return whether this type has a {@link #dot3} kernel */
    boolean hasDot3() {
        return false;
    }

    /**
     * {@link #dot} over panels {@code q} to {@code q + 2} at once, each output's sum in {@link #dot}'s order, so each
     * gets the same bits: three streams of weights per core draw more of the memory's bandwidth than two or one (one
     * row of a 5632 × 2048 weight, from memory, on an Intel Xeon with 2 threads: Q8_0 about 13 against 15 numbers/ns,
     * BF16 8 against 11). Not four: a four-panel kernel runs boxed when C2 compiles it without speculation. Only
     * types whose {@link #hasDot3} is true implement it.
     *
     * @param q the first panel
     * @param x the input row, not modified
     * @param xAt where it starts
     * @param y receives panel {@code q + t}'s {@code NR} sums at {@code yAt + t·NR}, {@code t < 3}
     * @param yAt where they go
     */
    void dot3(int q, float[] x, int xAt, float[] y, int yAt) {
        throw new UnsupportedOperationException("dot3: " + getClass().getSimpleName() + " has no such kernel");
    }

    /** @return whether this type's {@link #dotRows} reads a panel once for {@link #DOT_ROWS} rows */
    boolean hasDotRows() {
        return false;
    }

    /**
     * {@link #dot} for {@link #DOT_ROWS} input rows at once: the panel's numbers widened once in registers for the
     * four rows, each row's sums in the same order as {@link #dot}'s, so each row gets the same bits. Only types whose
     * {@link #hasDotRows} is true implement it.
     *
     * @param q the panel
     * @param x the input rows, not modified
     * @param xAt where each row starts, {@link #DOT_ROWS} of them
     * @param y receives {@code NR} sums per row
     * @param yAt where each row's go
     */
    void dotRows(int q, float[] x, int[] xAt, float[] y, int[] yAt) {
        throw new UnsupportedOperationException("dotRows: " + getClass().getSimpleName() + " has no such kernel");
    }

    /**
     * Widens a panel: {@code dst[p·NR + j] = W[q·NR + j][p]}, exactly as {@code WeightType.decode} reads it.
     *
     * @param q the panel
     * @param dst at least {@code columns·NR} floats, overwritten from 0
     */
    abstract void unpack(int q, float[] dst);

    /** @return the number of output columns the products compute together: one panel */
    @Override
    int columnBlock() {
        return NR;
    }

    /** @return the panels a one-row product streams together: 3 with a {@link #dot3} kernel, 2 with a {@link #dot2} */
    @Override
    int blocksPerStep() {
        return !SIMD ? 1 : hasDot3() ? 3 : hasDot2() ? 2 : 1;
    }

    @Override
    float[] values() {
        float[] out = new float[Math.toIntExact((long) rows * columns)];
        for (int r = 0; r < rows; r++) {
            gather(r, out, r * columns);
        }
        return out;
    }

    @Override
    void gather(int row, float[] dst, int dstOff) {
        int q = row / NR;
        int j = row % NR;
        for (int p = 0; p < columns; p++) {
            dst[dstOff + p] = value(q, p, j);
        }
    }

    @Override
    boolean tiles(int n) {
        return SIMD && n >= TILE_ROWS && !dotsRows(n);
    }

    private boolean dotsRows(int n) {
        return SIMD && n >= DOT_ROWS && n < DOT_ROWS_UP_TO && hasDotRows();
    }

    /**
     * {@inheritDoc} Fewer than {@link #TILE_ROWS} rows take each panel's dot products with every row; up to
     * {@link #DOT_ROWS_UP_TO} rows, a type with a {@link #dotRows} kernel takes them four rows at a time; more widen
     * each panel once and run the F32 micro-kernel over it.
     */
    @Override
    void product(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff, int ldo) {
        if (tiles(n)) {
            packAndMultiply(x, xOff, ldx, n, from, to, out, outOff, ldo);
            return;
        }
        Scratch s = SCRATCH.get();
        boolean rows = dotsRows(n);
        float[] panel = SIMD ? null : s.panel(columns * NR);
        for (int q = from / NR; q * NR < to; q++) {
            int j0 = Math.max(from, q * NR);
            int j1 = Math.min(to, q * NR + NR);
            boolean whole = j1 - j0 == NR;
            if (!SIMD) {
                unpack(q, panel);
            }
            int wholes = whole ? (to - j0) / NR : 0;
            if (SIMD && !rows && wholes >= 3 && hasDot3()) {
                for (int i = 0; i < n; i++) {
                    dot3(q, x, xOff + i * ldx, out, outOff + i * ldo + (j0 - from));
                }
                q += 2;
                continue;
            }
            if (SIMD && !rows && wholes >= 2 && hasDot2()) {
                for (int i = 0; i < n; i++) {
                    dot2(q, x, xOff + i * ldx, out, outOff + i * ldo + (j0 - from));
                }
                q++;
                continue;
            }
            int i = 0;
            if (rows && whole) {
                for (; i + DOT_ROWS <= n; i += DOT_ROWS) {
                    for (int r = 0; r < DOT_ROWS; r++) {
                        s.xAt[r] = xOff + (i + r) * ldx;
                        s.yAt[r] = outOff + (i + r) * ldo + (j0 - from);
                    }
                    dotRows(q, x, s.xAt, out, s.yAt);
                }
            }
            for (; i < n; i++) {
                int xAt = xOff + i * ldx;
                int at = outOff + i * ldo + (j0 - from);
                float[] y = whole ? out : s.lanes;
                int yAt = whole ? at : 0;
                if (SIMD) {
                    dot(q, x, xAt, y, yAt);
                } else {
                    dotUnpacked(panel, x, xAt, y, yAt);
                }
                if (!whole) {
                    System.arraycopy(s.lanes, j0 - q * NR, out, at, j1 - j0);
                }
            }
        }
    }

    /** The many-rows product: each panel widened once, then the F32 micro-kernel over every {@link VectorGemmF32#ROWS} rows. */
    @Override
    void productOfPacked(float[] pa, int paOff, int n, int from, int to, float[] out, int outOff, int ldo) {
        int mr = VectorGemmF32.ROWS;
        int k = columns;
        Scratch s = SCRATCH.get();
        float[] panel = s.panel(k * NR);
        float[] tile = s.tile(mr * NR);
        for (int q = from / NR; q * NR < to; q++) {
            int j0 = Math.max(from, q * NR);
            int j1 = Math.min(to, q * NR + NR);
            int at = outOff + (j0 - from);
            unpack(q, panel);
            for (int i = 0; i < n; i += mr) {
                VectorGemmF32.tileRows(k, pa, paOff + i * k, panel, 0, tile);
                VectorGemmF32.storeTile(tile, j0 - q * NR, Math.min(mr, n - i), j1 - j0, out, at + i * ldo, ldo);
            }
        }
    }

    /** {@code y[yAt + j] = Σ_p x[xAt + p] · panel[p·NR + j]}: the scalar dot product with a widened panel. */
    private void dotUnpacked(float[] panel, float[] x, int xAt, float[] y, int yAt) {
        Arrays.fill(y, yAt, yAt + NR, 0f);
        for (int p = 0; p < columns; p++) {
            float v = x[xAt + p];
            int base = p * NR;
            for (int j = 0; j < NR; j++) {
                y[yAt + j] += v * panel[base + j];
            }
        }
    }

    /**
     * Adds the last column of a panel whose SIMD kernel takes only an even number of columns:
     * {@code y[yAt + j] += x[xAt + columns - 1] · W[q·NR + j][columns - 1]}.
     */
    void addLastColumn(int q, float[] x, int xAt, float[] y, int yAt) {
        int p = columns - 1;
        float v = x[xAt + p];
        for (int j = 0; j < NR; j++) {
            y[yAt + j] += v * value(q, p, j);
        }
    }

    /**
     * Compiles a type's kernels before the first real call, as {@link Warmup} does the others': the first weight of
     * a type bound in this JVM starts a daemon thread that calls both of its products (one input row over
     * {@value #WARM_PANELS} panels, the decoding kernels; {@link #TILE_ROWS} rows, the few-rows kernel where the type
     * has one; {@link #DOT_ROWS_UP_TO} rows, the widening and the SGEMM tile, over one panel) until C2 has had the calls
     * and loop counts it compiles at, at most {@value #WARM_CALLS} times each or {@code 0.6 s} of that thread's
     * CPU time, while the model goes on loading. Nothing when the SIMD kernels are off, or under
     * {@code -D}{@value Warmup#PROPERTY}{@code =false}.
     *
     * @param type a type stored in these panels
     */
    static void warmUp(WeightType type) {
        if (!SIMD || !Boolean.parseBoolean(System.getProperty(Warmup.PROPERTY, "true"))) {
            return;
        }
        synchronized (WARMED) {
            if (!WARMED.add(type)) {
                return;
            }
        }
        Thread thread = new Thread(() -> {
            try {
                warm(type, WARM_CALLS, WARM_NANOS);
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "attn4j ejml: the warm-up of the " + type + " kernels failed;"
                        + " their first calls will run slower", e);
            }
        }, "attn4j-ejml-warmup-" + type.name().toLowerCase(java.util.Locale.ROOT));
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Calls both products of a small panel of a type, on this thread.
     *
     * @param type the type
     * @param calls the calls of each product at most
     * @param nanos this thread's CPU time (wall time where the JVM does not measure it) after which it stops
     * @return the calls made of each product
     */
    static int warm(WeightType type, int calls, long nanos) {
        int columns = Math.max(WARM_COLUMNS, type.blockSize());
        Shape shape = Shape.of(WARM_PANELS * NR, columns);
        float[] values = new float[WARM_PANELS * NR * columns];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) Math.sin(i * 0.7);
        }
        WeightStorage w = WeightStorage.bind(type.encode(values, shape), type, shape, new Parallel(1));
        float[] x = Arrays.copyOf(values, DOT_ROWS_UP_TO * columns);
        float[] y = new float[DOT_ROWS_UP_TO * NR];
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean cpu = threads.isCurrentThreadCpuTimeSupported();
        long start = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
        int call = 0;
        while (call < calls && (cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime()) - start < nanos) {
            w.product(x, 0, columns, 1, 0, WARM_PANELS * NR, y, 0, WARM_PANELS * NR);
            w.product(x, 0, columns, TILE_ROWS, 0, NR, y, 0, NR);
            w.product(x, 0, columns, DOT_ROWS_UP_TO, 0, NR, y, 0, NR);
            call++;
        }
        return call;
    }

    /** The per-thread buffers of the products, grown once. */
    private static final class Scratch {
        private float[] panel = new float[0];
        private float[] tile = new float[0];
        private final float[] lanes = new float[NR];
        private final int[] xAt = new int[DOT_ROWS];
        private final int[] yAt = new int[DOT_ROWS];

        float[] panel(int size) {
            if (panel.length < size) {
                panel = new float[size];
            }
            return panel;
        }

        float[] tile(int size) {
            if (tile.length < size) {
                tile = new float[size];
            }
            return tile;
        }
    }
}
