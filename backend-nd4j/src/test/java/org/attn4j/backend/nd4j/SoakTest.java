package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;

/**
 * Ten thousand attention calls, each in its own scope, must leave native memory where it was. Each call allocates
 * about 20 KB of native tensors and intermediates, so leaking them would grow the process by about 100 MB over the
 * second half of the run alone. Resident memory is compared between the middle and the end of the run, after the
 * allocator, the JIT and the Java heap have settled (the pom fixes and pre-touches the heap).
 */
class SoakTest {
    private static final Nd4jBackend BACKEND = (Nd4jBackend) new Nd4jBackendProvider().create();
    private static final int CALLS = 10_000;
    private static final int DIM = 16;
    private static final int SEQ = 16;
    private static final int HEADS = 2;
    private static final long MB = 1 << 20;

    private static float[] floats(long seed, int n) {
        double[] d = Oracle.random(seed, n);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }


    private static void call(float[] q, float[] k, float[] v, int i) {
        try (Scope scope = BACKEND.newScope()) {
            Tensor qt = scope.tensor(q, Shape.of(1, HEADS, SEQ, DIM));
            Tensor kt = scope.tensor(k, Shape.of(1, HEADS, SEQ, DIM));
            Tensor vt = scope.tensor(v, Shape.of(1, HEADS, SEQ, DIM));
            AttentionOptions options = AttentionOptions.defaults().withCausal(i % 2 == 0)
                    .withMask(Mask.keyPadding(new int[] {1 + i % SEQ}, SEQ)).withDropout(0.1, i).withWeights(true);
            AttentionResult r = scope.ops().attention(qt, kt, vt, options);
            assertTrue(Float.isFinite(r.output().toFloatArray()[0]), "call " + i);
        }
    }

    @Test
    void tenThousandScopedAttentionCallsKeepNativeMemoryFlat() {
        float[] q = floats(41, HEADS * SEQ * DIM);
        float[] k = floats(42, HEADS * SEQ * DIM);
        float[] v = floats(43, HEADS * SEQ * DIM);
        long liveBefore = BACKEND.liveBytes();
        long javacppBefore = Pointer.totalBytes();
        long residentMiddle = 0;
        for (int i = 0; i < CALLS; i++) {
            if (i == CALLS / 2) {
                residentMiddle = Pointer.physicalBytes();
            }
            call(q, k, v, i);
        }
        long residentGrowth = Pointer.physicalBytes() - residentMiddle;
        long javacppGrowth = Pointer.totalBytes() - javacppBefore;
        System.out.printf("soak: %d calls; resident growth over the second half %.1f MB; JavaCPP totalBytes growth"
                + " %.2f MB; attn4j live native bytes %d -> %d%n", CALLS, residentGrowth / (double) MB,
                javacppGrowth / (double) MB, liveBefore, BACKEND.liveBytes());
        assertEquals(liveBefore, BACKEND.liveBytes(), "native bytes held by open tensors");
        assertTrue(residentGrowth < 32 * MB, "resident memory grew by " + residentGrowth / MB
                + " MB over the second half");
        assertTrue(javacppGrowth < 16 * MB, "JavaCPP's tracked native memory grew by " + javacppGrowth / MB + " MB");
    }
}
