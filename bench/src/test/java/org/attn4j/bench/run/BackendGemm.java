package org.attn4j.bench.run;

import org.attn4j.api.Backends;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The EJML backend's {@code Ops.matmul} as a user calls it: operands already in the backend, a scope opened and
 * closed per call (so the result is allocated per call). In a JVM with {@code jdk.incubator.vector} its F32
 * products run on the backend's SIMD SGEMM.
 */
final class BackendGemm implements GemmPeer {

    @Override
    public Runnable product(int m, int n, int k) {
        Scope inputs = Backends.load("ejml").newScope();
        Tensor a = inputs.tensor(BenchData.uniform((long) m * k, 1), Shape.of(m, k));
        Tensor b = inputs.tensor(BenchData.uniform((long) k * n, 2), Shape.of(k, n));
        return () -> {
            try (Scope call = inputs.backend().newScope()) {
                call.ops().matmul(a, b, false, false);
            }
        };
    }

    @Override
    public Runnable attentionShaped(int heads, int length, int headDim) {
        Scope inputs = Backends.load("ejml").newScope();
        Shape shape = Shape.of(1, heads, length, headDim);
        Tensor q = inputs.tensor(BenchData.uniform(shape.size(), 1), shape);
        Tensor k = inputs.tensor(BenchData.uniform(shape.size(), 2), shape);
        Tensor v = inputs.tensor(BenchData.uniform(shape.size(), 3), shape);
        return () -> {
            try (Scope call = inputs.backend().newScope()) {
                call.ops().matmul(call.ops().matmul(q, k, false, true), v, false, false);
            }
        };
    }
}
