package org.attn4j.backend.ejml;

import org.attn4j.api.Activation;

/**
 * {@code Ops.linear} over a bound weight, for every storage type:
 * <pre>
 *   y = act(x·Wᵀ + b) + residual                                  W [out, in]
 *   y = act(x·W_gᵀ + b_g) ⊙ (x·W_uᵀ + b_u) + residual             gated: W = [W_g; W_u], [2·out, in]
 * </pre>
 * The output is cut into blocks of up to {@link #rowBlock} rows by a few of the storage's column blocks (at most
 * {@link #MAX_COLUMNS} columns; for one input row, a multiple of the blocks its product streams together,
 * {@link WeightStorage#blocksPerStep}), spread over the pool. Where the storage's micro-kernel reads its rows packed
 * ({@link WeightStorage#tiles}), the input is packed once, on the pool, before the blocks, which all read it. Each
 * block is the storage's product ({@link WeightStorage#product}; for a gated one, the gate's and the up
 * projection's columns of the same outputs, the latter into a per-thread scratch) followed at once by the epilogue
 * ({@link Epilogues}), while the block is in cache. The
 * row-major storages of the JVMs without the Vector API and of F64 take the whole product from EJML first
 * ({@link MatMul#linear}), then the epilogue row by row.
 */
final class LinearKernel {
    /** Output columns per block at most: the epilogue's passes run over rows this long. */
    static final int MAX_COLUMNS = 256;
    /** Bytes of input rows one block reads, so that they stay in the L2 cache while the weight's panels stream. */
    private static final int INPUT_BYTES = 256 * 1024;
    private static final int MAX_ROWS = 240;
    /**
     * Blocks per thread a call is cut into at least, where the output is wide enough: the threads take them in
     * turn, so a thread that starts late (a parked worker) or a block that runs slow leaves the others idle for at
     * most one block at the end.
     */
    private static final int UNITS_PER_THREAD = 8;
    /** The cost of copying one number, in multiply-adds, for {@link Parallel#forRange}'s split of a packing. */
    private static final long COPY_COST = 16;

    private static final ThreadLocal<float[][]> UP = ThreadLocal.withInitial(() -> new float[1][0]);

    private LinearKernel() {
    }

    /**
     * @param in the input's columns
     * @return rows per block: a multiple of the micro-kernel's rows ({@link VectorGemmF32#ROWS}), as many as fit
     *         {@link #INPUT_BYTES}
     */
    static int rowBlock(int in) {
        int rows = INPUT_BYTES / (4 * Math.max(1, in));
        int tile = Simd.enabled() ? VectorGemmF32.ROWS : VectorGemmF32.MR;
        return Math.max(tile, Math.min(MAX_ROWS, rows - rows % tile));
    }

    /**
     * The F32 linear map.
     *
     * @param w the weight, {@code [out, in]} or {@code [2·out, in]} when gated
     * @param x {@code [n, in]} row-major, not modified
     * @param n the input's rows
     * @param bias {@code [w.rows]} or null, not modified
     * @param act the activation
     * @param gated whether {@code w} holds a gate and an up projection
     * @param residual {@code [n, out]} or null, not modified
     * @param y {@code [n, out]}, overwritten
     * @param parallel the pool
     */
    static void f32(WeightStorage w, float[] x, int n, float[] bias, Activation act, boolean gated, float[] residual,
                    float[] y, Parallel parallel) {
        int in = w.columns;
        int out = gated ? w.rows / 2 : w.rows;
        if (w instanceof RowsF32 rows) {
            float[] product = gated ? ArrayPool.floats(Math.multiplyExact(n, w.rows), false) : y;
            MatMul.linear(n, w.rows, in, x, rows.rowMajor(), null, product, parallel);
            parallel.forRange(n, (long) out * 8, (from, to) -> {
                int ld = gated ? w.rows : out;
                Epilogues.f32(act, product, from * ld, ld, to - from, out, bias, 0, gated ? product : null,
                        from * ld + out, ld, out, residual, from * out, out);
                if (gated) {
                    for (int i = from; i < to; i++) {
                        System.arraycopy(product, i * ld, y, i * out, out);
                    }
                }
            });
            if (gated) {
                ArrayPool.recycle(product);
            }
            return;
        }
        int block = w.columnBlock();
        int blocks = (out + block - 1) / block;
        int rowBlock = rowBlock(in);
        int rowBlocks = (n + rowBlock - 1) / rowBlock;
        int wanted = (UNITS_PER_THREAD * parallel.threads() + rowBlocks - 1) / rowBlocks;
        int perUnit = Math.max(1, Math.min(Math.max(1, MAX_COLUMNS / block), (blocks + wanted - 1) / wanted));
        int step = w.blocksPerStep();
        if (n == 1 && perUnit > step) {
            perUnit -= perUnit % step;
        }
        int width = perUnit * block;
        int columnUnits = (out + width - 1) / width;
        long work = (long) Math.min(rowBlock, n) * width * in * (gated ? 2 : 1);
        float[] packed = w.tiles(Math.min(rowBlock, n)) ? packRows(x, n, in, parallel) : null;
        parallel.forRange(rowBlocks * columnUnits, work, (from, to) -> {
            for (int u = from; u < to; u++) {
                int r0 = (u / columnUnits) * rowBlock;
                int rows = Math.min(rowBlock, n - r0);
                int c0 = (u % columnUnits) * width;
                int cols = Math.min(width, out - c0);
                int at = r0 * out + c0;
                float[] blockPacked = packed != null && w.tiles(rows) ? packed : null;
                product(w, x, blockPacked, r0, rows, c0, c0 + cols, y, at, out);
                float[] up = null;
                if (gated) {
                    up = scratch(rows * cols);
                    product(w, x, blockPacked, r0, rows, out + c0, out + c0 + cols, up, 0, cols);
                }
                Epilogues.f32(act, y, at, out, rows, cols, bias, c0, up, 0, cols, out + c0, residual, at, out);
            }
        });
        if (packed != null) {
            ArrayPool.recycle(packed);
        }
    }

    /**
     * The input's rows packed once for every column block that reads them ({@link VectorGemmF32#packRows}), on the
     * pool: row {@code r0} of a block (a multiple of {@link VectorGemmF32#ROWS}) starts its panel at {@code r0·in}.
     */
    private static float[] packRows(float[] x, int n, int in, Parallel parallel) {
        int panels = VectorGemmF32.rowPanels(n);
        float[] packed = ArrayPool.floats(Math.multiplyExact(panels * VectorGemmF32.ROWS, in), false);
        parallel.forRange(panels, COPY_COST * VectorGemmF32.ROWS * in,
                (from, to) -> VectorGemmF32.packRows(x, 0, in, n, in, packed, from, to));
        return packed;
    }

    /**
     * The product of the {@code n} input rows from {@code r0} with rows {@code [from, to)} of {@code W}: from
     * {@link #packRows}'s result when {@code packed} is not null, else from {@code x} as it lies.
     */
    private static void product(WeightStorage w, float[] x, float[] packed, int r0, int n, int from, int to,
                                float[] y, int yOff, int ldy) {
        int at = r0 * w.columns;
        if (packed != null) {
            w.productOfPacked(packed, at, n, from, to, y, yOff, ldy);
        } else {
            w.product(x, at, w.columns, n, from, to, y, yOff, ldy);
        }
    }

    /**
     * The F64 linear map, with the arguments of {@link #f32}; the weight is {@link RowsF64}.
     */
    static void f64(WeightStorage w, double[] x, int n, double[] bias, Activation act, boolean gated,
                    double[] residual, double[] y, Parallel parallel) {
        int in = w.columns;
        int out = gated ? w.rows / 2 : w.rows;
        double[] product = gated ? ArrayPool.doubles(Math.multiplyExact(n, w.rows), false) : y;
        MatMul.linear(n, w.rows, in, x, ((RowsF64) w).rowMajor(), null, product, parallel);
        parallel.forRange(n, (long) out * 8, (from, to) -> {
            int ld = gated ? w.rows : out;
            Epilogues.f64(act, product, from * ld, ld, to - from, out, bias, 0, gated ? product : null,
                    from * ld + out, ld, out, residual, from * out, out);
            if (gated) {
                for (int i = from; i < to; i++) {
                    System.arraycopy(product, i * ld, y, i * out, out);
                }
            }
        });
        if (gated) {
            ArrayPool.recycle(product);
        }
    }

    private static float[] scratch(int size) {
        float[][] holder = UP.get();
        if (holder[0].length < size) {
            holder[0] = new float[Math.max(size, MAX_ROWS * MAX_COLUMNS)];
        }
        return holder[0];
    }
}
