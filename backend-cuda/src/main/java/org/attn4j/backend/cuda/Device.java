package org.attn4j.backend.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * The driver calls the ops need: device memory, copies and kernel launches. {@link CudaContext} implements it
 * with the CUDA driver; tests substitute a recording implementation to check every op's launches without a GPU.
 */
interface Device {

    /**
     * @param op    the op name for messages
     * @param bytes at least 1
     * @return newly allocated, uninitialised device memory
     */
    CUdeviceptr alloc(String op, long bytes);

    /** @param ptr memory from {@link #alloc}, freed exactly once */
    void free(CUdeviceptr ptr);

    /**
     * @param op  the op name for messages
     * @param dst device memory of at least {@code src.length} floats
     * @param src the values; not modified
     */
    void upload(String op, CUdeviceptr dst, float[] src);

    /**
     * @param op  the op name for messages
     * @param dst device memory of at least {@code src.length} ints
     * @param src the values; not modified
     */
    void upload(String op, CUdeviceptr dst, int[] src);

    /**
     * @param op  the op name for messages
     * @param dst device memory of at least {@code src.length} doubles
     * @param src the values; not modified
     */
    void upload(String op, CUdeviceptr dst, double[] src);

    /**
     * @param op  the op name for messages
     * @param dst device memory of at least {@code src.length} bytes
     * @param src the values; not modified
     */
    void upload(String op, CUdeviceptr dst, byte[] src);

    /**
     * @param op         the op name for messages
     * @param dst        device memory of at least {@code byteOffset + length} bytes
     * @param byteOffset where in {@code dst} the bytes go
     * @param src        the bytes; not modified
     * @param length     how many of them, from the first
     */
    void upload(String op, CUdeviceptr dst, long byteOffset, byte[] src, int length);

    /**
     * @param op         the op name for messages
     * @param src        device memory of at least {@code byteOffset + length} bytes
     * @param byteOffset where in {@code src} the bytes start
     * @param length     how many bytes
     * @return the bytes, after every earlier launch has finished
     */
    byte[] downloadBytes(String op, CUdeviceptr src, long byteOffset, int length);

    /**
     * @param op  the op name for messages
     * @param src device memory holding at least {@code n} floats
     * @param n   the element count
     * @return the first {@code n} floats, after every earlier launch has finished
     */
    float[] download(String op, CUdeviceptr src, int n);

    /**
     * @param op    the op name for messages
     * @param dst   destination device memory
     * @param src   source device memory
     * @param bytes the byte count
     */
    void copy(String op, CUdeviceptr dst, CUdeviceptr src, long bytes);

    /**
     * @param op  the op name for messages
     * @param dst device memory of at least {@code n} floats
     * @param n   the number of floats set to +0.0
     */
    void zero(String op, CUdeviceptr dst, long n);

    /**
     * Launches {@code kernel} after checking {@code args} against its parameter list.
     *
     * @param kernel the kernel
     * @param config grid, block and dynamic shared memory
     * @param args   the arguments, in declaration order
     * @throws IllegalStateException if the arguments do not match the kernel's parameters
     */
    void launch(Kernel kernel, LaunchConfig config, KernelArgs args);
}
