package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which F32 attention kernel runs. The build runs the attention tests three times: with {@code --add-modules
 * jdk.incubator.vector} (the default); for the scalar kernel without it and with
 * {@code -Dattn4j.test.vectorModule=false}; and on 256-bit vectors ({@code -XX:UseAVX=2}) with
 * {@code -Dattn4j.test.vectorBits=256}, so that no run can lose its kernel unnoticed.
 */
class SimdTest {
    private static final boolean VECTOR_MODULE_EXPECTED =
            Boolean.parseBoolean(System.getProperty("attn4j.test.vectorModule", "true"));

    @Test
    void theTestRunResolvesTheVectorModuleExactlyWhenExpected() {
        assertEquals(VECTOR_MODULE_EXPECTED, ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(),
                "jdk.incubator.vector in the boot layer; surefire's argLine decides it");
    }

    @Test
    void availabilityNoteSaysWhichKernelRunsAndHowToGetTheFastOne() {
        String reason = new EjmlBackendProvider().availability().reason();
        if (Simd.enabled()) {
            assertTrue(reason.contains("-bit SIMD vectors (jdk.incubator.vector)"), reason);
        } else {
            assertTrue(reason.contains("scalar kernel"), reason);
        }
        String bits = System.getProperty("attn4j.test.vectorBits");
        if (bits != null) {
            assertTrue(reason.contains(bits + "-bit SIMD vectors"), reason);
        }
        if (!VECTOR_MODULE_EXPECTED) {
            assertTrue(reason.contains("--add-modules jdk.incubator.vector"), reason);
        }
    }

    @Test
    void theScalarKernelAdvisesTheJvmFlagOnceAndOnlyForWorkWorthSpeedingUp() {
        assertFalse(Simd.adviseScalar(Simd.ADVICE_WORK - 1), "small attention never advises");
        Simd.adviseScalar(Simd.ADVICE_WORK);
        assertFalse(Simd.adviseScalar(Simd.ADVICE_WORK), "the advice is given at most once per JVM");
        if (Simd.enabled() || VECTOR_MODULE_EXPECTED) {
            assertFalse(Simd.adviseScalar(Long.MAX_VALUE), "nothing to advise when the SIMD kernel can run");
        }
    }
}
