package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;

/**
 * How a bound weight {@code W [rows, columns]} is held on the heap, in the layout its kernels read, with those
 * kernels: one subclass per storage type and layout, chosen once, when the weight is bound ({@link #bind}). The
 * ops never read a weight any other way: {@link LinearKernel} splits {@code linear} into tasks, asks the storage for
 * the products of blocks of rows by ranges of columns ({@link #product}) and applies the epilogue to each block
 * while it is in cache; {@code embedding} copies rows out ({@link #gather}).
 *
 * <p>A storage type plugs in by extending this class (F32 activations: {@link #product}, {@link #gather},
 * {@link #values}, {@link #heldBytes}, and optionally {@link #columnBlock}), by one case in {@link #bind} that builds
 * it from the bound bytes, and by adding the type to the provider's {@code Capabilities.weightTypes()}. Threading,
 * blocking, bias, activation, gate and residual then come from {@link LinearKernel}, the same for every type.
 * Today: {@link PanelsF32} (F32 in the SIMD micro-kernel's column panels), {@link RowsF32} (F32 row-major, for
 * the JVMs without the Vector API), {@link RowsF64} (F64 row-major), and the types narrower than F32 in
 * {@link NarrowPanels} ({@link PanelsBF16}, {@link PanelsF16}, {@link PanelsQ8_0}, {@link PanelsQ4_0}), held as they
 * are, {@link PanelsNibbles} for the other 4-bit types (Q4_1, Q4_K, Q2_K) and {@link PanelsLevels} for every other
 * GGUF block type (Q5_0 … IQ4_XS), with and without the Vector API.
 */
abstract class WeightStorage {
    /** The rows of this thread's current {@link #packAndMultiply}. */
    private static final ThreadLocal<float[][]> PACKED_ROWS = ThreadLocal.withInitial(() -> new float[1][0]);
    /** {@code out}, the rows of {@code W}. */
    final int rows;
    /** {@code in}, the columns of {@code W}. */
    final int columns;

    /**
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     */
    WeightStorage(int rows, int columns) {
        this.rows = rows;
        this.columns = columns;
    }

    /**
     * Builds the storage of a weight from its bytes, once.
     *
     * @param data exactly {@code type.byteSize(shape)} little-endian bytes from position 0, checked; read only
     *     during this call
     * @param type the storage type they are in
     * @param shape {@code [rows, columns]}
     * @param parallel the pool whose threads build the panels, whole panels each
     * @return F64 row-major for an F64 weight; BF16, F16, Q8_0 and Q4_0 in their own panels, the other GGUF block
     *     types in panels of levels; F32 in SIMD panels when {@link Simd#enabled()}, else row-major
     */
    static WeightStorage bind(ByteBuffer data, WeightType type, Shape shape, Parallel parallel) {
        int rows = shape.dim(0);
        int columns = shape.dim(1);
        ByteBuffer bytes = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (type) {
            case F64 -> {
                double[] values = new double[Math.toIntExact(shape.size())];
                bytes.asDoubleBuffer().get(values);
                yield new RowsF64(rows, columns, values);
            }
            case F32 -> {
                if (Simd.enabled()) {
                    yield PanelsF32.of(bytes, rows, columns, parallel);
                }
                float[] values = new float[Math.toIntExact(shape.size())];
                bytes.asFloatBuffer().get(values);
                yield new RowsF32(rows, columns, values);
            }
            case BF16, F16, Q8_0, Q4_0 -> {
                NarrowPanels.warmUp(type);
                yield switch (type) {
                    case BF16 -> PanelsBF16.of(bytes, rows, columns, parallel);
                    case F16 -> PanelsF16.of(bytes, rows, columns, parallel);
                    case Q8_0 -> PanelsQ8_0.of(bytes, rows, columns, parallel);
                    default -> PanelsQ4_0.of(bytes, rows, columns, parallel);
                };
            }
            case I8 -> throw new IllegalArgumentException("weight: I8 weights are held by the spi as Int8Weight and"
                    + " computed by Int8Linear, not bound as a WeightStorage");
            default -> {
                NarrowPanels.warmUp(type);
                yield PanelsNibbles.TYPES.contains(type) ? PanelsNibbles.of(type, bytes, rows, columns, parallel)
                        : PanelsLevels.of(type, bytes, rows, columns, parallel);
            }
        };
    }

    /** A body that builds the rows {@code [from, to)} of a storage. */
    @FunctionalInterface
    interface Rows {
        void build(int from, int to);
    }

    /**
     * Builds a storage's rows on the pool's threads, each piece whole panels of {@code nr} rows, so that no two
     * pieces write the same panel.
     *
     * @param parallel the pool
     * @param rows the rows
     * @param columns the columns, for the cost of a piece
     * @param nr the rows of a panel
     * @param body builds rows {@code [from, to)}
     */
    static void byPanels(Parallel parallel, int rows, int columns, int nr, Rows body) {
        parallel.forRangeBesideWarmup((rows + nr - 1) / nr, (long) nr * columns,
                (from, to) -> body.build(from * nr, Math.min(rows, to * nr)));
    }

    /**
     * Copies row {@code r} of a weight's bytes into {@code row}, in one bulk read: building panels from an array
     * rather than from the buffer, whose per-element reads are calls on either of two classes (a heap buffer for a
     * tensor assembled in memory, a direct one for a mapped file) and cost several times as much.
     *
     * @param bytes the weight's bytes, row-major, from position 0
     * @param r the row
     * @param row receives the row's {@code row.length} bytes
     */
    static void rowBytes(ByteBuffer bytes, int r, byte[] row) {
        bytes.get(Math.toIntExact((long) r * row.length), row, 0, row.length);
    }

    /** @return the little-endian 16 bits at {@code at} of {@code a} */
    static short shortAt(byte[] a, int at) {
        return (short) ((a[at] & 0xff) | a[at + 1] << 8);
    }

    /** @return whether products read and write {@code double[]} (an F64 weight) rather than {@code float[]} */
    boolean f64() {
        return false;
    }

    /** @return the bytes held, padding included */
    abstract long heldBytes();

    /** @return {@code W} row-major as floats, as {@code WeightType.decode} reads the bytes it was bound from */
    abstract float[] values();

    /**
     * @return the number of columns of {@code out} (rows of {@code W}) the product computes together; the column
     *     ranges {@link LinearKernel} asks for start at multiples of it where it can
     */
    int columnBlock() {
        return 16;
    }

    /**
     * @return how many {@link #columnBlock}s a one-row product takes together at most: {@link LinearKernel} gives
     *     each block a multiple of it where it can
     */
    int blocksPerStep() {
        return 1;
    }

    /**
     * The product of rows of an F32 input with rows {@code [from, to)} of {@code W}:
     * <pre>
     *   out[outOff + i·ldo + (j - from)] = Σ_p x[xOff + i·ldx + p] · W[j][p]      i &lt; n, from ≤ j &lt; to, p &lt; columns
     * </pre>
     * Runs on the calling thread, allocates nothing in steady state, and writes nothing else of {@code out}.
     *
     * @param x the input, not modified
     * @param xOff where row 0 starts
     * @param ldx the distance between rows of {@code x}
     * @param n the number of rows, at least 1
     * @param from the first row of {@code W}
     * @param to one past the last row of {@code W}
     * @param out the result; overwritten in the block
     * @param outOff where row 0, column {@code from} of the block goes
     * @param ldo the distance between rows of {@code out}
     */
    void product(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff, int ldo) {
        throw new IllegalStateException(getClass().getSimpleName() + " holds an F64 weight; F32 input cannot meet it");
    }

    /**
     * @param n the rows of a product
     * @return whether {@link #product} over {@code n} rows runs {@link VectorGemmF32#tileRows}, which reads rows
     *     packed by {@link VectorGemmF32#packRows}: a caller that asks for several column ranges of the same rows
     *     then packs them once and calls {@link #productOfPacked}
     */
    boolean tiles(int n) {
        return false;
    }

    /**
     * {@link #product} over rows already packed: {@code n} rows, their first panel at {@code pa[paOff]}
     * ({@link VectorGemmF32#packRows} with {@code k = columns}). Only for {@code n} where {@link #tiles} holds.
     *
     * @param pa the packed rows, not modified
     * @param paOff where the first row panel starts
     * @param n the number of rows
     * @param from the first row of {@code W}
     * @param to one past the last row of {@code W}
     * @param out the result; overwritten in the block
     * @param outOff where row 0, column {@code from} of the block goes
     * @param ldo the distance between rows of {@code out}
     */
    void productOfPacked(float[] pa, int paOff, int n, int from, int to, float[] out, int outOff, int ldo) {
        throw new IllegalStateException(getClass().getSimpleName() + " does not read packed rows");
    }

    /**
     * {@link #product} for a storage that {@link #tiles}: packs the rows into this thread's buffer, then
     * {@link #productOfPacked}.
     */
    final void packAndMultiply(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff,
                               int ldo) {
        int panels = VectorGemmF32.rowPanels(n);
        int size = panels * VectorGemmF32.ROWS * columns;
        float[][] holder = PACKED_ROWS.get();
        if (holder[0].length < size) {
            holder[0] = new float[size];
        }
        VectorGemmF32.packRows(x, xOff, ldx, n, columns, holder[0], 0, panels);
        productOfPacked(holder[0], 0, n, from, to, out, outOff, ldo);
    }

    /**
     * The F64 form of {@link #product(float[], int, int, int, int, int, float[], int, int)}, for an F64 weight.
     */
    void product(double[] x, int xOff, int ldx, int n, int from, int to, double[] out, int outOff, int ldo) {
        throw new IllegalStateException(getClass().getSimpleName() + " holds an F32 weight; F64 input cannot meet it");
    }

    /**
     * Copies one row of {@code W}: {@code dst[dstOff + p] = W[row][p]}.
     *
     * @param row the row, in {@code [0, rows)}
     * @param dst the target, F32
     * @param dstOff where the row goes
     */
    void gather(int row, float[] dst, int dstOff) {
        throw new IllegalStateException(getClass().getSimpleName() + " holds an F64 weight; gather it as F64");
    }

    /**
     * @param row the row, in {@code [0, rows)}
     * @param dst the target, F64
     * @param dstOff where the row goes
     */
    void gather(int row, double[] dst, int dstOff) {
        throw new IllegalStateException(getClass().getSimpleName() + " holds an F32 weight; gather it as F32");
    }
}
