package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The decoder ops of {@link Ops} composed from its primitives (softcap alone computed on the host, see
 * {@link #softcap}), what a backend returns until it has kernels of its own. Intermediates live in a scope of their
 * own that is closed before returning.
 */
public final class ReferenceOps {

    private ReferenceOps() {
    }

    /**
     * {@code x / sqrt(mean(x²) + eps) · weight}, as the layer norm of {@code [x, -x]}: that row has mean 0 and
     * variance {@code mean(x²)}, so its first half is {@code x / sqrt(mean(x²) + eps)}.
     *
     * @param ops the ops whose scope receives the result
     * @param x {@code [..., d]}
     * @param weight {@code [d]} or null
     * @param eps at least 0
     * @return {@code [..., d]}
     */
    public static Tensor rmsNorm(Ops ops, Tensor x, Tensor weight, double eps) {
        ShapeChecks.rmsNorm(x.shape(), weight == null ? null : weight.shape(), eps);
        ShapeChecks.sameDType("rmsNorm", "x", x, "weight", weight);
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            int d = x.shape().dim(-1);
            Tensor both = t.concat(List.of(x, t.scale(x, -1.0)), -1);
            Tensor normed = t.split(t.layerNorm(both, null, null, eps), new int[] {d, d}, -1).get(0);
            return ops.scope().adopt(weight == null ? normed : t.mul(normed, weight));
        }
    }

    /**
     * {@code x / (1 + e^-x)}.
     *
     * @param ops the ops whose scope receives the result
     * @param x any shape
     * @return {@code silu(x)}
     */
    public static Tensor silu(Ops ops, Tensor x) {
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            Tensor one = work.tensor(new double[] {1.0}, Shape.of(), x.dtype());
            return ops.scope().adopt(t.div(x, t.add(one, t.exp(t.scale(x, -1.0)))));
        }
    }

    /**
     * Rotates feature pairs with cosine and sine tables {@code [L, n]} computed here in double precision: the first
     * {@code 2n} features are split into the two members of each pair, turned, and joined again in front of the
     * features that pass unchanged.
     *
     * @param ops the ops whose scope receives the result
     * @param x {@code [..., L, d]}
     * @param rotary the frequencies, scaling and layout, {@code rotary.dimension() <= d}
     * @param offset the position of row 0
     * @return {@code [..., L, d]}
     */
    public static Tensor rope(Ops ops, Tensor x, RotaryEmbedding rotary, int offset) {
        Shape s = x.shape();
        ShapeChecks.rope(s, rotary, offset);
        int rows = s.dim(-2);
        int d = s.dim(-1);
        int half = rotary.pairs();
        double[][] tables = ropeTables(rows, rotary, offset);
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            boolean interleaved = rotary.layout() == RopeLayout.INTERLEAVED;
            Shape table = interleaved ? Shape.of(rows, half, 1) : Shape.of(rows, half);
            Tensor cos = work.tensor(tables[0], table, x.dtype());
            Tensor sin = work.tensor(tables[1], table, x.dtype());
            Tensor turned = x;
            Tensor passed = null;
            if (2 * half < d) {
                List<Tensor> parts = t.split(x, new int[] {2 * half, d - 2 * half}, -1);
                turned = parts.get(0);
                passed = parts.get(1);
            }
            int[] turnedDims = turned.shape().toArray();
            Tensor source = turned;
            int[] sizes = {half, half};
            if (interleaved) {
                int[] pairs = turned.shape().append(1).toArray();
                pairs[pairs.length - 2] = half;
                pairs[pairs.length - 1] = 2;
                source = t.reshape(turned, pairs);
                sizes = new int[] {1, 1};
            }
            List<Tensor> ab = t.split(source, sizes, -1);
            Tensor a = ab.get(0);
            Tensor b = ab.get(1);
            Tensor first = t.sub(t.mul(a, cos), t.mul(b, sin));
            Tensor second = t.add(t.mul(b, cos), t.mul(a, sin));
            Tensor out = t.reshape(t.concat(List.of(first, second), -1), turnedDims);
            if (passed != null) {
                out = t.concat(List.of(out, passed), -1);
            }
            return ops.scope().adopt(out);
        }
    }

    /**
     * The rotation factors of {@link Ops#rope(Tensor, RotaryEmbedding, int)}: {@code s·cos θ} and {@code s·sin θ}
     * of {@code θ = (offset + p) · ω_i} for rows {@code p < rows} and pairs {@code i < n}, row-major
     * {@code [rows, n]}, with {@code s} the attention scaling.
     *
     * @param rows {@code L}
     * @param rotary the frequencies and scaling
     * @param offset the position of row 0
     * @return {@code {cos, sin}}
     */
    public static double[][] ropeTables(int rows, RotaryEmbedding rotary, int offset) {
        int half = rotary.pairs();
        double scaling = rotary.attentionScaling();
        double[] cos = new double[rows * half];
        double[] sin = new double[rows * half];
        for (int i = 0; i < half; i++) {
            double frequency = rotary.inverseFrequency(i);
            for (int p = 0; p < rows; p++) {
                double angle = (double) (offset + p) * frequency;
                cos[p * half + i] = Math.cos(angle) * scaling;
                sin[p * half + i] = Math.sin(angle) * scaling;
            }
        }
        return new double[][] {cos, sin};
    }

    /**
     * {@code cap · tanh(x / cap)}, computed on the host in double precision with {@link Math#tanh} (within 2.5 ulps,
     * {@code ±1} at {@code ±∞}, NaN kept) and rounded once to {@code x}'s dtype. The host round trip is deliberate:
     * the primitives offer no {@code expm1}, and any form of tanh through {@code e^(2y)} errs by an absolute
     * {@code cap·ε} near 0 (in F32, {@code cap·6e-8}: a relative error of 6% at {@code x = 1}, {@code cap = 10^6}),
     * so every backend that inherits this default, F32-only or not, meets the TCK's tolerance. A backend whose
     * tensors live off the heap overrides it to spare the copies.
     *
     * @param ops the ops whose scope receives the result
     * @param x any shape
     * @param cap positive and finite
     * @return {@code cap · tanh(x / cap)}, of {@code x}'s shape and dtype
     */
    public static Tensor softcap(Ops ops, Tensor x, double cap) {
        ShapeChecks.softcap(cap);
        double[] values = x.toDoubleArray();
        for (int i = 0; i < values.length; i++) {
            values[i] = cap * Math.tanh(values[i] / cap);
        }
        return ops.scope().tensor(values, x.shape(), x.dtype());
    }

    /**
     * Builds {@code target} with the slice replaced, as a new tensor: the pieces before and after the slice are
     * split off and joined around {@code source}.
     *
     * @param ops the ops whose scope receives the result
     * @param target the tensor written into; not modified
     * @param source the slice
     * @param axis the axis
     * @param offset the slice's start
     * @return a new tensor
     */
    public static Tensor writeSlice(Ops ops, Tensor target, Tensor source, int axis, int offset) {
        int a = ShapeChecks.writeSlice(target.shape(), source.shape(), axis, offset);
        ShapeChecks.sameDType("writeSlice", "target", target, "source", source);
        int n = target.shape().dim(a);
        int length = source.shape().dim(a);
        int after = n - offset - length;
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            List<Integer> sizes = new ArrayList<>();
            for (int size : new int[] {offset, length, after}) {
                if (size > 0) {
                    sizes.add(size);
                }
            }
            List<Tensor> pieces = new ArrayList<>(t.split(target, sizes.stream().mapToInt(Integer::intValue).toArray(),
                    a));
            pieces.set(offset > 0 ? 1 : 0, source);
            Tensor out = pieces.size() == 1 ? t.reshape(source, source.shape().toArray()) : t.concat(pieces, a);
            return ops.scope().adopt(out);
        }
    }

    /**
     * Applies an epilogue to a product {@code y = x·Wᵀ + b}: {@code act(y)}, or {@code act(y_g) ⊙ y_u} for the two
     * halves of a gated one, then {@code + residual}.
     *
     * @param ops the ops whose scope receives the result
     * @param y the product, {@code [..., out]} or {@code [..., 2·out]} when gated
     * @param epilogue the steps
     * @return {@code [..., out]}
     */
    public static Tensor epilogue(Ops ops, Tensor y, Epilogue epilogue) {
        if (epilogue.activation() == Activation.IDENTITY && !epilogue.gated() && epilogue.residual() == null) {
            return y;
        }
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            Tensor r = y;
            if (epilogue.gated()) {
                int out = y.shape().dim(-1) / 2;
                List<Tensor> halves = t.split(y, new int[] {out, out}, -1);
                r = t.mul(activate(t, halves.get(0), epilogue.activation()), halves.get(1));
            } else {
                r = activate(t, r, epilogue.activation());
            }
            if (epilogue.residual() != null) {
                r = t.add(r, epilogue.residual());
            }
            return r == y ? y : ops.scope().adopt(r);
        }
    }

    /**
     * @param ops the ops
     * @param x any shape
     * @param activation the function
     * @return {@code activation(x)}, or {@code x} itself for {@link Activation#IDENTITY}
     */
    public static Tensor activate(Ops ops, Tensor x, Activation activation) {
        return switch (activation) {
            case IDENTITY -> x;
            case RELU -> ops.relu(x);
            case GELU -> ops.gelu(x, GeluApproximation.NONE);
            case GELU_TANH -> ops.gelu(x, GeluApproximation.TANH);
            case SILU -> ops.silu(x);
        };
    }

    /**
     * Attention over a packed projection composed from the primitives: q, k and v cut out of {@code qkv} and
     * viewed as {@code [B, n, L, d]}, {@link Ops#attention}, and the heads put side by side again.
     *
     * @param ops the ops whose scope receives the results
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}
     * @param heads {@code H}
     * @param kvHeads {@code H_kv}
     * @param headDim {@code d}
     * @param options as for attention
     * @return output {@code [B, L, H·d]} and, if asked, weights {@code [B, H, L, L]}
     */
    public static AttentionResult packedAttention(Ops ops, Tensor qkv, int heads, int kvHeads, int headDim,
                                                  AttentionOptions options) {
        int b = qkv.shape().dim(0);
        int l = qkv.shape().dim(1);
        try (Scope work = ops.scope().backend().newScope()) {
            Ops t = work.ops();
            List<Tensor> parts = t.split(qkv, new int[] {heads * headDim, kvHeads * headDim, kvHeads * headDim}, 2);
            Tensor q = t.permute(t.reshape(parts.get(0), b, l, heads, headDim), 0, 2, 1, 3);
            Tensor k = t.permute(t.reshape(parts.get(1), b, l, kvHeads, headDim), 0, 2, 1, 3);
            Tensor v = t.permute(t.reshape(parts.get(2), b, l, kvHeads, headDim), 0, 2, 1, 3);
            AttentionResult r = t.attention(q, k, v, options);
            Tensor out = ops.scope().adopt(t.reshape(t.permute(r.output(), 0, 2, 1, 3), b, l, heads * headDim));
            return new AttentionResult(out, r.weights() == null ? null : ops.scope().adopt(r.weights()));
        }
    }
}
