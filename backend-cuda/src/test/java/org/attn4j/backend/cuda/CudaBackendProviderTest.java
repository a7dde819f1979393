package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ServiceLoader;
import java.util.Set;
import org.attn4j.api.Availability;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Backends;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.ProviderReport;
import org.junit.jupiter.api.Test;

class CudaBackendProviderTest {

    @Test
    void isNamedCudaAndRanksAboveTheCpuBackends() {
        CudaBackendProvider provider = new CudaBackendProvider();
        assertEquals("cuda", provider.name());
        assertEquals(300, provider.priority());
    }

    @Test
    void declaresF32OnlyWithFusedAttentionDropoutAndWeights() {
        Capabilities c = new CudaBackendProvider().capabilities();
        assertEquals("cuda", c.device());
        assertEquals(Set.of(DType.F32), c.dtypes());
        assertFalse(c.supports(DType.F64));
        assertTrue(c.has(Feature.FUSED_ATTENTION) && c.has(Feature.DROPOUT) && c.has(Feature.ATTENTION_WEIGHTS));
    }

    @Test
    void isFoundByServiceLoader() {
        assertTrue(ServiceLoader.load(BackendProvider.class).stream()
                .anyMatch(p -> p.type() == CudaBackendProvider.class));
    }

    @Test
    void availabilityNeverThrowsAndIsProbedOnce() {
        CudaBackendProvider provider = new CudaBackendProvider();
        Availability first = provider.availability();
        assertSame(first, provider.availability());
    }

    @Test
    void withoutTheDriverLibraryTheReasonNamesLibcudaAndCreateRefuses() {
        CudaBackendProvider provider = new CudaBackendProvider();
        Availability a = provider.availability();
        assumeFalse(a.available(), "a usable GPU is present");
        assumeFalse(libcudaPresent(), "libcuda.so.1 is installed; the reason is about the device instead");
        assertTrue(a.reason().contains("libcuda.so.1"), a.reason());
        IllegalStateException e = assertThrows(IllegalStateException.class, provider::create);
        assertTrue(e.getMessage().startsWith("backend cuda is unavailable: libcuda.so.1"), e.getMessage());
    }

    @Test
    void backendsDescribeListsCudaWithItsReason() {
        ProviderReport report = Backends.describe().stream().filter(r -> r.name().equals("cuda")).findFirst()
                .orElseThrow();
        assertEquals(300, report.priority());
        assertFalse(report.availability().reason().isBlank());
    }

    private static boolean libcudaPresent() {
        for (String dir : new String[] {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu",
            "/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"}) {
            if (new java.io.File(dir, "libcuda.so.1").exists()) {
                return true;
            }
        }
        return false;
    }
}
