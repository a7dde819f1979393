package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PtxModuleTest {
    private static final String SAMPLE = String.join("\n",
            "//",
            "// .entry commented_out(",
            ".version 9.0",
            ".target sm_75",
            ".address_size 64",
            ".func helper(.param .u32 x) { ret; }",
            ".visible .entry attn4j_scale_f32(",
            "\t.param .u64 attn4j_scale_f32_param_0,",
            "\t.param .u64 attn4j_scale_f32_param_1,",
            "\t.param .f32 attn4j_scale_f32_param_2,",
            "\t.param .u64 attn4j_scale_f32_param_3",
            ")",
            "{ ret; }",
            ".entry other(.param .align 4 .b8 other_param_0[36], .param .f64 other_param_1)",
            "{ ret; }");

    @Test
    void parsesEntryNamesAndParametersButNotFunctionsOrComments() {
        PtxModule module = PtxModule.parse("sample", SAMPLE);
        assertEquals(List.of("attn4j_scale_f32", "other"), List.copyOf(module.entries().keySet()));
        assertEquals(List.of(new PtxModule.Param("u64", 1), new PtxModule.Param("u64", 1),
                new PtxModule.Param("f32", 1), new PtxModule.Param("u64", 1)), module.entries().get("attn4j_scale_f32"));
        assertEquals(List.of(new PtxModule.Param("b8", 36), new PtxModule.Param("f64", 1)),
                module.entries().get("other"));
        assertEquals(36, module.entries().get("other").get(0).bytes());
    }

    @Test
    void readsIsaVersionAndTarget() {
        PtxModule module = PtxModule.parse("sample", SAMPLE);
        assertEquals("9.0", module.isaVersion());
        assertEquals("sm_75", module.target());
    }

    @Test
    void acceptsAKernelWhoseParametersMatchTheHostList() {
        PtxModule.parse("sample", SAMPLE).requireSignature(Kernel.SCALE);
    }

    @Test
    void reportsAMissingKernelWithTheModuleAndTheEntriesItDefines() {
        PtxModule module = PtxModule.parse("sample", SAMPLE);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> module.requireSignature(Kernel.EXP));
        assertTrue(e.getMessage().contains("'sample' has no kernel 'attn4j_exp_f32'"), e.getMessage());
        assertTrue(e.getMessage().contains("[attn4j_scale_f32, other]"), e.getMessage());
    }

    @Test
    void reportsAParameterMismatchWithBothLists() {
        String changed = SAMPLE.replace(".f32 attn4j_scale_f32_param_2", ".f64 attn4j_scale_f32_param_2");
        PtxModule module = PtxModule.parse("sample", changed);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> module.requireSignature(Kernel.SCALE));
        assertTrue(e.getMessage().contains("[.u64, .u64, .f64, .u64]"), e.getMessage());
        assertTrue(e.getMessage().contains("[POINTER, POINTER, FLOAT, LONG]"), e.getMessage());
    }

    @Test
    void imageIsNulTerminatedForCuModuleLoadData() {
        byte[] image = PtxModule.parse("sample", SAMPLE).image();
        assertEquals(0, image[image.length - 1]);
        assertEquals(SAMPLE.length() + 1, image.length);
    }

    @Test
    void shippedModulesDefineEveryKernelWithTheHostParameterList() {
        Map<String, PtxModule> modules = PtxModule.loadAll();
        assertEquals(Kernel.byModule().keySet(), modules.keySet());
        int kernels = modules.values().stream().mapToInt(m -> m.entries().size()).sum();
        assertEquals(Kernel.values().length, kernels, "every shipped entry is used by the host");
    }

    @Test
    void shippedModulesArePtxIsa90ForComputeCapability75() {
        for (PtxModule module : PtxModule.loadAll().values()) {
            assertEquals("9.0", module.isaVersion(), module.name());
            assertEquals("sm_75", module.target(), module.name());
        }
    }

    @Test
    void loadingAnUnknownModuleNamesTheResource() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PtxModule.load("nope"));
        assertTrue(e.getMessage().contains("/org/attn4j/backend/cuda/ptx/nope.ptx"), e.getMessage());
    }
}
