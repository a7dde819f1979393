package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.api.Test;

/**
 * A backend written before {@code softcap} existed inherits the spi's default, and the kit holds it to the same
 * tolerance as a native kernel. Here an F32-only backend takes {@link ReferenceOps#softcap}: composed through
 * {@code e^(2y)} in F32, that default once failed {@code law_softcap_is_odd_bounded_and_near_identity} (an error of
 * 0.058 at an expected 1.85, with a cap of 10^6).
 */
class InheritedSoftcapTest {

    private static ForwardingBackend f32OnlyWithTheSpiSoftcap() {
        Capabilities f32 = Capabilities.builder("cpu").dtypes(DType.F32).build();
        return TestBackends.onEjml("inherits-softcap", f32, ops -> new ForwardingBackend.ForwardingOps(
                (ForwardingBackend.ForwardingOps) ops) {
            @Override
            public Tensor softcap(Tensor x, double cap) {
                return ReferenceOps.softcap(this, x, cap);
            }
        });
    }

    @Test
    void anF32OnlyBackendThatInheritsTheSpiSoftcapPassesEverySoftcapCase() {
        TckReport report = TckRunner.create(f32OnlyWithTheSpiSoftcap().provider(), TckOptions.defaults()
                .withSettings(TckSettings.defaults().withOnly(List.of("softcap")))).run();

        List<String> ran = report.results().stream().map(CaseResult::testName).toList();
        assertTrue(ran.contains("required_law_softcap_is_odd_bounded_and_near_identity[F32]"), ran.toString());
        assertTrue(ran.stream().anyMatch(n -> n.startsWith("required_softcap_")), ran.toString());
        assertEquals(List.of(), report.failures().stream().map(CaseResult::message).toList(), report.toTable());
    }

    @Test
    void anF32OnlyBackendThatInheritsTheSpiSoftcapPassesSoftcappedAttentionAgainstItsComposition() {
        TckReport report = TckRunner.create(f32OnlyWithTheSpiSoftcap().provider(), TckOptions.defaults()
                .withSettings(TckSettings.defaults().withCases("law_softcapped_attention_equals_its_composition")))
                .run();

        assertEquals(1, report.count(Status.PASSED), report.toTable());
        assertEquals(List.of(), report.failures().stream().map(CaseResult::message).toList(), report.toTable());
    }
}
