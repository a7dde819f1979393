package org.attn4j.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractOps;
import org.attn4j.api.spi.AbstractWeight;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.VisibleKeys;

/**
 * Every op of {@link Ops} as launches of this module's kernels; results are new contiguous F32 tensors of the
 * scope. {@link AbstractOps} validates each call before anything touches the device. Attention without
 * returned weights is one launch of the fused kernel, or for a few query rows against many keys the
 * flash-decoding pair (split, then merge); with weights it runs GEMM, masked softmax, dropout and GEMM, since
 * the weights must then be materialised anyway. RMS norm, SiLU, rotary embeddings and soft-capping have kernels
 * of their own.
 */
final class CudaOps extends AbstractOps<CudaTensor> {
    private static final int[] NONE = new int[0];

    private final CudaScope scope;
    private final Device device;

    CudaOps(CudaScope scope, Device device) {
        super(scope, CudaTensor.class);
        this.scope = scope;
        this.device = device;
    }

    @Override
    protected Tensor computeMatmul(CudaTensor x, CudaTensor y, boolean transposeA, boolean transposeB, Shape out) {
        CudaTensor c = scope.allocate("matmul", out);
        gemm("matmul", x.data(), y.data(), c.data(), OpPlans.gemm(x.shape(), y.shape(), transposeA, transposeB,
                out), transposeA, transposeB, 1.0f);
        return c;
    }

    @Override
    protected Tensor computeBinary(Binary kind, CudaTensor x, CudaTensor y, Shape out) {
        Kernel kernel = switch (kind) {
            case ADD -> Kernel.ADD;
            case SUB -> Kernel.SUB;
            case MUL -> Kernel.MUL;
            case DIV -> Kernel.DIV;
        };
        String op = kind.op();
        StridedLayout.Walk walk = OpPlans.binary(op, x.shape(), y.shape(), out);
        CudaTensor r = scope.allocate(op, out);
        device.launch(kernel, Launches.elementwise(r.size()), new KernelArgs(op).shape(walk.dims())
                .strides(walk.strides()[0]).strides(walk.strides()[1]).pointer(x.data()).pointer(y.data())
                .pointer(r.data()).i64(r.size()));
        return r;
    }

    @Override
    protected Tensor computeScale(CudaTensor t, double factor) {
        CudaTensor r = scope.allocate("scale", t.shape());
        device.launch(Kernel.SCALE, Launches.elementwise(t.size()),
                new KernelArgs("scale").pointer(t.data()).pointer(r.data()).f32((float) factor).i64(t.size()));
        return r;
    }

    @Override
    protected Tensor computeExp(CudaTensor x) {
        return unary("exp", Kernel.EXP, x);
    }

    @Override
    protected Tensor computeReduce(Reduction kind, CudaTensor t, int axis, boolean keepDims, Shape out) {
        Kernel kernel = switch (kind) {
            case MAX -> Kernel.REDUCE_MAX;
            case SUM -> Kernel.REDUCE_SUM;
            case MEAN -> Kernel.REDUCE_MEAN;
            case VARIANCE -> Kernel.REDUCE_VAR;
        };
        String op = kind.op();
        OpPlans.AxisView view = OpPlans.axis(t.shape(), axis);
        CudaTensor r = scope.allocate(op, out);
        device.launch(kernel, Launches.reduction((long) view.outer() * view.inner()), new KernelArgs(op)
                .pointer(t.data()).pointer(r.data()).i32(view.outer()).i32(view.n()).i32(view.inner()));
        return r;
    }

    @Override
    protected Tensor computeSoftmax(CudaTensor t, int axis) {
        OpPlans.AxisView view = OpPlans.axis(t.shape(), axis);
        CudaTensor r = scope.allocate("softmax", t.shape());
        softmax("softmax", t.data(), r.data(), view, NONE, null, NONE, null, NONE,
                AttentionPlan.Visible.topLeft(false, view.n()));
        return r;
    }

    @Override
    protected Tensor computeLayerNorm(CudaTensor t, CudaTensor g, CudaTensor b, double eps) {
        return computeLayerNorm(t, null, g, b, eps);
    }

    /** The residual is added as the kernel reads each row: one launch, no intermediate sum. */
    @Override
    protected Tensor computeLayerNorm(CudaTensor t, CudaTensor residual, CudaTensor g, CudaTensor b, double eps) {
        int d = t.shape().dim(-1);
        int rows = t.size() / d;
        CudaTensor r = scope.allocate("layerNorm", t.shape());
        device.launch(Kernel.LAYER_NORM, Launches.rows(rows, d), new KernelArgs("layerNorm").pointer(t.data())
                .pointer(residual == null ? null : residual.data()).pointer(g == null ? null : g.data())
                .pointer(b == null ? null : b.data()).pointer(r.data()).i32(rows).i32(d).f32((float) eps));
        return r;
    }

    @Override
    protected Tensor computeRmsNorm(CudaTensor x, CudaTensor weight, double eps) {
        return computeRmsNorm(x, null, weight, eps);
    }

    /** The residual is added as the kernel reads each row: one launch, no intermediate sum. */
    @Override
    protected Tensor computeRmsNorm(CudaTensor x, CudaTensor residual, CudaTensor weight, double eps) {
        int d = x.shape().dim(-1);
        int rows = x.size() / d;
        CudaTensor r = scope.allocate("rmsNorm", x.shape());
        device.launch(Kernel.RMS_NORM, Launches.rows(rows, d), new KernelArgs("rmsNorm").pointer(x.data())
                .pointer(residual == null ? null : residual.data()).pointer(weight == null ? null : weight.data())
                .pointer(r.data()).i32(rows).i32(d).f32((float) eps));
        return r;
    }

    @Override
    protected Tensor computeSilu(CudaTensor x) {
        return unary("silu", Kernel.SILU, x);
    }

    /** One launch; the inverse frequencies go up as doubles for the call, a few hundred bytes. */
    @Override
    protected Tensor computeRope(CudaTensor x, RotaryEmbedding rotary, int offset) {
        Shape shape = x.shape();
        int rows = shape.dim(-2);
        int d = shape.dim(-1);
        int pairs = rotary.pairs();
        int outer = x.size() / (rows * d);
        CudaTensor r = scope.allocate("rope", shape);
        CUdeviceptr frequencies = device.alloc("rope", (long) pairs * Sizeof.DOUBLE);
        try {
            device.upload("rope", frequencies, rotary.inverseFrequencies());
            long work = Math.max((long) rows * pairs, (long) outer * rows * (d - 2 * pairs));
            device.launch(Kernel.ROPE, Launches.elementwise(work), new KernelArgs("rope").pointer(x.data())
                    .pointer(r.data()).i32(outer).i32(rows).i32(d).i32(pairs)
                    .i32(rotary.layout() == RopeLayout.INTERLEAVED ? 1 : 0).pointer(frequencies)
                    .f64(rotary.attentionScaling()).i32(offset));
        } finally {
            device.free(frequencies);
        }
        return r;
    }

    @Override
    protected Tensor computeSoftcap(CudaTensor x, double cap) {
        CudaTensor r = scope.allocate("softcap", x.shape());
        softcap("softcap", x.data(), r.data(), x.size(), cap);
        return r;
    }

    @Override
    protected Tensor computeRelu(CudaTensor x) {
        return unary("relu", Kernel.RELU, x);
    }

    @Override
    protected Tensor computeGelu(CudaTensor x, GeluApproximation approximation) {
        return unary("gelu", approximation == GeluApproximation.TANH ? Kernel.GELU_TANH : Kernel.GELU_ERF, x);
    }

    /**
     * The F32 kernels of {@code weights.cu} over the tensor, which lies as an F32 weight does: the same launches as
     * {@code linear} over a bound F32 weight, so that the fused op and its composition sum in the same order.
     */
    @Override
    protected Tensor computeLinear(CudaTensor t, CudaTensor w, CudaTensor b, Shape out) {
        return linear(t, WeightType.F32, w.shape(), w.data(), null, b, Epilogue.none(), null, out);
    }

    /**
     * One launch of {@code weights.cu} for the weight's storage type: the GEMV kernel for at most
     * {@link Launches#GEMV_MAX_ROWS} input rows (a decoding step), the tiled one beyond; bias, activation, gate and
     * residual are applied as each output is stored.
     */
    @Override
    protected Tensor computeLinear(CudaTensor x, AbstractWeight weight, CudaTensor bias, Epilogue epilogue,
                                   CudaTensor residual, Shape out) {
        CudaWeight w = (CudaWeight) weight;
        return linear(x, w.held(), w.shape(), w.data(), w.scales(), bias, epilogue, residual, out);
    }

    private Tensor linear(CudaTensor x, WeightType type, Shape weight, CUdeviceptr values, CUdeviceptr scales,
                          CudaTensor bias, Epilogue epilogue, CudaTensor residual, Shape out) {
        int in = weight.dim(1);
        int rows = x.size() / in;
        int n = out.dim(-1);
        boolean gemv = rows <= Launches.GEMV_MAX_ROWS;
        CudaTensor r = scope.allocate("linear", out);
        device.launch(WeightKernels.linear(type, gemv), gemv ? Launches.gemv(n) : Launches.linear(rows, n),
                new KernelArgs("linear").pointer(x.data()).pointer(values).pointer(scales)
                        .pointer(bias == null ? null : bias.data()).pointer(residual == null ? null : residual.data())
                        .pointer(r.data()).i32(rows).i32(n).i32(in).i32(epilogue.gated() ? 1 : 0)
                        .i32(WeightKernels.activation(epilogue.activation())));
        return r;
    }

    /** Rows of the table converted from its storage type as they are gathered. */
    @Override
    protected Tensor computeEmbedding(AbstractWeight table, int[] ids, Shape idsShape, Shape out) {
        CudaWeight w = (CudaWeight) table;
        int d = w.shape().dim(1);
        CudaTensor r = scope.allocate("embedding", out);
        CUdeviceptr deviceIds = device.alloc("embedding", (long) ids.length * Sizeof.INT);
        try {
            device.upload("embedding", deviceIds, ids);
            device.launch(WeightKernels.gather(w.held()), Launches.elementwise((long) ids.length * d),
                    new KernelArgs("embedding").pointer(w.data()).pointer(w.scales()).pointer(deviceIds)
                            .pointer(r.data()).i32(ids.length).i32(d));
        } finally {
            device.free(deviceIds);
        }
        return r;
    }

    @Override
    protected Tensor computeEmbedding(CudaTensor w, int[] ids, Shape out) {
        int d = w.shape().dim(1);
        CudaTensor r = scope.allocate("embedding", out);
        CUdeviceptr deviceIds = device.alloc("embedding", (long) ids.length * Sizeof.INT);
        try {
            device.upload("embedding", deviceIds, ids);
            device.launch(Kernel.EMBEDDING, Launches.elementwise((long) ids.length * d), new KernelArgs("embedding")
                    .pointer(w.data()).pointer(deviceIds).pointer(r.data()).i32(ids.length).i32(d));
        } finally {
            device.free(deviceIds);
        }
        return r;
    }

    @Override
    protected Tensor computeReshape(CudaTensor t, Shape out) {
        CudaTensor r = scope.allocate("reshape", out);
        device.copy("reshape", r.data(), t.data(), (long) t.size() * Sizeof.FLOAT);
        return r;
    }

    @Override
    protected Tensor computePermute(CudaTensor t, int[] axes, Shape out) {
        CudaTensor r = scope.allocate("permute", out);
        copyStrided("permute", OpPlans.permute(t.shape(), axes), 0, 1, t.data(), 0, r.data(), 0, t.size());
        return r;
    }

    @Override
    protected Tensor computeConcat(List<CudaTensor> ts, int a, Shape out) {
        CudaTensor r = scope.allocate("concat", out);
        long offset = 0;
        for (CudaTensor t : ts) {
            copyStrided("concat", OpPlans.slab(t.shape(), out), 0, 1, t.data(), 0, r.data(), offset * out.stride(a),
                    t.size());
            offset += t.shape().dim(a);
        }
        return r;
    }

    /** Writes in place, with the copy kernel of {@link #concat}: the slab lands in the target's memory. */
    @Override
    protected Tensor computeWriteSlice(CudaTensor target, CudaTensor source, int axis, int offset) {
        copyStrided("writeSlice", OpPlans.slab(source.shape(), target.shape()), 0, 1, source.data(), 0,
                target.data(), (long) offset * target.shape().stride(axis), source.size());
        return target;
    }

    @Override
    protected List<Tensor> computeSplit(CudaTensor t, int a, List<Shape> pieces) {
        Shape x = t.shape();
        List<Tensor> out = new ArrayList<>();
        long offset = 0;
        for (Shape piece : pieces) {
            CudaTensor r = scope.allocate("split", piece);
            copyStrided("split", OpPlans.slab(piece, x), 1, 0, t.data(), offset * x.stride(a),
                    r.data(), 0, r.size());
            offset += piece.dim(a);
            out.add(r);
        }
        return out;
    }

    @Override
    protected Tensor computeCast(CudaTensor t, DType dtype) {
        if (dtype != DType.F32) {
            throw CudaScope.unsupported("cast", dtype);
        }
        CudaTensor r = scope.allocate("cast", t.shape());
        device.copy("cast", r.data(), t.data(), (long) t.size() * Sizeof.FLOAT);
        return r;
    }

    @Override
    protected Tensor computeDropout(CudaTensor t, double p, long seed) {
        CudaTensor r = scope.allocate("dropout", t.shape());
        dropout("dropout", t.data(), r.data(), t.size(), p, seed);
        return r;
    }

    @Override
    protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
        if (dtype != DType.F32) {
            throw CudaScope.unsupported("additiveMask", dtype);
        }
        boolean[] allowed = mask.toArray();
        float[] values = new float[allowed.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = allowed[i] ? 0.0f : Float.NEGATIVE_INFINITY;
        }
        return scope.tensor(values, mask.shape());
    }

    /**
     * Fused attention, flash-decoding for a few query rows ({@link AttentionPlan#decode()}), or the materialised
     * path when the weights are requested; see the class comment. Every path takes grouped queries, causal
     * alignment, a sliding window and a key length itself.
     */
    @Override
    protected AttentionResult computeAttention(CudaTensor tq, CudaTensor tk, CudaTensor tv, CudaTensor add,
                                               AttentionOptions options, ShapeChecks.AttentionShape s) {
        AttentionOptions o = VisibleKeys.simplified(options, s);
        if (o.returnWeights()) {
            Mask mask = o.mask();
            OpPlans.MaskLayout layout = OpPlans.masks(s.batch(), s.queries(), s.keys(),
                    mask == null ? null : mask.shape(), add == null ? null : add.shape());
            CUdeviceptr maskBytes = mask == null ? null : uploadMask(mask);
            try {
                return materialised(tq, tk, tv, s, o, layout, maskBytes, add, (float) o.scaleFor(s.keyDim()));
            } finally {
                if (maskBytes != null) {
                    device.free(maskBytes);
                }
            }
        }
        int kvProblems = s.problems() / s.groupSize();
        CudaTensor out = scope.allocate("attention", s.output());
        fused("attention", s, o, add, new Operands(tq.data(), tk.data(), tv.data(), out.data(),
                RowLayout.contiguous(s.problems(), s.queries(), s.keyDim()),
                RowLayout.contiguous(kvProblems, s.keys(), s.keyDim()),
                RowLayout.contiguous(kvProblems, s.keys(), s.valueDim()),
                RowLayout.contiguous(s.problems(), s.queries(), s.valueDim())));
        return new AttentionResult(out, null);
    }

    /**
     * Where q, k, v and the output lie: a pointer and the layout of each operand's rows.
     */
    private record Operands(CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr out, RowLayout qRows,
                            RowLayout kRows, RowLayout vRows, RowLayout outRows) {
    }

    /**
     * The fused kernel, or for a few query rows the flash-decoding pair ({@link AttentionPlan#decode()}), over
     * operands wherever they lie; options already {@linkplain VisibleKeys#simplified simplified}, no weights asked.
     */
    private void fused(String op, ShapeChecks.AttentionShape s, AttentionOptions o, CudaTensor add, Operands operands) {
        Mask mask = o.mask();
        OpPlans.MaskLayout layout = OpPlans.masks(s.batch(), s.queries(), s.keys(),
                mask == null ? null : mask.shape(), add == null ? null : add.shape());
        float scale = (float) o.scaleFor(s.keyDim());
        AttentionPlan plan = AttentionPlan.of(s.problems(), s.groupSize(), s.queries(), s.keys(), s.keyDim(),
                s.valueDim(), AttentionPlan.Visible.of(o, s.queries(), s.keys()));
        float keep = (float) Dropout.survivorScale(o.dropoutP());
        CUdeviceptr maskBytes = mask == null ? null : uploadMask(mask);
        try {
            if (plan.decode()) {
                flashDecode(op, plan, operands, scale, layout, maskBytes, add, o, keep);
            } else {
                device.launch(Kernel.FLASH_ATTENTION, plan.launch(), attentionArgs(new KernelArgs(op)
                        .pointer(operands.q()).pointer(operands.k()).pointer(operands.v()).pointer(operands.out())
                        .rows(operands.qRows()).rows(operands.kRows()).rows(operands.vRows())
                        .rows(operands.outRows()), plan, scale, layout, maskBytes, add, o).f32(keep));
            }
        } finally {
            if (maskBytes != null) {
                device.free(maskBytes);
            }
        }
    }

    /** The split launch into temporaries of {@link AttentionPlan#partialFloats()} and statistics, then the merge. */
    private void flashDecode(String op, AttentionPlan plan, Operands operands, float scale, OpPlans.MaskLayout layout,
                             CUdeviceptr maskBytes, CudaTensor add, AttentionOptions options, float keep) {
        CUdeviceptr partial = device.alloc(op, plan.partialFloats() * Sizeof.FLOAT);
        try {
            CUdeviceptr stats = device.alloc(op, plan.statsFloats() * Sizeof.FLOAT);
            try {
                device.launch(Kernel.FLASH_DECODE, plan.launch(), attentionArgs(new KernelArgs(op)
                        .pointer(operands.q()).pointer(operands.k()).pointer(operands.v()).pointer(partial)
                        .pointer(stats).rows(operands.qRows()).rows(operands.kRows()).rows(operands.vRows()), plan,
                        scale, layout, maskBytes, add, options).i32(plan.splitTiles()));
                device.launch(Kernel.FLASH_DECODE_MERGE, plan.mergeLaunch(), new KernelArgs(op)
                        .pointer(partial).pointer(stats).pointer(operands.out()).rows(operands.outRows())
                        .i32(plan.bh() * plan.lq()).i32(plan.lq()).i32(plan.dv()).i32(plan.splits()).f32(keep));
            } finally {
                device.free(stats);
            }
        } finally {
            device.free(partial);
        }
    }

    /**
     * The fused kernel reads each head where it lies in the packed projection and writes it at its columns of the
     * output ({@link RowLayout#packed}): no split, permute or copy. With returned weights, the composition.
     */
    @Override
    protected AttentionResult computePackedAttention(CudaTensor qkv, int heads, int kvHeads, int headDim,
                                                     CudaTensor additiveMask, AttentionOptions options) {
        if (options.returnWeights()) {
            return super.computePackedAttention(qkv, heads, kvHeads, headDim, additiveMask, options);
        }
        int b = qkv.shape().dim(0);
        int l = qkv.shape().dim(1);
        int width = qkv.shape().dim(2);
        ShapeChecks.AttentionShape s = new ShapeChecks.AttentionShape(Shape.of(b, heads), l, l, headDim, headDim,
                heads / kvHeads);
        CudaTensor out = scope.allocate("packedAttention", Shape.of(b, l, heads * headDim));
        fused("packedAttention", s, VisibleKeys.simplified(options, s), additiveMask, new Operands(qkv.data(),
                qkv.data(), qkv.data(), out.data(), RowLayout.packed(0, heads, l, headDim, width),
                RowLayout.packed(heads * headDim, kvHeads, l, headDim, width),
                RowLayout.packed((heads + kvHeads) * headDim, kvHeads, l, headDim, width),
                RowLayout.packed(0, heads, l, headDim, heads * headDim)));
        return new AttentionResult(out, null);
    }

    /** Appends the arguments both attention kernels share, from {@code lq} to {@code dropoutP}. */
    private static KernelArgs attentionArgs(KernelArgs args, AttentionPlan plan, float scale,
                                            OpPlans.MaskLayout layout, CUdeviceptr maskBytes, CudaTensor add,
                                            AttentionOptions options) {
        AttentionPlan.Visible visible = plan.visible();
        return args.i32(plan.lq()).i32(plan.lk()).i32(visible.keys()).i32(plan.dk()).i32(plan.dv())
                .i32(plan.group()).f32(scale).f32((float) options.logitSoftcap()).shape(layout.dims())
                .pointer(maskBytes).strides(layout.maskStrides())
                .pointer(add == null ? null : add.data()).strides(layout.addStrides()).i32(visible.causal() ? 1 : 0)
                .i32(visible.shift()).i32(visible.window()).i64(options.dropoutSeed()).f64(options.dropoutP());
    }

    /**
     * Logits by GEMM, soft-capped in place if asked, masked softmax (with the visible keys), dropout, and the
     * product with v. A kv head's group
     * of query heads is one GEMM batch of {@code group * Lq} rows, whose logits are those heads' weight rows.
     */
    private AttentionResult materialised(CudaTensor q, CudaTensor k, CudaTensor v, ShapeChecks.AttentionShape s,
                                         AttentionOptions options, OpPlans.MaskLayout layout, CUdeviceptr maskBytes,
                                         CudaTensor add, float scale) {
        int kvProblems = s.problems() / s.groupSize();
        int rows = s.groupSize() * s.queries();
        int lk = s.keys();
        int[] batch = {kvProblems};
        CudaTensor weights = scope.allocate("attention", s.weights());
        long count = weights.shape().size();
        CUdeviceptr logits = device.alloc("attention", count * Sizeof.FLOAT);
        CUdeviceptr probabilities = options.dropoutP() > 0 ? device.alloc("attention", count * Sizeof.FLOAT) : null;
        try {
            gemm("attention", q.data(), k.data(), logits,
                    new OpPlans.Gemm(rows, lk, s.keyDim(), kvProblems, batch, new int[] {rows * s.keyDim()},
                            new int[] {lk * s.keyDim()}), false, true, scale);
            if (options.logitSoftcap() > 0) {
                softcap("attention", logits, logits, (int) count, options.logitSoftcap());
            }
            softmax("attention", logits, probabilities == null ? weights.data() : probabilities,
                    new OpPlans.AxisView(s.problems() * s.queries(), lk, 1), layout.dims(), maskBytes,
                    layout.maskStrides(), add == null ? null : add.data(), layout.addStrides(),
                    AttentionPlan.Visible.of(options, s.queries(), lk));
            if (probabilities != null) {
                dropout("attention", probabilities, weights.data(), (int) count, options.dropoutP(),
                        options.dropoutSeed());
            }
        } finally {
            device.free(logits);
            if (probabilities != null) {
                device.free(probabilities);
            }
        }
        CudaTensor out = scope.allocate("attention", s.output());
        gemm("attention", weights.data(), v.data(), out.data(),
                new OpPlans.Gemm(rows, s.valueDim(), lk, kvProblems, batch, new int[] {rows * lk},
                        new int[] {lk * s.valueDim()}), false, false, 1.0f);
        return new AttentionResult(out, weights);
    }

    private CUdeviceptr uploadMask(Mask mask) {
        boolean[] allowed = mask.toArray();
        byte[] bytes = new byte[allowed.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (allowed[i] ? 1 : 0);
        }
        CUdeviceptr ptr = device.alloc("attention", bytes.length);
        try {
            device.upload("attention", ptr, bytes);
        } catch (RuntimeException e) {
            device.free(ptr);
            throw e;
        }
        return ptr;
    }

    private Tensor unary(String op, Kernel kernel, CudaTensor t) {
        CudaTensor r = scope.allocate(op, t.shape());
        device.launch(kernel, Launches.elementwise(t.size()),
                new KernelArgs(op).pointer(t.data()).pointer(r.data()).i64(t.size()));
        return r;
    }

    private void gemm(String op, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, OpPlans.Gemm g, boolean transposeA,
                      boolean transposeB, float alpha) {
        device.launch(Kernel.GEMM, Launches.gemm(g.m(), g.n(), g.batches()), new KernelArgs(op)
                .pointer(a).pointer(b).pointer(c).i32(g.m()).i32(g.n()).i32(g.k())
                .i32(transposeA ? 1 : 0).i32(transposeB ? 1 : 0).f32(alpha)
                .shape(g.batch()).strides(g.stridesA()).strides(g.stridesB()).i32(g.batches()));
    }

    private void softmax(String op, CUdeviceptr x, CUdeviceptr y, OpPlans.AxisView view, int[] dims,
                         CUdeviceptr mask, int[] maskStrides, CUdeviceptr add, int[] addStrides,
                         AttentionPlan.Visible visible) {
        device.launch(Kernel.SOFTMAX, Launches.rows(view.outer() * view.inner(), view.n()), new KernelArgs(op)
                .pointer(x).pointer(y).i32(view.outer()).i32(view.n()).i32(view.inner()).shape(dims)
                .pointer(mask).strides(maskStrides).pointer(add).strides(addStrides).i32(visible.causal() ? 1 : 0)
                .i32(visible.shift()).i32(visible.window()).i32(visible.keys()));
    }

    private void softcap(String op, CUdeviceptr x, CUdeviceptr y, int n, double cap) {
        device.launch(Kernel.SOFTCAP, Launches.elementwise(n), new KernelArgs(op).pointer(x).pointer(y)
                .f32((float) cap).i64(n));
    }

    private void dropout(String op, CUdeviceptr x, CUdeviceptr y, int n, double p, long seed) {
        device.launch(Kernel.DROPOUT, Launches.elementwise(n), new KernelArgs(op).pointer(x).pointer(y).i64(n)
                .i64(seed).f64(p).f32((float) Dropout.survivorScale(p)));
    }

    private void copyStrided(String op, StridedLayout.Walk walk, int src, int dst, CUdeviceptr x, long xBase,
                             CUdeviceptr y, long yBase, int n) {
        device.launch(Kernel.COPY_STRIDED, Launches.elementwise(n), new KernelArgs(op).shape(walk.dims())
                .strides(walk.strides()[src]).strides(walk.strides()[dst]).pointer(x).i64(xBase).pointer(y).i64(yBase)
                .i64(n));
    }
}
