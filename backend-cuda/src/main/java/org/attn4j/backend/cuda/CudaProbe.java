package org.attn4j.backend.cuda;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import org.attn4j.api.Availability;

/**
 * The first code that touches JCuda: loads its driver binding (and so {@code libcuda.so.1}), initialises the
 * driver, checks the device and the driver version, and loads every PTX module once in a scratch context.
 * {@link CudaBackendProvider} calls it inside a {@code catch (LinkageError)}, so a missing driver library or a
 * missing JCuda jar becomes a reason, not an exception.
 */
final class CudaProbe {
    /** {@code CUDA_ERROR_INSUFFICIENT_DRIVER} of {@code cuda.h}, which JCuda 12.0's {@code CUresult} lacks. */
    private static final int CUDA_ERROR_INSUFFICIENT_DRIVER = 35;

    private CudaProbe() {
    }

    /**
     * @param ordinal the device to check
     * @return available with a description of the device, or unavailable with the reason
     * @throws LinkageError if JCuda or {@code libcuda.so.1} cannot be loaded
     */
    static Availability probe(int ordinal) {
        int init = cuInit(0);
        if (init != CUresult.CUDA_SUCCESS) {
            return ProbeDiagnosis.initFailure(init == CUDA_ERROR_INSUFFICIENT_DRIVER
                    ? "CUDA_ERROR_INSUFFICIENT_DRIVER" : CUresult.stringFor(init));
        }
        int[] value = new int[1];
        CudaContext.check("cuDeviceGetCount", cuDeviceGetCount(value));
        Availability noDevice = ProbeDiagnosis.deviceOrdinal(value[0], ordinal);
        if (noDevice != null) {
            return noDevice;
        }
        CUdevice device = new CUdevice();
        CudaContext.check("cuDeviceGet", cuDeviceGet(device, ordinal));
        byte[] name = new byte[256];
        CudaContext.check("cuDeviceGetName", cuDeviceGetName(name, name.length, device));
        String description = "device " + ordinal + " (" + cString(name) + ")";
        int major = attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
        int minor = attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        Availability tooOld = ProbeDiagnosis.computeCapability(description, major, minor);
        if (tooOld != null) {
            return tooOld;
        }
        CudaContext.check("cuDriverGetVersion", cuDriverGetVersion(value));
        int driverVersion = value[0];
        Availability oldDriver = ProbeDiagnosis.driverVersion(driverVersion);
        if (oldDriver != null) {
            return oldDriver;
        }
        long[] total = new long[1];
        CudaContext.check("cuDeviceTotalMem", cuDeviceTotalMem(total, device));
        CUcontext context = new CUcontext();
        CudaContext.check("cuCtxCreate", cuCtxCreate(context, 0, device));
        try {
            for (Map.Entry<String, PtxModule> module : PtxModule.loadAll().entrySet()) {
                int loaded = cuModuleLoadData(new CUmodule(), module.getValue().image());
                if (loaded != CUresult.CUDA_SUCCESS) {
                    return ProbeDiagnosis.moduleLoadFailure(module.getKey(), CUresult.stringFor(loaded));
                }
            }
        } finally {
            cuCtxDestroy(context);
        }
        return ProbeDiagnosis.usable(description, major, minor, total[0], driverVersion);
    }

    private static int attribute(CUdevice device, int attribute) {
        int[] value = new int[1];
        CudaContext.check("cuDeviceGetAttribute(" + attribute + ")", cuDeviceGetAttribute(value, attribute, device));
        return value[0];
    }

    private static String cString(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.US_ASCII);
    }
}
