package org.attn4j.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.attn4j.bench.AttentionWorkload;
import org.attn4j.bench.GemmWorkload;
import org.attn4j.bench.Measurement;
import org.attn4j.bench.Suite;
import org.junit.jupiter.api.Test;

class PlanTest {
    private static final Plan.NativeOptions ALL = new Plan.NativeOptions(true, true);
    private static final Plan.NativeOptions NONE = new Plan.NativeOptions(false, false);
    private static final String TUNED = "nd4j + system OpenBLAS + AVX-512 kernels";
    private static final String SIMD = "ejml + SIMD kernel";
    private static final String SGEMM = "ejml + SIMD SGEMM";

    @Test
    void everyAttentionShapeRunsOnOnnxRuntimeAndOnEachBackendAsItComesAndTuned() {
        List<Job> jobs = Plan.full().jobs(List.of("ejml", "nd4j"), EnumSet.of(Suite.ATTENTION), ALL);
        assertEquals(4 * 2 * 5, jobs.size(), "4 lengths × causal or not × (ONNX Runtime + ejml twice + nd4j twice)");
        AttentionWorkload w = AttentionWorkload.selfAttention(12, 2048, 64, true);
        assertEquals(List.of(Measurement.ONNX_RUNTIME, "ejml", SIMD, "nd4j", TUNED),
                jobs.stream().filter(j -> j.workload().equals(w)).map(Job::implementation).toList());
    }

    @Test
    void tunedNd4jForksWithTheJavaCppOptionsAndTheOpenBlasCoreType() {
        Job job = Plan.quick().jobs(List.of("nd4j"), EnumSet.of(Suite.ATTENTION), ALL).stream()
                .filter(j -> j.implementation().equals(TUNED)).findFirst().orElseThrow();
        assertEquals(List.of("-Xms512m", "-Xmx4g", "-Dorg.bytedeco.javacpp.pathsFirst=true",
                "-Djava.library.path=/usr/lib/x86_64-linux-gnu/openblas-pthread"), job.jvmArgs());
        assertEquals(Map.of("OPENBLAS_CORETYPE", "SkylakeX"), job.env());
        assertEquals("nd4j", job.params().get("backend"));
    }

    @Test
    void simdEjmlForksWithTheVectorModuleAndPlainEjmlWithout() {
        List<Job> jobs = Plan.quick().jobs(List.of("ejml"), EnumSet.of(Suite.ATTENTION), NONE);
        Job simd = jobs.stream().filter(j -> j.implementation().equals(SIMD)).findFirst().orElseThrow();
        assertEquals(List.of("-Xms512m", "-Xmx4g", "--add-modules", "jdk.incubator.vector"), simd.jvmArgs());
        assertEquals("ejml", simd.params().get("backend"));
        Job plain = jobs.stream().filter(j -> j.implementation().equals("ejml")).findFirst().orElseThrow();
        assertEquals(List.of("-Xms512m", "-Xmx4g"), plain.jvmArgs());
    }

    @Test
    void squareGemmSeparatesTheSystemLibraryFromTheKernelChoice() {
        List<String> labels = Plan.quick().jobs(List.of(), EnumSet.of(Suite.SQUARE_GEMM), ALL).stream()
                .map(Job::implementation).toList();
        assertEquals(List.of("ejml", "ejml-mt", SGEMM, "nd4j", "nd4j + AVX-512 kernels", "nd4j + system OpenBLAS",
                TUNED), labels);
        assertEquals(List.of("ejml", "ejml-mt", SGEMM, "nd4j"), Plan.quick().jobs(List.of(), EnumSet.of(Suite.SQUARE_GEMM),
                NONE).stream().map(Job::implementation).toList());
    }

    @Test
    void longSequenceRunsOnceColdInTwoGigabytesPerBackendVariant() {
        List<Job> jobs = Plan.full().jobs(List.of("ejml", "nd4j"), EnumSet.of(Suite.LONG_SEQUENCE), ALL);
        assertEquals(4, jobs.size());
        for (Job job : jobs) {
            assertTrue(job.singleShot(), job.toString());
            assertEquals("-Xmx2g", job.jvmArgs().get(0), job.toString());
            assertTrue(job.jvmArgs().stream().noneMatch(a -> a.startsWith("-Xmx4g")), job.toString());
            assertEquals(AttentionWorkload.selfAttention(12, 16384, 64, false), job.workload());
        }
    }

    @Test
    void attentionShapedGemmPassesHeadsLengthAndHeadSize() {
        Job job = Plan.full().jobs(List.of(), EnumSet.of(Suite.ATTENTION_GEMM), NONE).get(0);
        assertEquals("ejml-mt", job.implementation());
        assertEquals(Map.of("impl", "ejml-mt", "heads", "12", "length", "128", "headDim", "64"), job.params());
        assertEquals(GemmWorkload.attentionShaped(12, 128, 64), job.workload());
    }

    @Test
    void eachBackendVariantIsComparedWithItsOwnLibrarysGemm() {
        assertEquals(Map.of("ejml", "ejml-mt", SIMD, SGEMM, "nd4j", "nd4j", TUNED, TUNED), ALL.ownGemm());
    }

    @Test
    void bertShapedGemmPassesRowsColumnsAndInnerSizeAndRunsTheSimdSgemmWithTheVectorApi() {
        List<Job> jobs = Plan.full().jobs(List.of(), EnumSet.of(Suite.BERT_GEMM), NONE);
        assertEquals(List.of("ejml-mt", SGEMM, "nd4j"), jobs.stream().limit(3).map(Job::implementation).toList());
        Job sgemm = jobs.get(1);
        assertEquals(Map.of("impl", "ejml-backend", "heads", "0", "length", "4096", "columns", "1536", "inner",
                "384"), sgemm.params());
        assertEquals(GemmWorkload.product(4096, 1536, 384), sgemm.workload());
        assertTrue(sgemm.jvmArgs().contains("jdk.incubator.vector"), sgemm.jvmArgs().toString());
        assertEquals(9, jobs.size());
    }
}
