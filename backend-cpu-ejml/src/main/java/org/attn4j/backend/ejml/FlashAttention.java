package org.attn4j.backend.ejml;

import java.util.function.Supplier;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Runs the fused attention kernels over the backend's pool: one task per (batch × head, query block), each with
 * its own scratch space, writing disjoint rows of the output. F32 runs on {@link VectorFlashAttentionF32} when
 * {@link Simd#enabled()} and there are at least a quarter block of query rows, else on
 * {@link FlashAttentionF32}; F64 runs on {@link FlashAttentionF64}. A few F32 query rows per head (a decoding step,
 * a short chunk of a prompt against the cache) run on {@link FlashDecoding} instead, split over the keys.
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
        Object out = HeapScope.allocate(q.dtype(), shape.output());
        compute(plan, q.data(), k.data(), v.data(), out, simd(plan, q.dtype()), parallel);
        return out;
    }

    /**
     * Attention over a packed projection: q, k and v read where they lie in {@code qkv} and the heads written side
     * by side, when the SIMD kernel takes the call; for the other kernels, which read contiguous heads, q, k and v
     * are first copied out and the output back in.
     *
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}, checked
     * @param heads {@code H}
     * @param kvHeads {@code H_kv}
     * @param headDim {@code d}
     * @param additive the additive mask tensor, checked, or null
     * @param options the call's options, without returned weights
     * @param parallel the pool
     * @return the output {@code [B, L, H·d]} as a new array of qkv's dtype
     */
    static Object packed(HeapTensor qkv, int heads, int kvHeads, int headDim, HeapTensor additive,
                         AttentionOptions options, Parallel parallel) {
        int batch = qkv.shape().dim(0);
        int length = qkv.shape().dim(1);
        int width = qkv.shape().dim(2);
        int d = headDim;
        ShapeChecks.AttentionShape shape = new ShapeChecks.AttentionShape(Shape.of(batch, heads), length, length, d,
                d, heads / kvHeads);
        Object out = HeapScope.allocate(qkv.dtype(), Shape.of(batch, length, heads * d));
        AttentionPlan.Rows outRows = new AttentionPlan.Rows(heads, length * heads * d, d, 0, heads * d);
        AttentionPlan plan = new AttentionPlan(shape, options, additive,
                new AttentionPlan.Rows(heads, length * width, d, 0, width),
                new AttentionPlan.Rows(kvHeads, length * width, d, heads * d, width),
                new AttentionPlan.Rows(kvHeads, length * width, d, (heads + kvHeads) * d, width), outRows);
        if (simd(plan, qkv.dtype())) {
            compute(plan, qkv.data(), qkv.data(), qkv.data(), out, true, parallel);
            return out;
        }
        AttentionPlan contiguous = new AttentionPlan(shape, options, additive);
        Object q = gather(qkv.data(), plan.q, batch * heads, length, d);
        Object k = gather(qkv.data(), plan.k, batch * kvHeads, length, d);
        Object v = gather(qkv.data(), plan.v, batch * kvHeads, length, d);
        Object heads0 = HeapScope.allocate(qkv.dtype(), shape.output());
        compute(contiguous, q, k, v, heads0, false, parallel);
        for (int p = 0; p < batch * heads; p++) {
            for (int r = 0; r < length; r++) {
                System.arraycopy(heads0, (p * length + r) * d, out, outRows.base(p) + r * outRows.rowStride(), d);
            }
        }
        for (Object copy : new Object[] {q, k, v, heads0}) {
            ArrayPool.recycle(copy);
        }
        return out;
    }

    /** Copies the rows of one operand into {@code [problems, length, d]}. */
    private static Object gather(Object source, AttentionPlan.Rows rows, int problems, int length, int d) {
        int size = problems * length * d;
        Object out = source instanceof float[] ? ArrayPool.floats(size, false) : ArrayPool.doubles(size, false);
        for (int p = 0; p < problems; p++) {
            for (int r = 0; r < length; r++) {
                System.arraycopy(source, rows.base(p) + r * rows.rowStride(), out, (p * length + r) * d, d);
            }
        }
        return out;
    }

    /** @return whether the SIMD kernel takes the call: F32, the Vector API, a quarter block of query rows at least */
    private static boolean simd(AttentionPlan plan, DType dtype) {
        return dtype == DType.F32 && Simd.enabled() && 4 * plan.queries >= VectorFlashAttentionF32.QUERY_BLOCK
                && VectorFlashAttentionF32.fits(plan) && !FlashDecoding.applies(plan, true);
    }

    /**
     * Runs the kernel for the plan: {@link FlashDecoding} for a few F32 query rows, else
     * {@link VectorFlashAttentionF32} when {@code simd} (the only kernel that reads rows where {@code plan} says),
     * else the scalar kernel of the dtype.
     */
    private static void compute(AttentionPlan plan, Object q, Object k, Object v, Object out, boolean simd,
                                Parallel parallel) {
        boolean f32 = q instanceof float[];
        if (!simd && FlashDecoding.applies(plan, f32)) {
            FlashDecoding.run(plan, (float[]) q, (float[]) k, (float[]) v, (float[]) out, parallel);
            return;
        }
        if (f32 && !simd) {
            Simd.adviseScalar((long) plan.problems * plan.queries * plan.keys * (plan.keyDim + plan.valueDim));
        }
        int block = simd ? VectorFlashAttentionF32.QUERY_BLOCK
                : f32 ? FlashAttentionF32.QUERY_BLOCK : FlashAttentionF64.QUERY_BLOCK;
        int blocks = (plan.queries + block - 1) / block;
        long work = (long) block * plan.keys * (plan.keyDim + plan.valueDim);
        VectorFlashAttentionF32.Packed packed = simd ? VectorFlashAttentionF32.pack(plan, (float[]) k, (float[]) v,
                parallel) : null;
        Supplier<Kernel> kernels = simd
                ? () -> new VectorFlashAttentionF32(plan, (float[]) q, packed, (float[]) out)::block
                : f32 ? () -> new FlashAttentionF32(plan, (float[]) q, (float[]) k, (float[]) v, (float[]) out)::block
                : () -> new FlashAttentionF64(plan, (double[]) q, (double[]) k, (double[]) v, (double[]) out)::block;
        parallel.forRange(plan.problems * blocks, work, (from, to) -> {
            Kernel kernel = kernels.get();
            for (int t = from; t < to; t++) {
                kernel.block(t / blocks, (t % blocks) * block);
            }
        });
        if (packed != null) {
            ArrayPool.recycle(packed.keys());
            ArrayPool.recycle(packed.values());
        }
    }
}
