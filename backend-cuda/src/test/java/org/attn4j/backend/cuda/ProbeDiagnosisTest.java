package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.Availability;
import org.junit.jupiter.api.Test;

class ProbeDiagnosisTest {

    @Test
    void aMissingDriverLibraryIsNamedWithTheLoadersOwnLine() {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver\"\n"
                + "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver.so: libcuda.so.1: cannot open shared object"
                + " file: No such file or directory\n\tat java.base/...");
        Availability a = ProbeDiagnosis.linkFailure(error);
        assertFalse(a.available());
        assertTrue(a.reason().startsWith("libcuda.so.1 (the NVIDIA driver library) could not be loaded"), a.reason());
        assertTrue(a.reason().contains("libcuda.so.1: cannot open shared object file"), a.reason());
    }

    @Test
    void aMissingJcudaJarStillPointsAtTheDriverLibrary() {
        Availability a = ProbeDiagnosis.linkFailure(new NoClassDefFoundError("jcuda/driver/JCudaDriver"));
        assertTrue(a.reason().contains("libcuda.so.1"), a.reason());
        assertTrue(a.reason().contains("jcuda/driver/JCudaDriver"), a.reason());
    }

    @Test
    void noDeviceIsReportedAsSuch() {
        assertTrue(ProbeDiagnosis.initFailure("CUDA_ERROR_NO_DEVICE").reason().contains("CUDA_ERROR_NO_DEVICE"));
        assertTrue(ProbeDiagnosis.deviceOrdinal(0, 0).reason().startsWith("no CUDA device found"));
        assertTrue(ProbeDiagnosis.deviceOrdinal(2, 2).reason().contains("only devices 0..1 exist"));
        assertNull(ProbeDiagnosis.deviceOrdinal(2, 1));
    }

    @Test
    void aDriverThatRejectsPtx90AsksForDriver580() {
        Availability a = ProbeDiagnosis.moduleLoadFailure("attention", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
        assertEquals("the NVIDIA driver rejected PTX ISA 9.0 of attention.ptx (CUDA_ERROR_UNSUPPORTED_PTX_VERSION):"
                + " this backend needs NVIDIA driver 580 or newer", a.reason());
        assertTrue(ProbeDiagnosis.initFailure("CUDA_ERROR_INSUFFICIENT_DRIVER").reason()
                .endsWith("needs NVIDIA driver 580 or newer"));
    }

    @Test
    void aDriverBelowCuda13AsksForDriver580() {
        Availability a = ProbeDiagnosis.driverVersion(12040);
        assertTrue(a.reason().startsWith("the NVIDIA driver supports CUDA 12.4"), a.reason());
        assertTrue(a.reason().endsWith("needs NVIDIA driver 580 or newer"), a.reason());
        assertNull(ProbeDiagnosis.driverVersion(13000));
    }

    @Test
    void computeCapabilityBelow75IsRejected() {
        assertEquals("device 0 (Tesla V100) has compute capability 7.0; the kernels are compute_75 PTX and need 7.5"
                + " or newer", ProbeDiagnosis.computeCapability("device 0 (Tesla V100)", 7, 0).reason());
        assertNull(ProbeDiagnosis.computeCapability("d", 7, 5));
        assertNull(ProbeDiagnosis.computeCapability("d", 9, 0));
    }

    @Test
    void aUsableDeviceIsDescribed() {
        Availability a = ProbeDiagnosis.usable("device 0 (NVIDIA L4)", 8, 9, 24L << 30, 13000);
        assertTrue(a.available());
        assertEquals("device 0 (NVIDIA L4), compute capability 8.9, 24576 MiB, driver CUDA 13.0", a.reason());
    }
}
