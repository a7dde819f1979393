package org.attn4j.backend.cuda;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;

/**
 * The backend's one CUDA context on one device, with every PTX module loaded and every {@link Kernel} resolved.
 *
 * <p>Thread safety: every driver call runs inside {@link #run}, which holds one reentrant lock and makes the
 * context current on the calling thread ({@code cuCtxSetCurrent}); an op wraps all its calls in one {@code run}
 * so that its allocations, copies and launches are not interleaved with another thread's. All work goes to the
 * legacy default stream, so a device-to-host copy waits for every launch before it.
 */
final class CudaContext implements Device {
    private final ReentrantLock lock = new ReentrantLock();
    private final CUcontext context;
    private final Map<Kernel, CUfunction> functions;

    private CudaContext(CUcontext context, Map<Kernel, CUfunction> functions) {
        this.context = context;
        this.functions = functions;
    }

    /**
     * Creates a context on device {@code ordinal} and loads every PTX module; call only after
     * {@link CudaProbe#probe(int)} reported the device usable.
     *
     * @param ordinal the device index
     * @return the context
     * @throws IllegalStateException naming the failing driver call and its error
     */
    static CudaContext open(int ordinal) {
        check("cuInit", cuInit(0));
        CUdevice device = new CUdevice();
        check("cuDeviceGet", cuDeviceGet(device, ordinal));
        CUcontext context = new CUcontext();
        check("cuCtxCreate", cuCtxCreate(context, 0, device));
        try {
            return new CudaContext(context, loadKernels());
        } catch (RuntimeException e) {
            cuCtxDestroy(context);
            throw e;
        }
    }

    private static Map<Kernel, CUfunction> loadKernels() {
        Map<Kernel, CUfunction> functions = new EnumMap<>(Kernel.class);
        for (Map.Entry<String, PtxModule> entry : PtxModule.loadAll().entrySet()) {
            CUmodule module = new CUmodule();
            check("cuModuleLoadData(" + entry.getKey() + ".ptx)", cuModuleLoadData(module, entry.getValue().image()));
            for (Kernel kernel : Kernel.byModule().get(entry.getKey())) {
                CUfunction function = new CUfunction();
                check("cuModuleGetFunction(" + kernel.symbol() + ")", cuModuleGetFunction(function, module,
                        kernel.symbol()));
                functions.put(kernel, function);
            }
        }
        return functions;
    }

    /**
     * Runs {@code body} holding the lock with this context current on the calling thread.
     *
     * @param op   the op name for messages
     * @param body driver calls
     * @param <T>  the result type
     * @return what {@code body} returned
     */
    <T> T run(String op, Supplier<T> body) {
        lock.lock();
        try {
            check(op + ": cuCtxSetCurrent", cuCtxSetCurrent(context));
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CUdeviceptr alloc(String op, long bytes) {
        return run(op, () -> {
            CUdeviceptr ptr = new CUdeviceptr();
            check(op + ": cuMemAlloc(" + bytes + " bytes)", cuMemAlloc(ptr, bytes));
            return ptr;
        });
    }

    @Override
    public void free(CUdeviceptr ptr) {
        run("free", () -> {
            check("free: cuMemFree", cuMemFree(ptr));
            return null;
        });
    }

    @Override
    public void upload(String op, CUdeviceptr dst, float[] src) {
        upload(op, dst, Pointer.to(src), (long) src.length * Sizeof.FLOAT);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, int[] src) {
        upload(op, dst, Pointer.to(src), (long) src.length * Sizeof.INT);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, double[] src) {
        upload(op, dst, Pointer.to(src), (long) src.length * Sizeof.DOUBLE);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, byte[] src) {
        upload(op, dst, Pointer.to(src), src.length);
    }

    @Override
    public void upload(String op, CUdeviceptr dst, long byteOffset, byte[] src, int length) {
        upload(op, dst.withByteOffset(byteOffset), Pointer.to(src), length);
    }

    @Override
    public byte[] downloadBytes(String op, CUdeviceptr src, long byteOffset, int length) {
        byte[] out = new byte[length];
        run(op, () -> {
            check(op + ": cuMemcpyDtoH", cuMemcpyDtoH(Pointer.to(out), src.withByteOffset(byteOffset), length));
            return null;
        });
        return out;
    }

    private void upload(String op, CUdeviceptr dst, Pointer src, long bytes) {
        run(op, () -> {
            check(op + ": cuMemcpyHtoD", cuMemcpyHtoD(dst, src, bytes));
            return null;
        });
    }

    @Override
    public float[] download(String op, CUdeviceptr src, int n) {
        float[] out = new float[n];
        run(op, () -> {
            check(op + ": cuMemcpyDtoH", cuMemcpyDtoH(Pointer.to(out), src, (long) n * Sizeof.FLOAT));
            return null;
        });
        return out;
    }

    @Override
    public void copy(String op, CUdeviceptr dst, CUdeviceptr src, long bytes) {
        run(op, () -> {
            check(op + ": cuMemcpyDtoD", cuMemcpyDtoD(dst, src, bytes));
            return null;
        });
    }

    @Override
    public void zero(String op, CUdeviceptr dst, long n) {
        run(op, () -> {
            check(op + ": cuMemsetD32", cuMemsetD32(dst, 0, n));
            return null;
        });
    }

    @Override
    public void launch(Kernel kernel, LaunchConfig config, KernelArgs args) {
        args.requireMatches(kernel);
        run(args.op(), () -> {
            check(args.op() + ": cuLaunchKernel(" + kernel.symbol() + ", " + config + ")",
                    cuLaunchKernel(functions.get(kernel), config.gridX(), config.gridY(), config.gridZ(),
                            config.blockX(), 1, 1, config.sharedBytes(), null, args.kernelParams(), null));
            return null;
        });
    }

    /**
     * @param what   the driver call, prefixed by the op
     * @param result its {@code CUresult}
     * @throws IllegalStateException unless {@code result} is {@code CUDA_SUCCESS}
     */
    static void check(String what, int result) {
        if (result != CUresult.CUDA_SUCCESS) {
            throw new IllegalStateException(what + " failed: " + CUresult.stringFor(result));
        }
    }
}
