package org.attn4j.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import org.attn4j.bench.AttentionWorkload;
import org.attn4j.bench.GemmWorkload;
import org.attn4j.bench.Measurement;
import org.attn4j.bench.Suite;
import org.junit.jupiter.api.Test;

class PlanTest {

    @Test
    void everyAttentionShapeRunsOnOnnxRuntimeAndEveryBackendVariant() {
        List<Job> jobs = Plan.full().jobs(List.of("ejml", "nd4j"), EnumSet.of(Suite.ATTENTION), true);
        assertEquals(4 * 2 * 4, jobs.size(), "4 lengths × causal or not × (ONNX Runtime + ejml + nd4j twice)");
        AttentionWorkload w = AttentionWorkload.selfAttention(12, 2048, 64, true);
        assertEquals(List.of(Measurement.ONNX_RUNTIME, "ejml", "nd4j", "nd4j + system OpenBLAS"),
                jobs.stream().filter(j -> j.workload().equals(w)).map(Job::implementation).toList());
    }

    @Test
    void systemOpenBlasVariantAddsTheJavaCppOptionsToTheFork() {
        Job job = Plan.quick().jobs(List.of("nd4j"), EnumSet.of(Suite.SQUARE_GEMM), true).stream()
                .filter(j -> j.implementation().equals("nd4j + system OpenBLAS")).findFirst().orElseThrow();
        assertEquals(List.of("-Xms512m", "-Xmx4g", "-Dorg.bytedeco.javacpp.pathsFirst=true",
                "-Djava.library.path=/usr/lib/x86_64-linux-gnu/openblas-pthread"), job.jvmArgs());
        assertEquals("nd4j", job.params().get("impl"));
        assertEquals(GemmWorkload.square(128), job.workload());
    }

    @Test
    void longSequenceRunsOnceColdInTwoGigabytesPerBackendVariant() {
        List<Job> jobs = Plan.full().jobs(List.of("ejml", "nd4j"), EnumSet.of(Suite.LONG_SEQUENCE), true);
        assertEquals(3, jobs.size());
        for (Job job : jobs) {
            assertTrue(job.singleShot(), job.toString());
            assertEquals("-Xmx2g", job.jvmArgs().get(0), job.toString());
            assertTrue(job.jvmArgs().stream().noneMatch(a -> a.startsWith("-Xmx4g")), job.toString());
            assertEquals(AttentionWorkload.selfAttention(12, 16384, 64, false), job.workload());
        }
    }

    @Test
    void attentionShapedGemmPassesHeadsLengthAndHeadSize() {
        Job job = Plan.full().jobs(List.of(), EnumSet.of(Suite.ATTENTION_GEMM), false).get(0);
        assertEquals("ejml-mt", job.implementation());
        assertEquals("12", job.params().get("heads"));
        assertEquals("128", job.params().get("length"));
        assertEquals("64", job.params().get("headDim"));
    }
}
