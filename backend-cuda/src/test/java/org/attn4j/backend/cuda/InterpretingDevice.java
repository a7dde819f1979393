package org.attn4j.backend.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import jcuda.driver.CUdeviceptr;
import org.apache.commons.math3.special.Erf;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.Dropout;

/**
 * A {@link Device} whose memory is on the Java heap and whose launches are interpreted in Java, one plain loop per
 * kernel that reads its arguments exactly as the CUDA kernel declares them (shapes, strides, base offsets, flags).
 * It runs the host side of the backend (shape plans, argument lists, masks, offsets, scopes) end to end without a
 * GPU, so that the TCK's golden cases can check it. The kernels' own parallel arithmetic is checked separately, on
 * the CPU emulation of {@code src/test/emulation}.
 */
final class InterpretingDevice implements Device {
    private final Map<CUdeviceptr, ByteBuffer> memory = Collections.synchronizedMap(new IdentityHashMap<>());

    @Override
    public CUdeviceptr alloc(String op, long bytes) {
        CUdeviceptr ptr = new CUdeviceptr();
        memory.put(ptr, ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN));
        return ptr;
    }

    @Override
    public void free(CUdeviceptr ptr) {
        if (memory.remove(ptr) == null) {
            throw new AssertionError("freeing memory that is not live");
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, float[] src) {
        ByteBuffer b = mem(dst);
        for (int i = 0; i < src.length; i++) {
            b.putFloat(4 * i, src[i]);
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, int[] src) {
        ByteBuffer b = mem(dst);
        for (int i = 0; i < src.length; i++) {
            b.putInt(4 * i, src[i]);
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, double[] src) {
        ByteBuffer b = mem(dst);
        for (int i = 0; i < src.length; i++) {
            b.putDouble(8 * i, src[i]);
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, byte[] src) {
        ByteBuffer b = mem(dst);
        for (int i = 0; i < src.length; i++) {
            b.put(i, src[i]);
        }
    }

    @Override
    public void upload(String op, CUdeviceptr dst, long byteOffset, byte[] src, int length) {
        ByteBuffer b = mem(dst);
        for (int i = 0; i < length; i++) {
            b.put(Math.toIntExact(byteOffset + i), src[i]);
        }
    }

    @Override
    public byte[] downloadBytes(String op, CUdeviceptr src, long byteOffset, int length) {
        ByteBuffer b = mem(src);
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = b.get(Math.toIntExact(byteOffset + i));
        }
        return out;
    }

    @Override
    public float[] download(String op, CUdeviceptr src, int n) {
        ByteBuffer b = mem(src);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = b.getFloat(4 * i);
        }
        return out;
    }

    @Override
    public void copy(String op, CUdeviceptr dst, CUdeviceptr src, long bytes) {
        ByteBuffer d = mem(dst);
        ByteBuffer s = mem(src);
        for (int i = 0; i < bytes; i++) {
            d.put(i, s.get(i));
        }
    }

    @Override
    public void zero(String op, CUdeviceptr dst, long n) {
        ByteBuffer d = mem(dst);
        for (int i = 0; i < 4 * n; i++) {
            d.put(i, (byte) 0);
        }
    }

    int liveAllocations() {
        return memory.size();
    }

    @Override
    public void launch(Kernel kernel, LaunchConfig config, KernelArgs args) {
        args.requireMatches(kernel);
        List<Object> a = args.values();
        switch (kernel) {
            case ADD, SUB, MUL, DIV -> binary(kernel, a);
            case SCALE -> {
                float s = (Float) a.get(2);
                map(a, (long) a.get(3), v -> v * s);
            }
            case EXP -> map(a, (long) a.get(2), v -> (float) Math.exp(v));
            case RELU -> map(a, (long) a.get(2), InterpretingDevice::relu);
            case GELU_ERF -> map(a, (long) a.get(2), InterpretingDevice::geluErf);
            case GELU_TANH -> map(a, (long) a.get(2), InterpretingDevice::geluTanh);
            case COPY_STRIDED -> copyStrided(a);
            case DROPOUT -> dropout(a);
            case EMBEDDING -> embedding(a);
            case REDUCE_MAX, REDUCE_SUM, REDUCE_MEAN, REDUCE_VAR -> reduce(kernel, a);
            case SOFTMAX -> softmax(a);
            case LAYER_NORM -> layerNorm(a);
            case GEMM -> gemm(a);
            case FLASH_ATTENTION, FLASH_DECODE -> attention(kernel, config, a);
            case FLASH_DECODE_MERGE -> mergeSplits(a);
            case RMS_NORM -> rmsNorm(a);
            case LINEAR_GEMV_F32, LINEAR_TILED_F32 -> linear(WeightType.F32, a);
            case LINEAR_GEMV_F16, LINEAR_TILED_F16 -> linear(WeightType.F16, a);
            case LINEAR_GEMV_BF16, LINEAR_TILED_BF16 -> linear(WeightType.BF16, a);
            case LINEAR_GEMV_Q8_0, LINEAR_TILED_Q8_0 -> linear(WeightType.Q8_0, a);
            case LINEAR_GEMV_Q4_0, LINEAR_TILED_Q4_0 -> linear(WeightType.Q4_0, a);
            case LINEAR_GEMV_Q4_K, LINEAR_TILED_Q4_K -> linear(WeightType.Q4_K, a);
            case LINEAR_GEMV_Q6_K, LINEAR_TILED_Q6_K -> linear(WeightType.Q6_K, a);
            case GATHER_F32 -> gather(WeightType.F32, a);
            case GATHER_F16 -> gather(WeightType.F16, a);
            case GATHER_BF16 -> gather(WeightType.BF16, a);
            case GATHER_Q8_0 -> gather(WeightType.Q8_0, a);
            case GATHER_Q4_0 -> gather(WeightType.Q4_0, a);
            case GATHER_Q4_K -> gather(WeightType.Q4_K, a);
            case GATHER_Q6_K -> gather(WeightType.Q6_K, a);
            case ROPE -> rope(a);
            case SILU -> map(a, (long) a.get(2), InterpretingDevice::silu);
            case SOFTCAP -> {
                float cap = (Float) a.get(2);
                map(a, (long) a.get(3), v -> cap * (float) Math.tanh(v / cap));
            }
        }
    }

    private interface FloatOp {
        float apply(float v);
    }

    private ByteBuffer mem(Object ptr) {
        ByteBuffer b = memory.get(ptr);
        if (b == null) {
            throw new AssertionError("access to memory that is not live");
        }
        return b;
    }

    private float f(Object ptr, long i) {
        return mem(ptr).getFloat(Math.toIntExact(4 * i));
    }

    private void put(Object ptr, long i, float v) {
        mem(ptr).putFloat(Math.toIntExact(4 * i), v);
    }

    private static long offset(int[] shape, int[] strides, int lead, long flat) {
        long off = 0;
        for (int d = lead - 1; d >= 0; d--) {
            int n = shape[1 + d];
            off += (flat % n) * strides[d];
            flat /= n;
        }
        return off;
    }

    private void map(List<Object> a, long n, FloatOp op) {
        for (long i = 0; i < n; i++) {
            put(a.get(1), i, op.apply(f(a.get(0), i)));
        }
    }

    private void binary(Kernel kernel, List<Object> a) {
        int[] shape = (int[]) a.get(0);
        int[] sa = (int[]) a.get(1);
        int[] sb = (int[]) a.get(2);
        for (long i = 0; i < (long) a.get(6); i++) {
            float x = f(a.get(3), offset(shape, sa, shape[0], i));
            float y = f(a.get(4), offset(shape, sb, shape[0], i));
            put(a.get(5), i, switch (kernel) {
                case ADD -> x + y;
                case SUB -> x - y;
                case MUL -> x * y;
                default -> x / y;
            });
        }
    }

    private void copyStrided(List<Object> a) {
        int[] shape = (int[]) a.get(0);
        for (long i = 0; i < (long) a.get(7); i++) {
            float v = f(a.get(3), (long) a.get(4) + offset(shape, (int[]) a.get(1), shape[0], i));
            put(a.get(5), (long) a.get(6) + offset(shape, (int[]) a.get(2), shape[0], i), v);
        }
    }

    private void dropout(List<Object> a) {
        long seed = (long) a.get(3);
        double p = (double) a.get(4);
        float keep = (float) a.get(5);
        for (long i = 0; i < (long) a.get(2); i++) {
            put(a.get(1), i, Dropout.uniform(seed, i) >= p ? f(a.get(0), i) * keep : 0f);
        }
    }

    private void embedding(List<Object> a) {
        int tokens = (int) a.get(3);
        int d = (int) a.get(4);
        for (int t = 0; t < tokens; t++) {
            int id = mem(a.get(1)).getInt(4 * t);
            for (int c = 0; c < d; c++) {
                put(a.get(2), (long) t * d + c, f(a.get(0), (long) id * d + c));
            }
        }
    }

    private void reduce(Kernel kernel, List<Object> a) {
        int outer = (int) a.get(2);
        int n = (int) a.get(3);
        int inner = (int) a.get(4);
        for (int o = 0; o < outer * inner; o++) {
            long base = (long) (o / inner) * n * inner + o % inner;
            float r;
            if (kernel == Kernel.REDUCE_MAX) {
                r = Float.NEGATIVE_INFINITY;
                for (int k = 0; k < n; k++) {
                    float v = f(a.get(0), base + (long) k * inner);
                    r = Float.isNaN(v) || v > r ? v : r;
                }
            } else {
                float s = 0f;
                for (int k = 0; k < n; k++) {
                    s += f(a.get(0), base + (long) k * inner);
                }
                r = kernel == Kernel.REDUCE_SUM ? s : s / n;
                if (kernel == Kernel.REDUCE_VAR) {
                    float q = 0f;
                    for (int k = 0; k < n; k++) {
                        float dlt = f(a.get(0), base + (long) k * inner) - r;
                        q += dlt * dlt;
                    }
                    r = q / n;
                }
            }
            put(a.get(1), o, r);
        }
    }

    private float maskedLogit(float v, List<Object> a, int[] shape, long r, int j, int i,
                              AttentionPlan.Visible visible) {
        int last = shape[0] - 1;
        if (a.get(8) != null) {
            int[] s = (int[]) a.get(9);
            v += f(a.get(8), offset(shape, s, last, r) + (long) j * s[last]);
        }
        if (a.get(6) != null) {
            int[] s = (int[]) a.get(7);
            if (mem(a.get(6)).get(Math.toIntExact(offset(shape, s, last, r) + (long) j * s[last])) == 0) {
                v = Float.NEGATIVE_INFINITY;
            }
        }
        if (j < visible.first(i) || j >= visible.end(i)) {
            v = Float.NEGATIVE_INFINITY;
        }
        return v;
    }

    private void softmax(List<Object> a) {
        int outer = (int) a.get(2);
        int n = (int) a.get(3);
        int inner = (int) a.get(4);
        int[] shape = (int[]) a.get(5);
        AttentionPlan.Visible visible = new AttentionPlan.Visible((int) a.get(10) != 0, (int) a.get(11),
                (int) a.get(12), (int) a.get(13));
        boolean positional = visible.causal() || visible.window() > 0;
        for (long r = 0; r < (long) outer * inner; r++) {
            long base = (r / inner) * n * inner + r % inner;
            int i = positional ? (int) (r % shape[shape[0] - 1]) : 0;
            float[] l = new float[n];
            float m = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                l[j] = maskedLogit(f(a.get(0), base + (long) j * inner), a, shape, r, j, i, visible);
                m = Float.isNaN(l[j]) || l[j] > m ? l[j] : m;
            }
            float s = 0f;
            for (int j = 0; j < n; j++) {
                s += (float) Math.exp(l[j] - m);
            }
            for (int j = 0; j < n; j++) {
                put(a.get(1), base + (long) j * inner, m == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(l[j] - m) / s);
            }
        }
    }

    /** Row {@code r} of {@code x + residual} ({@code attn4j_sum_at}), in F32. */
    private float[] sumRow(Object x, Object residual, int r, int d) {
        float[] s = new float[d];
        for (int c = 0; c < d; c++) {
            s[c] = residual == null ? f(x, (long) r * d + c) : f(x, (long) r * d + c) + f(residual, (long) r * d + c);
        }
        return s;
    }

    private void layerNorm(List<Object> a) {
        int rows = (int) a.get(5);
        int d = (int) a.get(6);
        float eps = (float) a.get(7);
        for (int r = 0; r < rows; r++) {
            float[] row = sumRow(a.get(0), a.get(1), r, d);
            float shift = row[0];
            float s = 0f;
            for (int c = 0; c < d; c++) {
                s += row[c] - shift;
            }
            float mean = s / d;
            float rstd = inverseRms(row, shift, mean, eps);
            for (int c = 0; c < d; c++) {
                float v = (row[c] - shift - mean) * rstd;
                if (a.get(2) != null) {
                    v *= f(a.get(2), c);
                }
                if (a.get(3) != null) {
                    v += f(a.get(3), c);
                }
                put(a.get(4), (long) r * d + c, v);
            }
        }
    }

    /** {@code attn4j_inverse_rms}: 1 / sqrt(mean((x - shift - mean)^2) + eps), scaled against overflow. */
    private static float inverseRms(float[] row, float shift, float mean, float eps) {
        float amax = 0f;
        for (float x : row) {
            float dlt = Math.abs(x - shift - mean);
            amax = Float.isNaN(dlt) || Float.isNaN(amax) ? Float.NaN : Math.max(amax, dlt);
        }
        float inv = amax > 1f && amax < Float.POSITIVE_INFINITY ? 1f / amax : 1f;
        float q = 0f;
        for (float x : row) {
            float dlt = (x - shift - mean) * inv;
            q += dlt * dlt;
        }
        return (float) (inv / Math.sqrt(q / row.length + eps * inv * inv));
    }

    private void gemm(List<Object> a) {
        int m = (int) a.get(3);
        int n = (int) a.get(4);
        int k = (int) a.get(5);
        boolean ta = (int) a.get(6) != 0;
        boolean tb = (int) a.get(7) != 0;
        float alpha = (float) a.get(8);
        int[] batch = (int[]) a.get(9);
        for (int b = 0; b < (int) a.get(12); b++) {
            long oa = offset(batch, (int[]) a.get(10), batch[0], b);
            long ob = offset(batch, (int[]) a.get(11), batch[0], b);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    float acc = 0f;
                    for (int t = 0; t < k; t++) {
                        float x = f(a.get(0), oa + (ta ? (long) t * m + i : (long) i * k + t));
                        float y = f(a.get(1), ob + (tb ? (long) j * k + t : (long) t * n + j));
                        acc = Math.fma(x, y, acc);
                    }
                    put(a.get(2), (long) b * m * n + (long) i * n + j, alpha * acc);
                }
            }
        }
    }

    private static RowLayout rows(Object packed) {
        int[] r = (int[]) packed;
        return new RowLayout(r[0], r[1], r[2], r[3], r[4]);
    }

    /**
     * Both attention kernels, block by block as the grid divides the work: the fused kernel writes normalised rows
     * where the output's row layout puts them, the split kernel each split's unnormalised rows and (max, sum)
     * statistics, contiguous. Arguments 8 on are the same for both.
     */
    private void attention(Kernel kernel, LaunchConfig config, List<Object> a) {
        boolean partial = kernel == Kernel.FLASH_DECODE;
        int lq = (int) a.get(8);
        int group = (int) a.get(13);
        int bm = 4 * (config.blockX() / 32);
        int rows = group * lq;
        int rowBlocks = (rows + bm - 1) / bm;
        int kvProblems = config.gridX() / rowBlocks;
        AttentionPlan.Visible visible = new AttentionPlan.Visible((int) a.get(21) != 0, (int) a.get(22),
                (int) a.get(23), (int) a.get(10));
        for (int kb = 0; kb < kvProblems; kb++) {
            for (int block = 0; block < rowBlocks; block++) {
                int r0 = block * bm;
                int rLast = Math.min(r0 + bm, rows) - 1;
                boolean oneHead = r0 / lq == rLast / lq;
                int begin = visible.first(oneHead ? r0 % lq : 0) / 32;
                int end = (visible.end(oneHead ? rLast % lq : lq - 1) + 31) / 32;
                for (int split = 0; split < config.gridY(); split++) {
                    int from = partial ? begin + split * (int) a.get(26) : begin;
                    int to = partial ? Math.min(end, from + (int) a.get(26)) : end;
                    for (int r = r0; r <= rLast; r++) {
                        long row = (long) kb * rows + r;
                        long at = (long) split * kvProblems * rows + row;
                        attendRow(a, partial, visible, row, r % lq, Math.min(visible.keys(), 32 * from),
                                Math.min(visible.keys(), 32 * Math.max(from, to)), partial ? at : -1);
                    }
                }
            }
        }
    }

    /**
     * One query row ({@code b * Lq + i}) over keys {@code [from, to)}; with {@code slot >= 0}, the split kernel's
     * slot of the partial output and statistics, else the fused kernel's normalised output.
     */
    private void attendRow(List<Object> a, boolean partial, AttentionPlan.Visible visible, long row, int i, int from,
                           int to, long slot) {
        int lq = (int) a.get(8);
        int lk = (int) a.get(9);
        int dk = (int) a.get(11);
        int dv = (int) a.get(12);
        int b = (int) (row / lq);
        int kb = b / (int) a.get(13);
        RowLayout qRows = rows(a.get(partial ? 5 : 4));
        RowLayout kRows = rows(a.get(partial ? 6 : 5));
        RowLayout vRows = rows(a.get(partial ? 7 : 6));
        float scale = (float) a.get(14);
        float softcap = (float) a.get(15);
        int[] shape = (int[]) a.get(16);
        long seed = (long) a.get(24);
        double p = (double) a.get(25);
        int rank = shape[0];
        float m = Float.NEGATIVE_INFINITY;
        float[] l = new float[to - from];
        for (int j = from; j < to; j++) {
            float logit = Float.NEGATIVE_INFINITY;
            if (j < visible.end(i) && j >= visible.first(i)) {
                float s = 0f;
                for (int t = 0; t < dk; t++) {
                    s = Math.fma(f(a.get(0), qRows.offset(b, i) + t), f(a.get(1), kRows.offset(kb, j) + t), s);
                }
                logit = s * scale;
                if (softcap > 0f) {
                    logit = softcap * (float) Math.tanh(logit / softcap);
                }
                if (a.get(19) != null) {
                    logit += f(a.get(19), maskOffset(shape, (int[]) a.get(20), rank, b, i, j));
                }
                if (a.get(17) != null && mem(a.get(17)).get(Math.toIntExact(
                        maskOffset(shape, (int[]) a.get(18), rank, b, i, j))) == 0) {
                    logit = Float.NEGATIVE_INFINITY;
                }
            }
            l[j - from] = logit;
            m = Float.isNaN(logit) || logit > m ? logit : m;
        }
        float sum = 0f;
        float[] w = new float[l.length];
        for (int j = from; j < to; j++) {
            w[j - from] = l[j - from] == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(l[j - from] - m);
            sum += w[j - from];
            if (p > 0 && l[j - from] != Float.NEGATIVE_INFINITY && Dropout.uniform(seed, row * lk + j) < p) {
                w[j - from] = 0f;
            }
        }
        if (slot >= 0) {
            put(a.get(4), 2 * slot, m);
            put(a.get(4), 2 * slot + 1, sum);
        }
        float keep = slot >= 0 ? 1f : (float) a.get(26);
        long out = slot >= 0 ? slot * dv : rows(a.get(7)).offset(b, i);
        for (int c = 0; c < dv; c++) {
            float o = 0f;
            for (int j = from; j < to; j++) {
                o = Math.fma(w[j - from], f(a.get(2), vRows.offset(kb, j) + c), o);
            }
            put(a.get(3), out + c, slot >= 0 ? o : sum == 0f ? 0f : o / sum * keep);
        }
    }

    private static long maskOffset(int[] shape, int[] strides, int rank, long problem, int i, int j) {
        return offset(shape, strides, rank - 2, problem) + (long) i * strides[rank - 2] + (long) j * strides[rank - 1];
    }

    private void mergeSplits(List<Object> a) {
        RowLayout outRows = rows(a.get(3));
        int rows = (int) a.get(4);
        int lq = (int) a.get(5);
        int dv = (int) a.get(6);
        int splits = (int) a.get(7);
        float keep = (float) a.get(8);
        for (long g = 0; g < rows; g++) {
            float m = Float.NEGATIVE_INFINITY;
            for (int s = 0; s < splits; s++) {
                float ms = f(a.get(1), 2 * (s * (long) rows + g));
                m = Float.isNaN(ms) || ms > m ? ms : m;
            }
            float sum = 0f;
            float[] weight = new float[splits];
            for (int s = 0; s < splits; s++) {
                long at = s * (long) rows + g;
                float ms = f(a.get(1), 2 * at);
                weight[s] = ms == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(ms - m);
                sum += weight[s] * f(a.get(1), 2 * at + 1);
            }
            long out = outRows.offset((int) (g / lq), (int) (g % lq));
            for (int c = 0; c < dv; c++) {
                float o = 0f;
                for (int s = 0; s < splits; s++) {
                    o = Math.fma(weight[s], f(a.get(0), (s * (long) rows + g) * dv + c), o);
                }
                put(a.get(2), out + c, sum == 0f ? 0f : o / sum * keep);
            }
        }
    }

    /**
     * Element {@code (row, c)} of a weight of {@code k} columns in the layout of {@code weights.cu}, as
     * {@code attn4j_w} reads it; the same float arithmetic as {@link WeightType#decode}.
     */
    private float weight(WeightType type, Object values, Object scales, long row, int c, int k) {
        long at = row * k + c;
        ByteBuffer v = mem(values);
        return switch (type) {
            case F32 -> v.getFloat(Math.toIntExact(4 * at));
            case F16 -> half(v.getShort(Math.toIntExact(2 * at)));
            case BF16 -> Float.intBitsToFloat((v.getShort(Math.toIntExact(2 * at)) & 0xffff) << 16);
            case Q8_0 -> v.get(Math.toIntExact(at)) * half(mem(scales).getShort(Math.toIntExact(2 * (at / 32))));
            case Q4_0 -> {
                int i = (int) (at % 32);
                int n = v.get(Math.toIntExact(at / 32 * 16 + i % 16)) & 0xff;
                yield ((i < 16 ? n & 0xf : n >>> 4) - 8) * half(mem(scales).getShort(Math.toIntExact(2 * (at / 32))));
            }
            case Q4_K -> q4k(v, Math.toIntExact(at / 256 * 144), (int) (at % 256));
            case Q6_K -> q6k(v, Math.toIntExact(at / 256 * 210), (int) (at % 256));
            case F64 -> throw new AssertionError("no F64 weights on cuda");
            default -> throw new AssertionError(type + " weights are held as F32 on cuda");
        };
    }

    /** {@code attn4j_q4_k}: number {@code e} of the Q4_K super-block at {@code b}. */
    private static float q4k(ByteBuffer v, int b, int e) {
        float d = half(v.getShort(b));
        float dmin = half(v.getShort(b + 2));
        int s = b + 4;
        int j = e >> 5;
        int sc = j < 4 ? v.get(s + j) & 63 : (v.get(s + j + 4) & 15) | ((v.get(s + j - 4) & 0xff) >> 6) << 4;
        int m = j < 4 ? v.get(s + j + 4) & 63
                : ((v.get(s + j + 4) & 0xff) >> 4) | ((v.get(s + j) & 0xff) >> 6) << 4;
        int q = ((v.get(b + 16 + (e >> 6) * 32 + (e & 31)) & 0xff) >> (4 * (j & 1))) & 15;
        return (d * sc) * q - dmin * m;
    }

    /** {@code attn4j_q6_k}: number {@code e} of the Q6_K super-block at {@code b}. */
    private static float q6k(ByteBuffer v, int b, int e) {
        float d = half(v.getShort(b + 208));
        int h = e >> 7;
        int l = e & 127;
        int lo = ((v.get(b + h * 64 + (l & 63)) & 0xff) >> (4 * (l >> 6))) & 15;
        int hi = ((v.get(b + 128 + h * 32 + (l & 31)) & 0xff) >> (2 * (l >> 5))) & 3;
        return (d * v.get(b + 192 + (e >> 4))) * ((lo | hi << 4) - 32);
    }

    /** IEEE binary16 to float, exactly. */
    private static float half(short bits) {
        int h = bits & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1f;
        int mantissa = h & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float subnormal = mantissa * 0x1p-24f;
            return sign == 0 ? subnormal : -subnormal;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }

    /** Both linear kernels: {@code act(x·W_gᵀ + b_g) (⊙ (x·W_uᵀ + b_u)) + residual}, F32 fused multiply-adds. */
    private void linear(WeightType type, List<Object> a) {
        int m = (int) a.get(6);
        int n = (int) a.get(7);
        int k = (int) a.get(8);
        boolean gated = (int) a.get(9) != 0;
        int activation = (int) a.get(10);
        Object x = a.get(0);
        Object bias = a.get(3);
        Object residual = a.get(4);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float g = 0f;
                float u = 0f;
                for (int t = 0; t < k; t++) {
                    float xv = f(x, (long) i * k + t);
                    g = Math.fma(xv, weight(type, a.get(1), a.get(2), j, t, k), g);
                    if (gated) {
                        u = Math.fma(xv, weight(type, a.get(1), a.get(2), (long) n + j, t, k), u);
                    }
                }
                float v = activate(activation, g + (bias == null ? 0f : f(bias, j)));
                if (gated) {
                    v *= u + (bias == null ? 0f : f(bias, (long) n + j));
                }
                put(a.get(5), (long) i * n + j, residual == null ? v : v + f(residual, (long) i * n + j));
            }
        }
    }

    private void gather(WeightType type, List<Object> a) {
        int tokens = (int) a.get(4);
        int d = (int) a.get(5);
        for (int t = 0; t < tokens; t++) {
            int id = mem(a.get(2)).getInt(4 * t);
            for (int c = 0; c < d; c++) {
                put(a.get(3), (long) t * d + c, weight(type, a.get(0), a.get(1), id, c, d));
            }
        }
    }

    private static float activate(int code, float v) {
        return switch (code) {
            case 0 -> v;
            case 1 -> relu(v);
            case 2 -> geluErf(v);
            case 3 -> geluTanh(v);
            case 4 -> silu(v);
            default -> throw new AssertionError("activation code " + code);
        };
    }

    private static float relu(float v) {
        return v > 0 || Float.isNaN(v) ? v : 0f;
    }

    private static float geluErf(float v) {
        return (float) (0.5 * v * Erf.erfc(-v / Math.sqrt(2)));
    }

    private static float geluTanh(float v) {
        return (float) (v / (1 + Math.exp(-2 * Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))));
    }

    private static float silu(float v) {
        return v / (1f + (float) Math.exp(-v));
    }

    private void rmsNorm(List<Object> a) {
        int rows = (int) a.get(4);
        int d = (int) a.get(5);
        float eps = (float) a.get(6);
        for (int r = 0; r < rows; r++) {
            float[] row = sumRow(a.get(0), a.get(1), r, d);
            float rstd = inverseRms(row, 0f, 0f, eps);
            for (int c = 0; c < d; c++) {
                float v = row[c] * rstd;
                put(a.get(3), (long) r * d + c, a.get(2) == null ? v : v * f(a.get(2), c));
            }
        }
    }

    private void rope(List<Object> a) {
        int outer = (int) a.get(2);
        int rows = (int) a.get(3);
        int d = (int) a.get(4);
        int pairs = (int) a.get(5);
        boolean interleaved = (int) a.get(6) != 0;
        ByteBuffer frequencies = mem(a.get(7));
        double scaling = (double) a.get(8);
        int offset = (int) a.get(9);
        for (int p = 0; p < rows; p++) {
            for (int t = 0; t < pairs; t++) {
                double theta = ((long) offset + p) * frequencies.getDouble(8 * t);
                float c = (float) (Math.cos(theta) * scaling);
                float s = (float) (Math.sin(theta) * scaling);
                int ia = interleaved ? 2 * t : t;
                int ib = interleaved ? 2 * t + 1 : t + pairs;
                for (int o = 0; o < outer; o++) {
                    long row = ((long) o * rows + p) * d;
                    float x = f(a.get(0), row + ia);
                    float y = f(a.get(0), row + ib);
                    put(a.get(1), row + ia, x * c - y * s);
                    put(a.get(1), row + ib, y * c + x * s);
                }
            }
        }
        for (long row = 0; row < (long) outer * rows; row++) {
            for (int j = 2 * pairs; j < d; j++) {
                put(a.get(1), row * d + j, f(a.get(0), row * d + j));
            }
        }
    }
}
