package org.attn4j.backend.cuda;

import java.util.Arrays;
import org.attn4j.api.Availability;

/**
 * Turns what the CUDA probe found into an {@link Availability} whose reason says what is missing and how to fix
 * it. Pure Java: it sees driver results only as their {@code CUresult} names, so it never touches JCuda.
 */
final class ProbeDiagnosis {
    /** The shipped PTX is ISA 9.0 (CUDA 13.0), which drivers from release 580 on accept. */
    static final String DRIVER_HINT = "needs NVIDIA driver 580 or newer";
    /** {@code cuDriverGetVersion} of the first driver that runs CUDA 13.0 PTX. */
    static final int MIN_DRIVER_CUDA_VERSION = 13000;
    /** The PTX targets {@code compute_75}. */
    static final int MIN_COMPUTE_CAPABILITY = 75;

    private ProbeDiagnosis() {
    }

    /**
     * @param error what loading JCuda's driver binding threw
     * @return unavailable, naming libcuda.so.1 and quoting the loader's most telling line
     */
    static Availability linkFailure(LinkageError error) {
        String message = String.valueOf(error.getMessage());
        String detail = Arrays.stream(message.split("\\R"))
                .filter(line -> line.contains("libcuda"))
                .findFirst()
                .orElse(message.lines().findFirst().orElse(error.getClass().getName()))
                .trim();
        return Availability.unavailable("libcuda.so.1 (the NVIDIA driver library) could not be loaded through JCuda: "
                + detail + "; install an NVIDIA driver (580 or newer) so that libcuda.so.1 is on the library path");
    }

    /**
     * @param resultName the {@code CUresult} name {@code cuInit} returned
     * @return unavailable with the reason for that result
     */
    static Availability initFailure(String resultName) {
        return switch (resultName) {
            case "CUDA_ERROR_NO_DEVICE" -> Availability.unavailable(
                    "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE); this backend needs an NVIDIA GPU of compute"
                            + " capability 7.5 or newer");
            case "CUDA_ERROR_INSUFFICIENT_DRIVER", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" -> Availability.unavailable(
                    "the NVIDIA driver is too old (cuInit: " + resultName + "); this backend " + DRIVER_HINT);
            default -> Availability.unavailable("the CUDA driver did not initialise (cuInit: " + resultName + ")");
        };
    }

    /**
     * @param count the number of CUDA devices
     * @param ordinal the device the backend would use
     * @return unavailable if there is no such device, else null
     */
    static Availability deviceOrdinal(int count, int ordinal) {
        if (count < 1) {
            return Availability.unavailable("no CUDA device found (cuDeviceGetCount = 0); this backend needs an NVIDIA"
                    + " GPU of compute capability 7.5 or newer");
        }
        if (ordinal < 0 || ordinal >= count) {
            return Availability.unavailable("system property attn4j.cuda.device = " + ordinal + " but only devices 0.."
                    + (count - 1) + " exist");
        }
        return null;
    }

    /**
     * @param device a description such as {@code "device 0 (NVIDIA T4)"}
     * @param major compute capability major
     * @param minor compute capability minor
     * @return unavailable below 7.5, else null
     */
    static Availability computeCapability(String device, int major, int minor) {
        if (major * 10 + minor < MIN_COMPUTE_CAPABILITY) {
            return Availability.unavailable(device + " has compute capability " + major + "." + minor
                    + "; the kernels are compute_75 PTX and need 7.5 or newer");
        }
        return null;
    }

    /**
     * @param version what {@code cuDriverGetVersion} returned, e.g. 12040 for CUDA 12.4
     * @return unavailable below CUDA 13.0, else null
     */
    static Availability driverVersion(int version) {
        if (version < MIN_DRIVER_CUDA_VERSION) {
            return Availability.unavailable("the NVIDIA driver supports CUDA " + cudaVersion(version)
                    + " but the kernels are PTX ISA 9.0 (CUDA 13.0): " + DRIVER_HINT);
        }
        return null;
    }

    /**
     * @param module the PTX module name
     * @param resultName the {@code CUresult} name {@code cuModuleLoadData} returned
     * @return unavailable with the reason for that result
     */
    static Availability moduleLoadFailure(String module, String resultName) {
        if (resultName.equals("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")) {
            return Availability.unavailable("the NVIDIA driver rejected PTX ISA 9.0 of " + module + ".ptx"
                    + " (CUDA_ERROR_UNSUPPORTED_PTX_VERSION): this backend " + DRIVER_HINT);
        }
        return Availability.unavailable("the CUDA driver could not load " + module + ".ptx (" + resultName + ")");
    }

    /**
     * @param device a description such as {@code "device 0 (NVIDIA T4)"}
     * @param major compute capability major
     * @param minor compute capability minor
     * @param totalBytes device memory
     * @param driverVersion what {@code cuDriverGetVersion} returned
     * @return available, describing the device
     */
    static Availability usable(String device, int major, int minor, long totalBytes, int driverVersion) {
        return Availability.available(device + ", compute capability " + major + "." + minor + ", "
                + (totalBytes >> 20) + " MiB, driver CUDA " + cudaVersion(driverVersion));
    }

    static String cudaVersion(int version) {
        return version / 1000 + "." + (version % 1000) / 10;
    }
}
