package org.attn4j.models.layers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.attn4j.api.Activation;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;

/**
 * The laws of the blocks the rotary encoders share, in F64 on EJML: the gated block is its composition, and an
 * attention that may see only its own key returns the projected value whatever the rotary turn.
 */
class RotaryBlocksTest {
    private static final double TOLERANCE = 1e-12;
    private final Backend backend = Backends.load("ejml");

    private static double[] random(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian() * 0.5;
        }
        return a;
    }

    private static Linear linear(Random r, int in, int out, boolean bias) {
        return new Linear(HostTensor.of(random(r, out * in), out, in), bias ? HostTensor.of(random(r, out), out) : null);
    }

    private static void assertClose(String what, double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= TOLERANCE + TOLERANCE * Math.abs(expected[i]))) {
                fail(String.format("%s: index %d expected %.15g actual %.15g abs error %.3g rel error %.3g", what, i,
                        expected[i], actual[i], abs, abs / Math.abs(expected[i])));
            }
        }
    }

    @Test
    void theGatedBlockIsDownOfTheActivatedGateTimesUpPlusTheResidual() {
        Random r = new Random(11);
        int d = 6;
        int inner = 5;
        Linear gate = linear(r, d, inner, true);
        Linear up = linear(r, d, inner, true);
        Linear down = linear(r, inner, d, true);
        GatedFeedForward block = GatedFeedForward.of(gate, up, down, Activation.SILU);
        try (Scope s = backend.newScope()) {
            Tensor x = s.tensor(random(r, 2 * 3 * d), Shape.of(2, 3, d), DType.F64);
            Tensor residual = s.tensor(random(r, 2 * 3 * d), Shape.of(2, 3, d), DType.F64);
            Tensor g = gate.forward(s, x);
            Tensor expected = s.ops().add(down.forward(s, s.ops().mul(s.ops().silu(g), up.forward(s, x))), residual);
            assertClose("gated block", expected.toDoubleArray(), block.forward(s, x, residual).toDoubleArray());
        }
        assertArrayEquals(gate.stateDict().get("weight").data(), block.gate().get("weight").data());
        assertArrayEquals(up.stateDict().get("bias").data(), block.up().get("bias").data());
    }

    @Test
    void aGateWithABiasBesideAnUpWithoutOneIsRefused() {
        Random r = new Random(12);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GatedFeedForward.of(
                linear(r, 4, 3, true), linear(r, 4, 3, false), linear(r, 3, 4, false), Activation.GELU));
        assertTrue(e.getMessage().contains("the gate has bias and the up projection has no bias"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new GatedFeedForward(linear(r, 4, 6, false),
                linear(r, 2, 4, false), Activation.GELU));
        assertTrue(e.getMessage().contains("gateUp is [6, 4] and down [4, 2]"), e.getMessage());
    }

    @Test
    void aQueryThatSeesOnlyItsOwnKeyGetsItsProjectedValueWhateverTheTurn() {
        Random r = new Random(13);
        int d = 8;
        int length = 5;
        Linear qkv = linear(r, d, 3 * d, true);
        Linear out = linear(r, d, d, true);
        RotarySelfAttention attention = new RotarySelfAttention(qkv, out, 2,
                RotaryEmbedding.of(RopeLayout.INTERLEAVED, 100, 4));
        boolean[] diagonal = new boolean[length * length];
        for (int i = 0; i < length; i++) {
            diagonal[i * length + i] = true;
        }
        try (Scope s = backend.newScope()) {
            Tensor x = s.tensor(random(r, length * d), Shape.of(1, length, d), DType.F64);
            Tensor v = s.ops().split(qkv.forward(s, x), new int[] {2 * d, d}, -1).get(1);
            assertClose("self-only attention", out.forward(s, v).toDoubleArray(), attention.forward(s, x,
                    Mask.of(Shape.of(length, length), diagonal), null, false).output().toDoubleArray());
        }
    }

    @Test
    void projectionsOrARotaryThatDoNotFitTheWidthAreRefused() {
        Random r = new Random(14);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RotarySelfAttention(
                linear(r, 8, 24, false), linear(r, 8, 8, false), 2, RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 10, 6)));
        assertTrue(e.getMessage().contains("turns 6 features, more than the head size 4"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new RotarySelfAttention(linear(r, 8, 16, false),
                linear(r, 8, 8, false), 2, RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 10, 4)));
        assertTrue(e.getMessage().contains("qkv is [16, 8]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new RotarySelfAttention(linear(r, 8, 24, false),
                linear(r, 8, 8, false), 3, RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 10, 2)));
        assertTrue(e.getMessage().contains("heads 3 does not divide the width 8"), e.getMessage());
    }
}
