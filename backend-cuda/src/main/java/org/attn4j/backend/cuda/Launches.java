package org.attn4j.backend.cuda;

/**
 * Launch configurations of the non-attention kernels, mirroring how each kernel divides its work
 * (see {@code src/main/cuda}). Grid-stride kernels get at most {@value #MAX_STRIDED_BLOCKS} blocks and loop
 * over the rest.
 */
final class Launches {
    /** Threads per block of the elementwise, row and reduction kernels. */
    static final int THREADS = 256;
    /** Cap on the grid of grid-stride kernels. */
    static final int MAX_STRIDED_BLOCKS = 65535;
    /** Output tile of {@code attn4j_gemm_f32}: 64 x 64, 256 threads of 4 x 4 outputs each. */
    static final int GEMM_TILE = 64;
    /** Threads per block of {@code attn4j_gemm_f32}. */
    static final int GEMM_THREADS = 256;
    /** Input rows up to which linear runs the GEMV kernel ({@code ATTN4J_GEMV_MAX_ROWS} of {@code weights.cu}). */
    static final int GEMV_MAX_ROWS = 8;

    private Launches() {
    }

    /**
     * One thread per element of an n-element output, {@value #THREADS} per block.
     *
     * @param n the element count, at least 1
     * @return grid {@code min(ceil(n / 256), 65535)}, block 256
     */
    static LaunchConfig elementwise(long n) {
        requirePositive("elementwise", "n", n);
        return LaunchConfig.linear((int) Math.min(ceilDiv(n, THREADS), MAX_STRIDED_BLOCKS), THREADS);
    }

    /**
     * One block per row (softmax, layer norm); the block size is the row length rounded up to a whole warp,
     * at most {@value #THREADS}, since the block reductions need whole warps.
     *
     * @param rows      number of rows, at least 1
     * @param rowLength elements per row, at least 1
     * @return grid {@code min(rows, 65535)}, block {@code min(256, 32 * ceil(rowLength / 32))}
     */
    static LaunchConfig rows(int rows, int rowLength) {
        requirePositive("rows", "rows", rows);
        requirePositive("rows", "rowLength", rowLength);
        int threads = (int) Math.min(THREADS, ceilDiv(rowLength, 32) * 32);
        return LaunchConfig.linear(Math.min(rows, MAX_STRIDED_BLOCKS), threads);
    }

    /**
     * One warp per output of a reduction over an axis, 8 warps per block.
     *
     * @param outputs number of reduced outputs, at least 1
     * @return grid {@code min(ceil(outputs / 8), 65535)}, block 256
     */
    static LaunchConfig reduction(long outputs) {
        requirePositive("reduction", "outputs", outputs);
        return LaunchConfig.linear((int) Math.min(ceilDiv(outputs, THREADS / 32), MAX_STRIDED_BLOCKS), THREADS);
    }

    /**
     * One block per 64 x 64 tile of C per batch; batches beyond 65535 are looped over by z.
     *
     * @param m       rows of C
     * @param n       columns of C
     * @param batches number of matrices
     * @return grid {@code (ceil(n/64), ceil(m/64), min(batches, 65535))}, block 256
     * @throws IllegalArgumentException if ceil(m/64) exceeds the grid y limit
     */
    static LaunchConfig gemm(int m, int n, int batches) {
        requirePositive("matmul", "m", m);
        requirePositive("matmul", "n", n);
        requirePositive("matmul", "batches", batches);
        long tilesM = ceilDiv(m, GEMM_TILE);
        if (tilesM > LaunchConfig.MAX_GRID_YZ) {
            throw new IllegalArgumentException("matmul: m = " + m + " needs " + tilesM + " row tiles; the CUDA GEMM"
                    + " handles at most " + LaunchConfig.MAX_GRID_YZ * GEMM_TILE + " rows");
        }
        return new LaunchConfig((int) ceilDiv(n, GEMM_TILE), (int) tilesM, Math.min(batches, LaunchConfig.MAX_GRID_YZ),
                GEMM_THREADS, 0);
    }

    /**
     * The GEMV kernels of {@code weights.cu}: one warp per output column, 8 warps per block.
     *
     * @param n output columns, at least 1
     * @return grid {@code ceil(n / 8)}, block 256
     */
    static LaunchConfig gemv(int n) {
        requirePositive("linear", "n", n);
        return LaunchConfig.linear((int) ceilDiv(n, THREADS / 32), THREADS);
    }

    /**
     * The tiled linear kernels of {@code weights.cu}: one block per 64 x 64 output tile.
     *
     * @param m input rows
     * @param n output columns
     * @return grid {@code (ceil(n/64), ceil(m/64))}, block 256
     * @throws IllegalArgumentException if ceil(m/64) exceeds the grid y limit
     */
    static LaunchConfig linear(int m, int n) {
        requirePositive("linear", "m", m);
        requirePositive("linear", "n", n);
        long tilesM = ceilDiv(m, GEMM_TILE);
        if (tilesM > LaunchConfig.MAX_GRID_YZ) {
            throw new IllegalArgumentException("linear: " + m + " input rows need " + tilesM + " row tiles; the CUDA"
                    + " linear kernel handles at most " + LaunchConfig.MAX_GRID_YZ * GEMM_TILE + " rows");
        }
        return new LaunchConfig((int) ceilDiv(n, GEMM_TILE), (int) tilesM, 1, GEMM_THREADS, 0);
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static void requirePositive(String op, String arg, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(op + ": " + arg + " must be at least 1, got " + value);
        }
    }
}
