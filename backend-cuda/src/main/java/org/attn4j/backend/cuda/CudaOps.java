package org.attn4j.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ReferenceOps;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Every op of {@link Ops} as launches of this module's kernels; results are new contiguous F32 tensors of the
 * scope. Shapes are checked with {@link ShapeChecks} before anything touches the device. Attention without
 * returned weights is one launch of the fused kernel; with weights it runs GEMM, masked softmax, dropout and
 * GEMM, since the weights must then be materialised anyway.
 */
final class CudaOps implements Ops {
    private static final int[] NONE = new int[0];

    private final CudaScope scope;
    private final Device device;

    CudaOps(CudaScope scope, Device device) {
        this.scope = scope;
        this.device = device;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    @Override
    public Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
        CudaTensor x = operand("matmul", "a", a);
        CudaTensor y = operand("matmul", "b", b);
        Shape out = ShapeChecks.matmul(a.shape(), b.shape(), transposeA, transposeB);
        CudaTensor c = scope.allocate("matmul", out);
        gemm("matmul", x.data(), y.data(), null, c.data(), OpPlans.gemm(a.shape(), b.shape(), transposeA, transposeB,
                out), transposeA, transposeB, 1.0f);
        return c;
    }

    @Override
    public Tensor add(Tensor a, Tensor b) {
        return binary("add", Kernel.ADD, a, b);
    }

    @Override
    public Tensor sub(Tensor a, Tensor b) {
        return binary("sub", Kernel.SUB, a, b);
    }

    @Override
    public Tensor mul(Tensor a, Tensor b) {
        return binary("mul", Kernel.MUL, a, b);
    }

    @Override
    public Tensor div(Tensor a, Tensor b) {
        return binary("div", Kernel.DIV, a, b);
    }

    @Override
    public Tensor scale(Tensor x, double factor) {
        CudaTensor t = operand("scale", "x", x);
        CudaTensor r = scope.allocate("scale", x.shape());
        device.launch(Kernel.SCALE, Launches.elementwise(t.size()),
                new KernelArgs("scale").pointer(t.data()).pointer(r.data()).f32((float) factor).i64(t.size()));
        return r;
    }

    @Override
    public Tensor exp(Tensor x) {
        return unary("exp", Kernel.EXP, x);
    }

    @Override
    public Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce("max", Kernel.REDUCE_MAX, x, axis, keepDims);
    }

    @Override
    public Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce("sum", Kernel.REDUCE_SUM, x, axis, keepDims);
    }

    @Override
    public Tensor mean(Tensor x, int axis, boolean keepDims) {
        return reduce("mean", Kernel.REDUCE_MEAN, x, axis, keepDims);
    }

    @Override
    public Tensor variance(Tensor x, int axis, boolean keepDims) {
        return reduce("variance", Kernel.REDUCE_VAR, x, axis, keepDims);
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        CudaTensor t = operand("softmax", "x", x);
        OpPlans.AxisView view = OpPlans.axis(x.shape(), ShapeChecks.axis("softmax", x.shape(), axis));
        CudaTensor r = scope.allocate("softmax", x.shape());
        softmax("softmax", t.data(), r.data(), view, NONE, null, NONE, null, NONE, false);
        return r;
    }

    @Override
    public Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
        CudaTensor t = operand("layerNorm", "x", x);
        CudaTensor g = gamma == null ? null : operand("layerNorm", "gamma", gamma);
        CudaTensor b = beta == null ? null : operand("layerNorm", "beta", beta);
        ShapeChecks.layerNorm(x.shape(), g == null ? null : g.shape(), b == null ? null : b.shape(), eps);
        int d = x.shape().dim(-1);
        int rows = t.size() / d;
        CudaTensor r = scope.allocate("layerNorm", x.shape());
        device.launch(Kernel.LAYER_NORM, Launches.rows(rows, d), new KernelArgs("layerNorm").pointer(t.data())
                .pointer(g == null ? null : g.data()).pointer(b == null ? null : b.data()).pointer(r.data())
                .i32(rows).i32(d).f32((float) eps));
        return r;
    }

    @Override
    public Tensor relu(Tensor x) {
        return unary("relu", Kernel.RELU, x);
    }

    @Override
    public Tensor gelu(Tensor x, GeluApproximation approximation) {
        if (approximation == null) {
            throw new IllegalArgumentException("gelu: argument approximation is null");
        }
        return unary("gelu", approximation == GeluApproximation.TANH ? Kernel.GELU_TANH : Kernel.GELU_ERF, x);
    }

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        CudaTensor t = operand("linear", "x", x);
        CudaTensor w = operand("linear", "weight", weight);
        CudaTensor b = bias == null ? null : operand("linear", "bias", bias);
        Shape out = ShapeChecks.linear(x.shape(), weight.shape(), b == null ? null : b.shape());
        int in = weight.shape().dim(1);
        int outFeatures = weight.shape().dim(0);
        CudaTensor r = scope.allocate("linear", out);
        gemm("linear", t.data(), w.data(), b == null ? null : b.data(), r.data(),
                new OpPlans.Gemm(t.size() / in, outFeatures, in, 1, NONE, NONE, NONE), false, true, 1.0f);
        return r;
    }

    @Override
    public Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
        CudaTensor w = operand("embedding", "weight", weight);
        if (ids == null || idsShape == null) {
            throw new IllegalArgumentException("embedding: arguments ids and idsShape must not be null");
        }
        Shape out = ShapeChecks.embedding(weight.shape(), ids, idsShape);
        int d = weight.shape().dim(1);
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
    public Tensor reshape(Tensor x, int... shape) {
        CudaTensor t = operand("reshape", "x", x);
        CudaTensor r = scope.allocate("reshape", ShapeChecks.reshape(x.shape(), shape));
        device.copy("reshape", r.data(), t.data(), (long) t.size() * Sizeof.FLOAT);
        return r;
    }

    @Override
    public Tensor permute(Tensor x, int... axes) {
        CudaTensor t = operand("permute", "x", x);
        CudaTensor r = scope.allocate("permute", ShapeChecks.permute(x.shape(), axes));
        copyStrided("permute", OpPlans.permute(x.shape(), axes), 0, 1, t.data(), 0, r.data(), 0, t.size());
        return r;
    }

    @Override
    public Tensor concat(List<Tensor> parts, int axis) {
        if (parts == null || parts.isEmpty()) {
            throw new IllegalArgumentException("concat: argument parts is empty");
        }
        List<CudaTensor> ts = new ArrayList<>();
        List<Shape> shapes = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            CudaTensor t = operand("concat", "parts[" + i + "]", parts.get(i));
            ts.add(t);
            shapes.add(t.shape());
        }
        Shape out = ShapeChecks.concat(shapes, axis);
        int a = ShapeChecks.axis("concat", out, axis);
        CudaTensor r = scope.allocate("concat", out);
        long offset = 0;
        for (CudaTensor t : ts) {
            copyStrided("concat", OpPlans.slab(t.shape(), out), 0, 1, t.data(), 0, r.data(), offset * out.stride(a),
                    t.size());
            offset += t.shape().dim(a);
        }
        return r;
    }

    @Override
    public List<Tensor> split(Tensor x, int[] sizes, int axis) {
        CudaTensor t = operand("split", "x", x);
        List<Shape> pieces = ShapeChecks.split(x.shape(), sizes, axis);
        int a = ShapeChecks.axis("split", x.shape(), axis);
        List<Tensor> out = new ArrayList<>();
        long offset = 0;
        for (Shape piece : pieces) {
            CudaTensor r = scope.allocate("split", piece);
            copyStrided("split", OpPlans.slab(piece, x.shape()), 1, 0, t.data(), offset * x.shape().stride(a),
                    r.data(), 0, r.size());
            offset += piece.dim(a);
            out.add(r);
        }
        return out;
    }

    @Override
    public Tensor cast(Tensor x, DType dtype) {
        CudaTensor t = operand("cast", "x", x);
        if (dtype != DType.F32) {
            throw CudaScope.unsupported("cast", dtype);
        }
        CudaTensor r = scope.allocate("cast", x.shape());
        device.copy("cast", r.data(), t.data(), (long) t.size() * Sizeof.FLOAT);
        return r;
    }

    @Override
    public Tensor dropout(Tensor x, double p, long seed) {
        CudaTensor t = operand("dropout", "x", x);
        Dropout.checkProbability("dropout", p);
        CudaTensor r = scope.allocate("dropout", x.shape());
        dropout("dropout", t.data(), r.data(), t.size(), p, seed);
        return r;
    }

    @Override
    public Tensor additiveMask(Mask mask, DType dtype) {
        if (mask == null) {
            throw new IllegalArgumentException("additiveMask: argument mask is null");
        }
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
     * Fused attention, or the materialised path when the weights are requested; see the class comment.
     */
    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        CudaTensor tq = operand("attention", "q", q);
        CudaTensor tk = operand("attention", "k", k);
        CudaTensor tv = operand("attention", "v", v);
        ShapeChecks.AttentionShape s = ShapeChecks.attention(q, k, v, options);
        CudaTensor add = options.additiveMask() == null ? null
                : operand("attention", "additiveMask", options.additiveMask());
        Mask mask = options.mask();
        OpPlans.MaskLayout layout = OpPlans.masks(s.batch(), s.queries(), s.keys(),
                mask == null ? null : mask.shape(), add == null ? null : add.shape());
        float scale = (float) options.scaleFor(s.keyDim());
        CUdeviceptr maskBytes = mask == null ? null : uploadMask(mask);
        try {
            if (options.returnWeights()) {
                return materialised(tq, tk, tv, s, options, layout, maskBytes, add, scale);
            }
            AttentionPlan plan = AttentionPlan.of(s.problems(), s.queries(), s.keys(), s.keyDim(), s.valueDim(),
                    options.causal());
            CudaTensor out = scope.allocate("attention", s.output());
            double p = options.dropoutP();
            device.launch(Kernel.FLASH_ATTENTION, plan.launch(), new KernelArgs("attention")
                    .pointer(tq.data()).pointer(tk.data()).pointer(tv.data()).pointer(out.data())
                    .i32(s.queries()).i32(s.keys()).i32(s.keyDim()).i32(s.valueDim()).f32(scale)
                    .shape(layout.dims()).pointer(maskBytes).strides(layout.maskStrides())
                    .pointer(add == null ? null : add.data()).strides(layout.addStrides())
                    .i32(options.causal() ? 1 : 0).i64(options.dropoutSeed()).f64(p)
                    .f32((float) Dropout.survivorScale(p)));
            return new AttentionResult(out, null);
        } finally {
            if (maskBytes != null) {
                device.free(maskBytes);
            }
        }
    }

    private AttentionResult materialised(CudaTensor q, CudaTensor k, CudaTensor v, ShapeChecks.AttentionShape s,
                                         AttentionOptions options, OpPlans.MaskLayout layout, CUdeviceptr maskBytes,
                                         CudaTensor add, float scale) {
        int bh = s.problems();
        int lq = s.queries();
        int lk = s.keys();
        int[] batch = {bh};
        CudaTensor weights = scope.allocate("attention", s.weights());
        long count = weights.shape().size();
        CUdeviceptr logits = device.alloc("attention", count * Sizeof.FLOAT);
        CUdeviceptr probabilities = options.dropoutP() > 0 ? device.alloc("attention", count * Sizeof.FLOAT) : null;
        try {
            gemm("attention", q.data(), k.data(), null, logits,
                    new OpPlans.Gemm(lq, lk, s.keyDim(), bh, batch, new int[] {lq * s.keyDim()},
                            new int[] {lk * s.keyDim()}), false, true, scale);
            softmax("attention", logits, probabilities == null ? weights.data() : probabilities,
                    new OpPlans.AxisView(bh * lq, lk, 1), layout.dims(), maskBytes, layout.maskStrides(),
                    add == null ? null : add.data(), layout.addStrides(), options.causal());
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
        gemm("attention", weights.data(), v.data(), null, out.data(),
                new OpPlans.Gemm(lq, s.valueDim(), lk, bh, batch, new int[] {lq * lk}, new int[] {lk * s.valueDim()}),
                false, false, 1.0f);
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

    private CudaTensor operand(String op, String argument, Tensor tensor) {
        return scope.operand(op, argument, tensor, CudaTensor.class);
    }

    private Tensor binary(String op, Kernel kernel, Tensor a, Tensor b) {
        CudaTensor x = operand(op, "a", a);
        CudaTensor y = operand(op, "b", b);
        Shape out = ShapeChecks.broadcast(op, a.shape(), b.shape());
        StridedLayout.Walk walk = OpPlans.binary(op, a.shape(), b.shape(), out);
        CudaTensor r = scope.allocate(op, out);
        device.launch(kernel, Launches.elementwise(r.size()), new KernelArgs(op).shape(walk.dims())
                .strides(walk.strides()[0]).strides(walk.strides()[1]).pointer(x.data()).pointer(y.data())
                .pointer(r.data()).i64(r.size()));
        return r;
    }

    private Tensor unary(String op, Kernel kernel, Tensor x) {
        CudaTensor t = operand(op, "x", x);
        CudaTensor r = scope.allocate(op, x.shape());
        device.launch(kernel, Launches.elementwise(t.size()),
                new KernelArgs(op).pointer(t.data()).pointer(r.data()).i64(t.size()));
        return r;
    }

    private Tensor reduce(String op, Kernel kernel, Tensor x, int axis, boolean keepDims) {
        CudaTensor t = operand(op, "x", x);
        Shape out = ShapeChecks.reduce(op, x.shape(), axis, keepDims);
        OpPlans.AxisView view = OpPlans.axis(x.shape(), ShapeChecks.axis(op, x.shape(), axis));
        CudaTensor r = scope.allocate(op, out);
        device.launch(kernel, Launches.reduction((long) view.outer() * view.inner()), new KernelArgs(op)
                .pointer(t.data()).pointer(r.data()).i32(view.outer()).i32(view.n()).i32(view.inner()));
        return r;
    }

    private void gemm(String op, CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c, OpPlans.Gemm g,
                      boolean transposeA, boolean transposeB, float alpha) {
        device.launch(Kernel.GEMM, Launches.gemm(g.m(), g.n(), g.batches()), new KernelArgs(op)
                .pointer(a).pointer(b).pointer(bias).pointer(c).i32(g.m()).i32(g.n()).i32(g.k())
                .i32(transposeA ? 1 : 0).i32(transposeB ? 1 : 0).f32(alpha)
                .shape(g.batch()).strides(g.stridesA()).strides(g.stridesB()).i32(g.batches()));
    }

    private void softmax(String op, CUdeviceptr x, CUdeviceptr y, OpPlans.AxisView view, int[] dims,
                         CUdeviceptr mask, int[] maskStrides, CUdeviceptr add, int[] addStrides, boolean causal) {
        device.launch(Kernel.SOFTMAX, Launches.rows(view.outer() * view.inner(), view.n()), new KernelArgs(op)
                .pointer(x).pointer(y).i32(view.outer()).i32(view.n()).i32(view.inner()).shape(dims)
                .pointer(mask).strides(maskStrides).pointer(add).strides(addStrides).i32(causal ? 1 : 0));
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

    @Override
    public Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return ReferenceOps.rmsNorm(this, x, weight, eps);
    }

    @Override
    public Tensor silu(Tensor x) {
        return ReferenceOps.silu(this, x);
    }

    @Override
    public Tensor rope(Tensor x, RopeLayout layout, double base, int offset) {
        return ReferenceOps.rope(this, x, layout, base, offset);
    }

    @Override
    public Tensor writeSlice(Tensor target, Tensor source, int axis, int offset) {
        return ReferenceOps.writeSlice(this, target, source, axis, offset);
    }
}
