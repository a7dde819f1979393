package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.attn4j.api.Capabilities.Feature;
import org.junit.jupiter.api.Test;

class CapabilitiesTest {

    @Test
    void aBuilderWithNothingSetDeclaresF32OnOneThreadAndNoFeature() {
        Capabilities c = Capabilities.builder("cpu").build();
        assertEquals("cpu", c.device());
        assertEquals(Set.of(DType.F32), c.dtypes());
        assertEquals(1, c.maxThreads());
        for (Feature f : Feature.values()) {
            assertFalse(c.has(f), f::name);
        }
    }

    @Test
    void declaredFeaturesAndDtypesAreAnsweredByName() {
        Capabilities c = Capabilities.builder("cuda").dtypes(DType.F64, DType.F32)
                .features(Feature.DROPOUT).features(Feature.FUSED_ATTENTION).maxThreads(4).build();
        assertTrue(c.has(Feature.DROPOUT) && c.has(Feature.FUSED_ATTENTION));
        assertFalse(c.has(Feature.ATTENTION_WEIGHTS));
        assertEquals(EnumSet.of(Feature.FUSED_ATTENTION, Feature.DROPOUT), c.features());
        assertTrue(c.supports(DType.F64));
        assertEquals(4, c.maxThreads());
        assertEquals(c, Capabilities.builder("cuda").dtypes(DType.F32, DType.F64)
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT).maxThreads(4).build());
    }

    @Test
    void theSetsHandedOutCannotBeChanged() {
        Capabilities c = Capabilities.builder("cpu").features(Feature.DROPOUT).build();
        assertThrows(UnsupportedOperationException.class, () -> c.features().add(Feature.FUSED_ATTENTION));
        assertThrows(UnsupportedOperationException.class, () -> c.dtypes().add(DType.F64));
    }

    @Test
    void capabilitiesWithoutF32OrThreadsOrDeviceAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Capabilities.builder("cpu").dtypes(DType.F64).build());
        assertTrue(e.getMessage().contains("lacks F32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Capabilities.builder("cpu").maxThreads(0).build());
        assertThrows(IllegalArgumentException.class, () -> Capabilities.builder(" ").build());
    }

    @Test
    void weightTypesDefaultToF32AndI8AndGainF64WithTheF64Dtype() {
        assertEquals(Set.of(WeightType.F32, WeightType.I8), Capabilities.builder("cpu").build().weightTypes());
        Capabilities c = Capabilities.builder("cpu").dtypes(DType.F32, DType.F64)
                .weightTypes(WeightType.BF16, WeightType.F32, WeightType.Q8_0).build();
        assertEquals(EnumSet.of(WeightType.F32, WeightType.F64, WeightType.BF16, WeightType.Q8_0, WeightType.I8),
                c.weightTypes());
        assertTrue(c.supports(WeightType.Q8_0));
        assertFalse(c.supports(WeightType.Q4_0));
    }

    @Test
    void weightTypesWithoutF32OrWithF64ButNoF64DtypeAreRefused() {
        IllegalArgumentException noF32 = assertThrows(IllegalArgumentException.class,
                () -> Capabilities.builder("cpu").weightTypes(WeightType.BF16).build());
        assertTrue(noF32.getMessage().contains("lacks F32"), noF32.getMessage());
        IllegalArgumentException f64 = assertThrows(IllegalArgumentException.class,
                () -> Capabilities.builder("cpu").weightTypes(WeightType.F32, WeightType.F64).build());
        assertTrue(f64.getMessage().contains("F64"), f64.getMessage());
    }
}
