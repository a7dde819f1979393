package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every op on a {@link RecordingDevice}: result shapes, which kernels run, that each launch's arguments match
 * the kernel's PTX parameter list, and that closing the scope frees every allocation. Numbers are not checked
 * here (no GPU); the kernels' numerics are checked by the CPU emulation in {@code src/test/emulation}.
 */
class CudaOpsTest {
    private RecordingDevice device;
    private CudaBackend backend;

    @BeforeEach
    void setUp() {
        device = new RecordingDevice();
        backend = new CudaBackend(device, CudaBackendProvider.CAPABILITIES);
    }

    private static Tensor t(Scope s, int... dims) {
        return s.zeros(Shape.of(dims), DType.F32);
    }

    @Test
    void everyPrimitiveLaunchesMatchingArgumentsAndFreesAllMemoryOnClose() {
        try (Scope s = backend.newScope()) {
            Ops ops = s.ops();
            assertEquals(Shape.of(2, 3, 5), ops.matmul(t(s, 2, 3, 4), t(s, 4, 5)).shape());
            assertEquals(Shape.of(2, 3, 5), ops.matmul(t(s, 1, 4, 3), t(s, 2, 5, 4), true, true).shape());
            assertEquals(Shape.of(2, 3, 4), ops.add(t(s, 2, 3, 4), t(s, 4)).shape());
            assertEquals(Shape.of(2, 3, 4), ops.sub(t(s, 3, 1), t(s, 2, 1, 4)).shape());
            assertEquals(Shape.of(3), ops.mul(t(s, 3), t(s)).shape());
            assertEquals(Shape.of(3), ops.div(t(s, 3), t(s, 3)).shape());
            assertEquals(Shape.of(2, 3), ops.scale(t(s, 2, 3), 0.5).shape());
            assertEquals(Shape.of(2, 3), ops.exp(t(s, 2, 3)).shape());
            assertEquals(Shape.of(2, 1), ops.max(t(s, 2, 3), -1, true).shape());
            assertEquals(Shape.of(3), ops.sum(t(s, 2, 3), 0, false).shape());
            assertEquals(Shape.of(2), ops.mean(t(s, 2, 3), 1, false).shape());
            assertEquals(Shape.of(2), ops.variance(t(s, 2, 3), 1, false).shape());
            assertEquals(Shape.of(2, 3, 4), ops.softmax(t(s, 2, 3, 4), 1).shape());
            assertEquals(Shape.of(2, 8), ops.layerNorm(t(s, 2, 8), t(s, 8), null, 1e-5).shape());
            assertEquals(Shape.of(2, 8), ops.relu(t(s, 2, 8)).shape());
            assertEquals(Shape.of(2, 8), ops.gelu(t(s, 2, 8), GeluApproximation.TANH).shape());
            assertEquals(Shape.of(2, 3, 6), ops.linear(t(s, 2, 3, 4), t(s, 6, 4), t(s, 6)).shape());
            assertEquals(Shape.of(2, 2, 4), ops.embedding(t(s, 10, 4), new int[] {1, 2, 3, 9}, Shape.of(2, 2)).shape());
            assertEquals(Shape.of(6, 4), ops.reshape(t(s, 2, 3, 4), -1, 4).shape());
            assertEquals(Shape.of(4, 2, 3), ops.permute(t(s, 2, 3, 4), 2, 0, 1).shape());
            assertEquals(Shape.of(2, 7), ops.concat(List.of(t(s, 2, 3), t(s, 2, 4)), 1).shape());
            assertEquals(List.of(Shape.of(1, 4), Shape.of(3, 4)),
                    ops.split(t(s, 4, 4), new int[] {1, 3}, 0).stream().map(Tensor::shape).toList());
            assertEquals(Shape.of(2, 3), ops.cast(t(s, 2, 3), DType.F32).shape());
            assertEquals(Shape.of(2, 3), ops.dropout(t(s, 2, 3), 0.5, 7).shape());
            assertEquals(Shape.of(3, 3), ops.additiveMask(Mask.causal(3, 3), DType.F32).shape());
        }
        assertEquals(0, device.liveAllocations(), "every allocation, temporaries included, is freed");
        assertTrue(device.kernels().containsAll(List.of(Kernel.GEMM, Kernel.ADD, Kernel.SUB, Kernel.MUL, Kernel.DIV,
                Kernel.SCALE, Kernel.EXP, Kernel.REDUCE_MAX, Kernel.REDUCE_SUM, Kernel.REDUCE_MEAN, Kernel.REDUCE_VAR,
                Kernel.SOFTMAX, Kernel.LAYER_NORM, Kernel.RELU, Kernel.GELU_TANH, Kernel.EMBEDDING,
                Kernel.COPY_STRIDED, Kernel.DROPOUT)));
    }

    @Test
    void attentionWithoutWeightsIsOneFusedLaunch() {
        try (Scope s = backend.newScope()) {
            AttentionResult r = s.ops().attention(t(s, 2, 4, 100, 64), t(s, 2, 4, 70, 64), t(s, 2, 4, 70, 32),
                    AttentionOptions.defaults().withCausal(true).withMask(Mask.keyPadding(new int[] {70, 3}, 70))
                            .withDropout(0.1, 3));
            assertEquals(Shape.of(2, 4, 100, 32), r.output().shape());
            assertNull(r.weights());
        }
        assertEquals(List.of(Kernel.FLASH_ATTENTION), device.kernels());
        LaunchConfig config = device.launches.get(0).config();
        assertEquals(AttentionPlan.of(8, 100, 70, 64, 32, true).launch(), config);
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void aGroupedDecodeStepSplitsTheKeysAndMergesFreeingItsTemporaries() {
        try (Scope s = backend.newScope()) {
            AttentionResult r = s.ops().attention(t(s, 1, 8, 1, 64), t(s, 1, 2, 4096, 64), t(s, 1, 2, 4096, 64),
                    AttentionOptions.defaults().withCausal(true).withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)
                            .withKeyLength(3000).withMask(Mask.keyPadding(new int[] {2900}, 4096)));
            assertEquals(Shape.of(1, 8, 1, 64), r.output().shape());
        }
        assertEquals(List.of(Kernel.FLASH_DECODE, Kernel.FLASH_DECODE_MERGE), device.kernels());
        AttentionPlan plan = AttentionPlan.of(8, 4, 1, 4096, 64, 64, new AttentionPlan.Visible(true, 2999, 0, 3000));
        assertEquals(plan.launch(), device.launches.get(0).config());
        assertEquals(plan.mergeLaunch(), device.launches.get(1).config());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void groupedWindowedPrefillIsOneFusedLaunch() {
        try (Scope s = backend.newScope()) {
            s.ops().attention(t(s, 2, 8, 100, 64), t(s, 2, 2, 120, 64), t(s, 2, 2, 120, 64),
                    AttentionOptions.defaults().withCausal(true).withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)
                            .withWindow(32).withDropout(0.1, 5));
        }
        assertEquals(List.of(Kernel.FLASH_ATTENTION), device.kernels());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void groupedWindowedAttentionWithWeightsIsOneGemmPerProductAndOneSoftmax() {
        try (Scope s = backend.newScope()) {
            AttentionResult r = s.ops().attention(t(s, 4, 3, 8), t(s, 2, 5, 8), t(s, 2, 5, 8),
                    AttentionOptions.defaults().withWeights(true).withCausal(true)
                            .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withWindow(2));
            assertEquals(Shape.of(4, 3, 5), r.weights().shape());
        }
        assertEquals(List.of(Kernel.GEMM, Kernel.SOFTMAX, Kernel.GEMM), device.kernels());
        assertEquals(Launches.gemm(6, 5, 2), device.launches.get(0).config(), "2 kv heads of 2 x 3 query rows");
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void ropeRmsNormAndSiluAreOneLaunchEach() {
        try (Scope s = backend.newScope()) {
            Ops ops = s.ops();
            assertEquals(Shape.of(2, 3, 5, 8), ops.rope(t(s, 2, 3, 5, 8), RopeLayout.HALF_SPLIT, 1e4, 7).shape());
            assertEquals(Shape.of(2, 5, 8), ops.rope(t(s, 2, 5, 8), RopeLayout.INTERLEAVED, 500, 0).shape());
            assertEquals(Shape.of(3, 16), ops.rmsNorm(t(s, 3, 16), t(s, 16), 1e-6).shape());
            assertEquals(Shape.of(3, 16), ops.rmsNorm(t(s, 3, 16), null, 1e-6).shape());
            assertEquals(Shape.of(4, 2), ops.silu(t(s, 4, 2)).shape());
        }
        assertEquals(List.of(Kernel.ROPE, Kernel.ROPE, Kernel.RMS_NORM, Kernel.RMS_NORM, Kernel.SILU),
                device.kernels());
        assertEquals(Launches.elementwise(5 * 4), device.launches.get(0).config());
        assertEquals(Launches.rows(3, 16), device.launches.get(2).config());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void aPartialScaledRotaryEmbeddingIsOneLaunchOverTheLargerOfPairsAndCopiedFeaturesAndFreesItsFrequencies() {
        RotaryEmbedding partial = RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, 1.0, 0.1, 0.01)
                .withAttentionScaling(1.2);
        try (Scope s = backend.newScope()) {
            assertEquals(Shape.of(2, 3, 5, 16), s.ops().rope(t(s, 2, 3, 5, 16), partial, 9).shape());
            assertEquals(Shape.of(4, 7), s.ops().softcap(t(s, 4, 7), 30.0).shape());
        }
        assertEquals(List.of(Kernel.ROPE, Kernel.SOFTCAP), device.kernels());
        assertEquals(Launches.elementwise(6L * 5 * 10), device.launches.get(0).config(), "6 x 5 rows of 10 copied");
        assertEquals(Launches.elementwise(28), device.launches.get(1).config());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void softCappedAttentionWithWeightsCapsTheLogitsInPlaceBeforeTheMaskedSoftmax() {
        try (Scope s = backend.newScope()) {
            s.ops().attention(t(s, 1, 2, 3, 8), t(s, 1, 2, 5, 8), t(s, 1, 2, 5, 8),
                    AttentionOptions.defaults().withWeights(true).withCausal(true).withLogitSoftcap(50.0));
        }
        assertEquals(List.of(Kernel.GEMM, Kernel.SOFTCAP, Kernel.SOFTMAX, Kernel.GEMM), device.kernels());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void attentionWithWeightsMaterialisesLogitsSoftmaxDropoutAndProduct() {
        try (Scope s = backend.newScope()) {
            Tensor add = t(s, 5, 7);
            AttentionResult r = s.ops().attention(t(s, 3, 5, 8), t(s, 3, 7, 8), t(s, 3, 7, 4),
                    AttentionOptions.defaults().withAdditiveMask(add).withDropout(0.2, 1).withWeights(true));
            assertEquals(Shape.of(3, 5, 4), r.output().shape());
            assertEquals(Shape.of(3, 5, 7), r.weights().shape());
        }
        assertEquals(List.of(Kernel.GEMM, Kernel.SOFTMAX, Kernel.DROPOUT, Kernel.GEMM), device.kernels());
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void attentionRejectsHeadDimsAboveTheKernelLimitNamingBoth() {
        try (Scope s = backend.newScope()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> s.ops().attention(t(s, 1, 4, 300), t(s, 1, 4, 300), t(s, 1, 4, 8), AttentionOptions.defaults()));
            assertTrue(e.getMessage().contains("dk=300, dv=8"), e.getMessage());
        }
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void f64IsRejectedWithTheOpAndTheSupportedDtypes() {
        try (Scope s = backend.newScope()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> s.tensor(new double[] {1, 2}, Shape.of(2)));
            assertEquals("tensor: dtype F64 is not supported by backend cuda (capabilities().dtypes() = [F32])",
                    e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> s.zeros(Shape.of(2), DType.F64));
            assertThrows(IllegalArgumentException.class, () -> s.ops().cast(t(s, 2), DType.F64));
            assertEquals(Shape.of(2), s.tensor(new double[] {1, 2}, Shape.of(2), DType.F32).shape());
        }
    }

    @Test
    void shapeMismatchesAreReportedBeforeAnythingIsAllocated() {
        try (Scope s = backend.newScope()) {
            Tensor a = t(s, 2, 3);
            Tensor b = t(s, 4);
            int before = device.liveAllocations();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.ops().add(a, b));
            assertTrue(e.getMessage().startsWith("add"), e.getMessage());
            assertEquals(before, device.liveAllocations());
        }
    }

    @Test
    void scopesOnManyThreadsShareTheBackendAndFreeEverything() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Shape>> results = new ArrayList<>();
            for (int task = 0; task < 16; task++) {
                results.add(pool.submit(() -> {
                    try (Scope s = backend.newScope()) {
                        Tensor x = t(s, 2, 3, 8, 16);
                        return s.ops().layerNorm(s.ops().attention(x, x, x, AttentionOptions.defaults()).output(),
                                null, null, 1e-5).shape();
                    }
                }));
            }
            for (Future<Shape> r : results) {
                assertEquals(Shape.of(2, 3, 8, 16), r.get());
            }
        } finally {
            pool.shutdown();
        }
        assertEquals(0, device.liveAllocations());
        assertEquals(32, device.launches.size());
    }

    @Test
    void linearPicksTheGemvKernelUpToEightRowsAndTheTiledOneBeyondForEachStorageType() {
        for (WeightType type : List.of(WeightType.F32, WeightType.F16, WeightType.BF16, WeightType.Q8_0,
                WeightType.Q4_0)) {
            device.launches.clear();
            try (Scope s = backend.newScope()) {
                Weight w = s.weight(new float[2 * 40 * 64], Shape.of(2 * 40, 64), type);
                assertEquals(type, w.type());
                Tensor x8 = t(s, 2, 4, 64);
                Tensor x9 = t(s, 9, 64);
                assertEquals(Shape.of(2, 4, 40), s.ops().linear(x8, w, t(s, 80), Epilogue.gated(Activation.SILU))
                        .shape());
                assertEquals(Shape.of(9, 80), s.ops().linear(x9, w, null, Epilogue.none().withResidual(t(s, 9, 80)))
                        .shape());
                assertEquals(Shape.of(3, 64), s.ops().embedding(w, new int[] {0, 79, 5}, Shape.of(3)).shape());
            }
            assertEquals(List.of(WeightKernels.linear(type, true), WeightKernels.linear(type, false),
                    WeightKernels.gather(type)), device.kernels(), type.toString());
            assertEquals(Launches.gemv(40), device.launches.get(0).config());
            assertEquals(Launches.linear(9, 80), device.launches.get(1).config());
            assertEquals(0, device.liveAllocations(), type + ": the weight's values and scales are freed");
        }
    }

    @Test
    void aQuantizedWeightHoldsItsQuantsAndItsScalesApart() {
        try (Scope s = backend.newScope()) {
            assertEquals(40L * 64 + 40 * 2 * 2, s.weight(new float[40 * 64], Shape.of(40, 64), WeightType.Q8_0)
                    .byteSize());
            assertEquals(40L * 32 + 40 * 2 * 2, s.weight(new float[40 * 64], Shape.of(40, 64), WeightType.Q4_0)
                    .byteSize());
            assertEquals(40L * 64 * 2, s.weight(new float[40 * 64], Shape.of(40, 64), WeightType.BF16).byteSize());
            assertEquals(5, device.liveAllocations());
        }
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void packedAttentionIsOneFusedLaunchOverTheProjectionAndTheCompositionWithWeights() {
        try (Scope s = backend.newScope()) {
            AttentionResult r = s.ops().packedAttention(t(s, 2, 50, (8 + 2 * 2) * 16), 8, 2,
                    AttentionOptions.defaults().withMask(Mask.keyPadding(new int[] {50, 30}, 50)));
            assertEquals(Shape.of(2, 50, 8 * 16), r.output().shape());
            assertNull(r.weights());
            assertEquals(List.of(Kernel.FLASH_ATTENTION), device.kernels());
            assertEquals(AttentionPlan.of(16, 4, 50, 50, 16, 16, AttentionPlan.Visible.topLeft(false, 50)).launch(),
                    device.launches.get(0).config());
            device.launches.clear();
            AttentionResult w = s.ops().packedAttention(t(s, 1, 6, 3 * 2 * 8), 2, 2,
                    AttentionOptions.defaults().withWeights(true));
            assertEquals(Shape.of(1, 2, 6, 6), w.weights().shape());
            assertTrue(device.kernels().contains(Kernel.SOFTMAX), device.kernels().toString());
        }
        assertEquals(0, device.liveAllocations());
    }

    @Test
    void fusedNormsAreOneLaunchEach() {
        try (Scope s = backend.newScope()) {
            Ops ops = s.ops();
            assertEquals(Shape.of(3, 16), ops.layerNorm(t(s, 3, 16), t(s, 3, 16), t(s, 16), null, 1e-5).shape());
            assertEquals(Shape.of(3, 16), ops.rmsNorm(t(s, 3, 16), t(s, 3, 16), null, 1e-6).shape());
        }
        assertEquals(List.of(Kernel.LAYER_NORM, Kernel.RMS_NORM), device.kernels());
        assertEquals(0, device.liveAllocations());
    }
}
