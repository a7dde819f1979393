package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.api.Test;

/**
 * A backend written before an op existed inherits the spi's default for it, and the kit holds that default to the
 * same tolerance as a native kernel, in F32 alone too. The backend here declares F32 only and takes attention,
 * packed attention, {@code rmsNorm}, {@code silu}, {@code rope}, {@code writeSlice} and {@code softcap} from the
 * spi's {@code ReferenceAttention} and {@link ReferenceOps} (the other ops are EJML's). Composed through
 * {@code e^(2y)} in F32, the default {@code softcap} once failed {@code law_softcap_is_odd_bounded_and_near_identity}
 * (an error of 0.058 at an expected 1.85, with a cap of 10^6).
 */
class InheritedDefaultsTest {

    private static ForwardingBackend f32OnlyOnTheSpiDefaults() {
        Capabilities f32 = Capabilities.builder("cpu").dtypes(DType.F32)
                .features(Capabilities.Feature.DROPOUT, Capabilities.Feature.ATTENTION_WEIGHTS).build();
        return TestBackends.onEjml("inherits-defaults", f32, ops -> new ForwardingBackend.ForwardingOps(
                (ForwardingBackend.ForwardingOps) ops) {
            @Override
            public Tensor softcap(Tensor x, double cap) {
                return ReferenceOps.softcap(this, x, cap);
            }
        });
    }

    @Test
    void anF32OnlyBackendOnTheSpiDefaultsPassesEveryCaseOfTheOpsItInherits() {
        List<String> inherited = List.of("softcap", "rmsNorm", "silu", "rope", "writeSlice", "attention",
                "packedAttention");
        TckReport report = TckRunner.create(f32OnlyOnTheSpiDefaults().provider(), TckOptions.defaults()
                .withSettings(TckSettings.defaults().withOnly(inherited))).run();

        Set<String> ran = report.results().stream().map(CaseResult::testName).collect(Collectors.toSet());
        assertTrue(ran.contains("required_law_softcap_is_odd_bounded_and_near_identity[F32]"), ran.toString());
        assertTrue(ran.contains("required_law_softcapped_attention_equals_its_composition[F32]"), ran.toString());
        for (String op : inherited) {
            assertTrue(report.results().stream().anyMatch(r -> r.op().equals(op) && r.status() == Status.PASSED),
                    () -> op + " ran no passing case: " + report.toTable());
        }
        assertEquals(List.of(), report.failures().stream().map(CaseResult::message).toList(), report.toTable());
    }
}
