package org.attn4j.backend.nd4j;

import java.util.Locale;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * A rough timing tool behind the numbers in the README, not a test and not a benchmark harness (the JMH benchmarks
 * live in their own module): the per-call time of a tiny attention (by its host loops and forced through the native
 * tiles), the attention rate in GFLOP/s counted as {@code 4·B·H·Lq·Lk·d} (for causal attention too, so its rate
 * shows the time saved by skipped tiles), and a 1024³ matmul in GFLOP/s ({@code 2·n³}). Run with
 * {@code mvn -B -o -q -pl backend-nd4j exec:java -Dexec.mainClass=org.attn4j.backend.nd4j.Throughput
 * -Dexec.classpathScope=test}.
 */
public final class Throughput {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();

    private Throughput() {
    }

    public static void main(String[] args) {
        tinyAttention(20_000);
        for (boolean causal : new boolean[] {false, true}) {
            attention(512, 20, causal);
            attention(2048, 3, causal);
            attention(4096, 1, causal);
        }
        matmul(1024, 10);
    }

    private static Tensor random(Scope scope, long seed, Shape shape) {
        return scope.tensor(Oracle.random(seed, (int) shape.size()), shape, DType.F32);
    }

    private static void tinyAttention(int calls) {
        try (Scope inputs = BACKEND.newScope()) {
            Shape s = Shape.of(1, 1, 6, 16);
            Tensor q = random(inputs, 1, s);
            Tensor k = random(inputs, 2, s);
            Tensor v = random(inputs, 3, s);
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    try (Scope scope = BACKEND.newScope()) {
                        scope.ops().attention(q, k, v, AttentionOptions.defaults());
                    }
                }
                double micros = (System.nanoTime() - start) / 1e3 / calls;
                System.out.printf(Locale.ROOT, "attention 1x1x6x16 F32, own scope per call: %.1f us/call%n", micros);
            }
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < calls / 10; i++) {
                    try (Scope scope = BACKEND.newScope()) {
                        Nd4jAttention.compute((Nd4jScope) scope, ((Nd4jTensor) q).array("q"),
                                ((Nd4jTensor) k).array("k"), ((Nd4jTensor) v).array("v"), null, q, k, v,
                                AttentionOptions.defaults(), Nd4jAttention.LOGITS_PER_BLOCK);
                    }
                }
                double micros = (System.nanoTime() - start) / 1e3 / (calls / 10);
                System.out.printf(Locale.ROOT, "attention 1x1x6x16 F32 forced through the native tiles: %.1f us/call%n",
                        micros);
            }
        }
    }

    private static void attention(int length, int calls, boolean causal) {
        int heads = 12;
        int dim = 64;
        try (Scope inputs = BACKEND.newScope()) {
            Shape s = Shape.of(1, heads, length, dim);
            Tensor q = random(inputs, 4, s);
            Tensor k = random(inputs, 5, s);
            Tensor v = random(inputs, 6, s);
            double flops = 4.0 * heads * length * (double) length * dim;
            AttentionOptions options = AttentionOptions.defaults().withCausal(causal);
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    try (Scope scope = BACKEND.newScope()) {
                        scope.ops().attention(q, k, v, options);
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9 / calls;
                System.out.printf(Locale.ROOT, "attention B=1 H=12 L=%d d=64 F32%s: %.2f ms/call, %.2f GFLOP/s%n",
                        length, causal ? " causal" : "", seconds * 1e3, flops / seconds / 1e9);
            }
        }
    }

    private static void matmul(int n, int calls) {
        try (Scope inputs = BACKEND.newScope()) {
            Tensor a = random(inputs, 7, Shape.of(n, n));
            Tensor b = random(inputs, 8, Shape.of(n, n));
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    try (Scope scope = BACKEND.newScope()) {
                        scope.ops().matmul(a, b);
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9 / calls;
                System.out.printf(Locale.ROOT, "matmul %d^3 F32: %.2f ms/call, %.2f GFLOP/s%n", n, seconds * 1e3,
                        2.0 * n * n * (double) n / seconds / 1e9);
            }
        }
    }
}
