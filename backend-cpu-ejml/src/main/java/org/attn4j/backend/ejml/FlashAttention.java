package org.attn4j.backend.ejml;

import java.util.function.Supplier;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Runs the fused attention kernels over the backend's pool: one task per (batch × head, query block), each with
 * its own scratch space, writing disjoint rows of the output. F32 runs on {@link VectorFlashAttentionF32} when
 * {@link Simd#enabled()} and there are at least a quarter block of query rows, else on
 * {@link FlashAttentionF32}; F64 runs on {@link FlashAttentionF64}. A few F32 query rows against many keys
 * (decoding with a cache) run on {@link FlashDecoding} instead, split over the keys.
 */
final class FlashAttention {

    /** One kernel instance, the scratch space of one thread: computes a query block of one problem. */
    @FunctionalInterface
    private interface Kernel {
        void block(int problem, int rowStart);
    }

    private FlashAttention() {
    }

    /**
     * @param q {@code [..., Lq, d_k]}, checked
     * @param k {@code [..., Lk, d_k]}, checked
     * @param v {@code [..., Lk, d_v]}, checked
     * @param additive the additive mask tensor, checked, or null
     * @param options the call's options
     * @param shape the call's dimensions from {@link ShapeChecks#attention}
     * @param parallel the pool
     * @return the output {@code [..., Lq, d_v]} as a new array of q's dtype
     */
    static Object run(HeapTensor q, HeapTensor k, HeapTensor v, HeapTensor additive, AttentionOptions options,
                      ShapeChecks.AttentionShape shape, Parallel parallel) {
        AttentionPlan plan = new AttentionPlan(shape, options, additive);
        boolean f32 = q.dtype() == DType.F32;
        if (FlashDecoding.applies(plan, f32)) {
            return FlashDecoding.run(plan, q.f32(), k.f32(), v.f32(), parallel);
        }
        boolean simd = f32 && Simd.enabled() && 4 * plan.queries >= VectorFlashAttentionF32.QUERY_BLOCK
                && VectorFlashAttentionF32.fits(plan);
        if (f32 && !simd) {
            Simd.adviseScalar((long) plan.problems * plan.queries * plan.keys * (plan.keyDim + plan.valueDim));
        }
        int block = simd ? VectorFlashAttentionF32.QUERY_BLOCK
                : f32 ? FlashAttentionF32.QUERY_BLOCK : FlashAttentionF64.QUERY_BLOCK;
        int blocks = (plan.queries + block - 1) / block;
        long work = (long) block * plan.keys * (plan.keyDim + plan.valueDim);
        Object out = HeapScope.allocate(q.dtype(), shape.output());
        VectorFlashAttentionF32.Packed packed = simd ? VectorFlashAttentionF32.pack(plan, k.f32(), v.f32(), parallel)
                : null;
        Supplier<Kernel> kernels = simd
                ? () -> new VectorFlashAttentionF32(plan, q.f32(), packed, (float[]) out)::block
                : f32 ? () -> new FlashAttentionF32(plan, q.f32(), k.f32(), v.f32(), (float[]) out)::block
                : () -> new FlashAttentionF64(plan, q.f64(), k.f64(), v.f64(), (double[]) out)::block;
        parallel.forRange(plan.problems * blocks, work, (from, to) -> {
            Kernel kernel = kernels.get();
            for (int t = from; t < to; t++) {
                kernel.block(t / blocks, (t % blocks) * block);
            }
        });
        return out;
    }
}
