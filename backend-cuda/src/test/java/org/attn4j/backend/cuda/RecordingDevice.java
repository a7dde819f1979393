package org.attn4j.backend.cuda;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import jcuda.driver.CUdeviceptr;

/**
 * A {@link Device} without a GPU: it hands out distinct pointer objects, tracks which are live, checks every
 * launch's arguments against the kernel signature and records the launch. Downloads return zeros.
 */
final class RecordingDevice implements Device {
    record Launch(Kernel kernel, LaunchConfig config, String op) {
    }

    private final Map<CUdeviceptr, Long> live = Collections.synchronizedMap(new IdentityHashMap<>());
    final List<Launch> launches = Collections.synchronizedList(new ArrayList<>());

    @Override
    public CUdeviceptr alloc(String op, long bytes) {
        if (bytes < 1) {
            throw new AssertionError(op + ": allocating " + bytes + " bytes");
        }
        CUdeviceptr ptr = new CUdeviceptr();
        live.put(ptr, bytes);
        return ptr;
    }

    @Override
    public void free(CUdeviceptr ptr) {
        if (live.remove(ptr) == null) {
            throw new AssertionError("freeing memory that is not live");
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, float[] src) {
        requireLive(op, dst, 4L * src.length);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, int[] src) {
        requireLive(op, dst, 4L * src.length);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, double[] src) {
        requireLive(op, dst, 8L * src.length);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, byte[] src) {
        requireLive(op, dst, src.length);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, long byteOffset, byte[] src, int length) {
        requireLive(op, dst, byteOffset + length);
    }

    @Override
    public byte[] downloadBytes(String op, CUdeviceptr src, long byteOffset, int length) {
        requireLive(op, src, byteOffset + length);
        return new byte[length];
    }

    @Override
    public float[] download(String op, CUdeviceptr src, int n) {
        requireLive(op, src, 4L * n);
        return new float[n];
    }

    @Override
    public void copy(String op, CUdeviceptr dst, CUdeviceptr src, long bytes) {
        requireLive(op, dst, bytes);
        requireLive(op, src, bytes);
    }

    @Override
    public void zero(String op, CUdeviceptr dst, long n) {
        requireLive(op, dst, 4 * n);
    }

    @Override
    public void launch(Kernel kernel, LaunchConfig config, KernelArgs args) {
        args.requireMatches(kernel);
        launches.add(new Launch(kernel, config, args.op()));
    }

    int liveAllocations() {
        return live.size();
    }

    List<Kernel> kernels() {
        return launches.stream().map(Launch::kernel).toList();
    }

    private void requireLive(String op, CUdeviceptr ptr, long bytes) {
        Long size = live.get(ptr);
        if (size == null || size < bytes) {
            throw new AssertionError(op + ": " + bytes + " bytes at a pointer that is not live or too small");
        }
    }
}
