package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Decode-shaped attention through the split and merge launches, and grouped attention with its weights through
 * the materialised launches, interpreted by {@link InterpretingDevice}, against {@link ReferenceAttention} composed
 * on the same backend: the host side of flash-decoding (split sizes, partial buffers, argument order, kv index of
 * each group) on shapes with many splits, which the TCK's small cases do not reach.
 */
class FlashDecodingHostTest {

    @ParameterizedTest(name = "B={0} Hkv={1} group={2} Lq={3} Lk={4} keys={5} window={6} d={7}")
    @CsvSource({
        "1, 2, 1, 1, 700, 700, 0, 64, false, 0",
        "1, 2, 4, 2, 900, 811, 0, 64, true, 0",
        "2, 1, 8, 1, 600, 600, 0, 128, true, 0",
        "1, 2, 4, 4, 1000, 1000, 400, 64, false, 0",
        "1, 1, 4, 3, 520, 500, 0, 256, false, 0.2",
    })
    void splitAndMergeMatchTheComposition(int batch, int kvHeads, int group, int lq, int lk, int keys, int window,
                                          int d, boolean mask, double dropout) {
        CudaBackend backend = new CudaBackend(new InterpretingDevice(), Capabilities.builder("cuda")
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS).build());
        Random random = new Random(17);
        int heads = kvHeads * group;
        AttentionOptions options = AttentionOptions.defaults().withCausal(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(keys).withWindow(window)
                .withDropout(dropout, 3);
        if (mask) {
            int[] lengths = new int[batch];
            for (int b = 0; b < batch; b++) {
                lengths[b] = keys - 37 * b;
            }
            options = options.withMask(Mask.keyPadding(lengths, lk));
        }
        AttentionPlan plan = AttentionPlan.of(batch * heads, group, lq, lk, d, d,
                AttentionPlan.Visible.of(options, lq, lk));
        assertTrue(plan.decode(), "the case exercises the split kernels: " + plan);
        try (Scope s = backend.newScope()) {
            Tensor q = random(s, random, batch, heads, lq, d);
            Tensor k = random(s, random, batch, kvHeads, lk, d);
            Tensor v = random(s, random, batch, kvHeads, lk, d);
            assertClose(ReferenceAttention.compute(s.ops(), q, k, v, options).output(),
                    s.ops().attention(q, k, v, options).output());
        }
    }

    @ParameterizedTest(name = "group={0} Lq={1} Lk={2} keys={3} window={4}")
    @CsvSource({
        "4, 3, 50, 45, 0",
        "2, 20, 70, 70, 16",
        "8, 1, 40, 33, 5",
    })
    void groupedWeightsMatchTheComposition(int group, int lq, int lk, int keys, int window) {
        CudaBackend backend = new CudaBackend(new InterpretingDevice(), Capabilities.builder("cuda")
                .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS).build());
        Random random = new Random(5);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withWeights(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(keys).withWindow(window)
                .withDropout(0.1, 9);
        try (Scope s = backend.newScope()) {
            Tensor q = random(s, random, 2, 2 * group, lq, 16);
            Tensor k = random(s, random, 2, 2, lk, 16);
            Tensor v = random(s, random, 2, 2, lk, 8);
            AttentionResult want = ReferenceAttention.compute(s.ops(), q, k, v, options);
            AttentionResult got = s.ops().attention(q, k, v, options);
            assertClose(want.weights(), got.weights());
            assertClose(want.output(), got.output());
        }
    }

    private static void assertClose(Tensor expected, Tensor actual) {
        assertEquals(expected.shape(), actual.shape());
        float[] want = expected.toFloatArray();
        float[] got = actual.toFloatArray();
        for (int i = 0; i < got.length; i++) {
            double abs = Math.abs(got[i] - want[i]);
            assertTrue(abs <= 2e-5 + 2e-5 * Math.abs(want[i]), "index " + i + ": expected " + want[i]
                    + ", actual " + got[i] + ", abs " + abs + ", rel " + abs / Math.abs(want[i]));
        }
    }

    private static Tensor random(Scope s, Random random, int... dims) {
        Shape shape = Shape.of(dims);
        float[] values = new float[(int) shape.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return s.tensor(values, shape);
    }
}
