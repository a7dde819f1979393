package org.attn4j.backend.cuda;

/**
 * Arguments of one {@code cuLaunchKernel}: a 3-D grid of 1-D blocks and the dynamic shared memory per block.
 * The compact constructor enforces the limits every device of compute capability 7.5 or newer honours
 * without opt-in.
 *
 * @param gridX       blocks along x, 1 to {@value #MAX_GRID_X}
 * @param gridY       blocks along y, 1 to {@value #MAX_GRID_YZ}
 * @param gridZ       blocks along z, 1 to {@value #MAX_GRID_YZ}
 * @param blockX      threads per block, 1 to {@value #MAX_THREADS}
 * @param sharedBytes dynamic shared memory per block, 0 to {@value #MAX_DEFAULT_SHARED_BYTES}
 */
record LaunchConfig(int gridX, int gridY, int gridZ, int blockX, int sharedBytes) {
    /** Largest grid x dimension. */
    static final int MAX_GRID_X = Integer.MAX_VALUE;
    /** Largest grid y and z dimension. */
    static final int MAX_GRID_YZ = 65535;
    /** Most threads per block. */
    static final int MAX_THREADS = 1024;
    /** Shared memory per block available without {@code cuFuncSetAttribute} opt-in (48 KiB). */
    static final int MAX_DEFAULT_SHARED_BYTES = 48 * 1024;

    LaunchConfig {
        check("gridX", gridX, 1, MAX_GRID_X);
        check("gridY", gridY, 1, MAX_GRID_YZ);
        check("gridZ", gridZ, 1, MAX_GRID_YZ);
        check("blockX", blockX, 1, MAX_THREADS);
        check("sharedBytes", sharedBytes, 0, MAX_DEFAULT_SHARED_BYTES);
    }

    /**
     * A 1-D launch without dynamic shared memory.
     *
     * @param blocks  grid x
     * @param threads block x
     * @return the configuration
     */
    static LaunchConfig linear(int blocks, int threads) {
        return new LaunchConfig(blocks, 1, 1, threads, 0);
    }

    /** @return gridX * gridY * gridZ */
    long blocks() {
        return (long) gridX * gridY * gridZ;
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("launch " + name + " = " + value + " outside [" + min + ", " + max + "]");
        }
    }
}
