package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.Arrays;
import java.math.BigInteger;
import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * The shape rules of every op, written once so that every backend accepts the same inputs and rejects the same
 * mistakes with the same {@link IllegalArgumentException} messages: each names the op, the argument and the
 * shapes involved. Each method returns the result shape of its op.
 */
public final class ShapeChecks {

    private ShapeChecks() {
    }

    /**
     * @param op the op name for the message
     * @param tensors operands named by their argument names, alternating name and tensor
     * @throws IllegalArgumentException if the dtypes differ
     */
    public static void sameDType(String op, Object... tensors) {
        Tensor first = (Tensor) tensors[1];
        for (int i = 3; i < tensors.length; i += 2) {
            Tensor t = (Tensor) tensors[i];
            if (t != null && t.dtype() != first.dtype()) {
                throw new IllegalArgumentException(op + ": argument " + tensors[i - 1] + " has dtype " + t.dtype()
                        + " " + t.shape() + " but " + tensors[0] + " has dtype " + first.dtype() + " "
                        + first.shape() + "; cast one of them");
            }
        }
    }

    /**
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param value the argument
     * @throws IllegalArgumentException if it is null
     */
    public static void notNull(String op, String argument, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(op + ": argument " + argument + " is null");
        }
    }

    /**
     * The checks of a factory that copies values in ({@code Scope.tensor}).
     *
     * @param op the op name for the message
     * @param length the number of values supplied, or -1 when the data array is null
     * @param shape the shape they should fill
     * @throws IllegalArgumentException if the data or the shape is null, or they differ in size
     */
    public static void data(String op, int length, Shape shape) {
        if (length < 0) {
            throw new IllegalArgumentException(op + ": argument data is null");
        }
        notNull(op, "shape", shape);
        dataLength(op, length, shape);
    }

    /**
     * The size check a backend makes before it allocates a tensor, so that a tensor too large for it fails with the
     * op, the shape and the bytes asked for instead of a native allocation failure or an array-size error.
     *
     * @param op the op name for the message
     * @param shape the tensor's shape
     * @param dtype the tensor's element type
     * @param maxBytes the most bytes the backend can give one tensor now
     * @param limit what {@code maxBytes} is, for the message
     * @throws IllegalArgumentException if the tensor needs more than {@code maxBytes}
     */
    public static void fits(String op, Shape shape, DType dtype, long maxBytes, String limit) {
        notNull(op, "shape", shape);
        notNull(op, "dtype", dtype);
        if (shape.size() > maxBytes / dtype.byteSize()) {
            throw new IllegalArgumentException(op + ": a tensor of shape " + shape + " " + dtype + " needs "
                    + bytes(shape, dtype) + " bytes, more than " + limit + " (" + maxBytes + " bytes)");
        }
    }

    private static String bytes(Shape shape, DType dtype) {
        return BigInteger.valueOf(shape.size()).multiply(BigInteger.valueOf(dtype.byteSize()))
                .toString();
    }

    /**
     * @param op the op name for the message
     * @param length the number of values supplied
     * @param shape the shape they should fill
     * @throws IllegalArgumentException if they differ
     */
    public static void dataLength(String op, int length, Shape shape) {
        if (length != shape.size()) {
            throw new IllegalArgumentException(op + ": argument data has " + length + " values but shape " + shape
                    + " needs " + shape.size());
        }
    }

    /**
     * Numpy broadcasting, as {@link Shape#broadcast(Shape)}.
     *
     * @param op the op name for the message
     * @param a the first operand's shape
     * @param b the second operand's shape
     * @return the broadcast shape
     * @throws IllegalArgumentException naming the op, argument {@code b} and both shapes
     */
    public static Shape broadcast(String op, Shape a, Shape b) {
        try {
            return a.broadcast(b);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(op + ": argument b of " + e.getMessage(), e);
        }
    }

    /**
     * @param a the left operand's shape, rank at least 2
     * @param b the right operand's shape, rank at least 2
     * @param transposeA whether {@code a} is used transposed
     * @param transposeB whether {@code b} is used transposed
     * @return {@code [broadcast batch dims..., m, n]}
     */
    public static Shape matmul(Shape a, Shape b, boolean transposeA, boolean transposeB) {
        if (a.rank() < 2 || b.rank() < 2) {
            throw new IllegalArgumentException("matmul: arguments a " + a + " and b " + b
                    + " must both have rank at least 2");
        }
        int m = transposeA ? a.dim(-1) : a.dim(-2);
        int ka = transposeA ? a.dim(-2) : a.dim(-1);
        int kb = transposeB ? b.dim(-1) : b.dim(-2);
        int n = transposeB ? b.dim(-2) : b.dim(-1);
        if (ka != kb) {
            throw new IllegalArgumentException("matmul: argument b of shape " + b + (transposeB ? " (transposed)" : "")
                    + " has inner dimension " + kb + " but a of shape " + a + (transposeA ? " (transposed)" : "")
                    + " has " + ka);
        }
        Shape batch = broadcast("matmul", a.slice(0, a.rank() - 2), b.slice(0, b.rank() - 2));
        return batch.append(m, n);
    }

    /**
     * @param op the op name for the message
     * @param x the input shape, rank at least 1
     * @param axis the reduced axis, possibly negative
     * @param keepDims whether the axis stays with size 1
     * @return the reduced shape
     */
    public static Shape reduce(String op, Shape x, int axis, boolean keepDims) {
        int a = axis(op, x, axis);
        int[] dims = x.toArray();
        if (keepDims) {
            dims[a] = 1;
            return Shape.of(dims);
        }
        int[] out = new int[dims.length - 1];
        for (int i = 0, j = 0; i < dims.length; i++) {
            if (i != a) {
                out[j++] = dims[i];
            }
        }
        return Shape.of(out);
    }

    /**
     * @param op the op name for the message
     * @param x the shape
     * @param axis an axis, possibly negative
     * @return the axis in {@code [0, rank)}
     */
    public static int axis(String op, Shape x, int axis) {
        if (x.rank() == 0 || axis < -x.rank() || axis >= x.rank()) {
            throw new IllegalArgumentException(op + ": argument axis is " + axis + " but x has shape " + x
                    + " of rank " + x.rank());
        }
        return axis < 0 ? axis + x.rank() : axis;
    }

    /**
     * @param x the input shape
     * @param shape the requested dims, one of which may be -1
     * @return the resolved shape with the same size as {@code x}
     */
    public static Shape reshape(Shape x, int[] shape) {
        int inferred = -1;
        long known = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == -1 && inferred < 0) {
                inferred = i;
            } else if (shape[i] < 1) {
                throw new IllegalArgumentException("reshape: argument shape " + Arrays.toString(shape)
                        + " has dimension " + shape[i] + " at axis " + i + "; use sizes >= 1 and at most one -1");
            } else {
                known *= shape[i];
            }
        }
        int[] dims = shape.clone();
        if (inferred >= 0) {
            if (x.size() % known != 0) {
                throw new IllegalArgumentException("reshape: x of shape " + x + " cannot be viewed as "
                        + Arrays.toString(shape));
            }
            dims[inferred] = (int) (x.size() / known);
        }
        Shape out = Shape.of(dims);
        if (out.size() != x.size()) {
            throw new IllegalArgumentException("reshape: x of shape " + x + " has " + x.size()
                    + " elements but shape " + Arrays.toString(shape) + " holds " + out.size());
        }
        return out;
    }

    /**
     * @param x the input shape
     * @param axes a permutation of {@code 0..rank-1}
     * @return the permuted shape
     */
    public static Shape permute(Shape x, int[] axes) {
        if (axes.length != x.rank()) {
            throw new IllegalArgumentException("permute: argument axes " + Arrays.toString(axes) + " has "
                    + axes.length + " entries but x has shape " + x + " of rank " + x.rank());
        }
        boolean[] seen = new boolean[axes.length];
        int[] out = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            int a = axes[i] < 0 ? axes[i] + axes.length : axes[i];
            if (a < 0 || a >= axes.length || seen[a]) {
                throw new IllegalArgumentException("permute: argument axes " + Arrays.toString(axes)
                        + " is not a permutation of the axes of x " + x);
            }
            seen[a] = true;
            out[i] = x.dim(a);
        }
        return Shape.of(out);
    }

    /**
     * @param parts the shapes to join, at least one
     * @param axis the axis to join along
     * @return the joined shape
     */
    public static Shape concat(List<Shape> parts, int axis) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concat: argument parts is empty");
        }
        Shape first = parts.get(0);
        int a = axis("concat", first, axis);
        int total = 0;
        for (int p = 0; p < parts.size(); p++) {
            Shape s = parts.get(p);
            boolean compatible = s.rank() == first.rank();
            for (int i = 0; compatible && i < s.rank(); i++) {
                compatible = i == a || s.dim(i) == first.dim(i);
            }
            if (!compatible) {
                throw new IllegalArgumentException("concat: argument parts[" + p + "] has shape " + s
                        + " but parts[0] has shape " + first + "; they may differ only along axis " + a);
            }
            total += s.dim(a);
        }
        int[] dims = first.toArray();
        dims[a] = total;
        return Shape.of(dims);
    }

    /**
     * @param x the input shape
     * @param sizes consecutive piece sizes along {@code axis}, each at least 1, summing to the axis size
     * @param axis the axis to cut
     * @return the shapes of the pieces
     */
    public static List<Shape> split(Shape x, int[] sizes, int axis) {
        int a = axis("split", x, axis);
        long total = 0;
        for (int s : sizes) {
            if (s < 1) {
                throw new IllegalArgumentException("split: argument sizes " + Arrays.toString(sizes)
                        + " holds " + s + "; each piece needs at least 1");
            }
            total += s;
        }
        if (total != x.dim(a)) {
            throw new IllegalArgumentException("split: argument sizes " + Arrays.toString(sizes) + " sums to " + total
                    + " but x of shape " + x + " has " + x.dim(a) + " along axis " + a);
        }
        List<Shape> out = new ArrayList<>(sizes.length);
        for (int s : sizes) {
            int[] dims = x.toArray();
            dims[a] = s;
            out.add(Shape.of(dims));
        }
        return out;
    }

    /**
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}
     * @param bias {@code [out]} or null
     * @return {@code [..., out]}
     */
    public static Shape linear(Shape x, Shape weight, Shape bias) {
        if (weight.rank() != 2 || x.rank() < 1 || x.dim(-1) != weight.dim(1)) {
            throw new IllegalArgumentException("linear: argument weight has shape " + weight
                    + " but x has shape " + x + "; weight must be [out, " + (x.rank() < 1 ? "in" : x.dim(-1)) + "]");
        }
        if (bias != null && (bias.rank() != 1 || bias.dim(0) != weight.dim(0))) {
            throw new IllegalArgumentException("linear: argument bias has shape " + bias + " but weight has shape "
                    + weight + "; bias must be [" + weight.dim(0) + "]");
        }
        return x.slice(0, x.rank() - 1).append(weight.dim(0));
    }

    /**
     * The checks of {@code linear} over a bound weight.
     *
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}, or {@code [2·out, in]} when gated
     * @param bias {@code [out]} ({@code [2·out]} when gated) of x's dtype, or null
     * @param epilogue not null; its residual, if any, of the result's shape and x's dtype
     * @return {@code [..., out]}
     */
    public static Shape linear(Tensor x, Weight weight, Tensor bias, Epilogue epilogue) {
        Shape xs = x.shape();
        Shape ws = weight.shape();
        if (xs.rank() < 1 || xs.dim(-1) != ws.dim(1)) {
            throw new IllegalArgumentException("linear: argument weight is " + weight.type() + ws + " but x has shape "
                    + xs + "; weight must be [out, " + (xs.rank() < 1 ? "in" : xs.dim(-1)) + "]");
        }
        boolean f64 = weight.type() == WeightType.F64;
        if (f64 != (x.dtype() == DType.F64)) {
            throw new IllegalArgumentException("linear: argument x " + xs + " is " + x.dtype() + " but weight "
                    + ws + " is " + weight.type() + "; " + (f64 ? "F64 weights meet F64 activations only"
                    : "F64 activations need F64 weights") + ": cast x or bind the weight again");
        }
        if (bias != null && bias.dtype() != x.dtype()) {
            sameDType("linear", "x", x, "bias", bias);
        }
        notNull("linear", "epilogue", epilogue);
        if (epilogue.gated() && ws.dim(0) % 2 != 0) {
            throw new IllegalArgumentException("linear: a gated epilogue needs a weight of [2·out, in] (gate rows, then"
                    + " up rows), but weight is " + weight.type() + ws);
        }
        if (bias != null && (bias.shape().rank() != 1 || bias.shape().dim(0) != ws.dim(0))) {
            throw new IllegalArgumentException("linear: argument bias has shape " + bias.shape() + " but weight has"
                    + " shape " + ws + "; bias must be [" + ws.dim(0) + "]");
        }
        Shape out = xs.slice(0, xs.rank() - 1).append(epilogue.gated() ? ws.dim(0) / 2 : ws.dim(0));
        Tensor residual = epilogue.residual();
        if (residual != null) {
            if (!residual.shape().equals(out)) {
                throw new IllegalArgumentException("linear: argument residual has shape " + residual.shape()
                        + " but the result of x " + xs + " and weight " + ws + " has shape " + out);
            }
            sameDType("linear", "x", x, "residual", residual);
        }
        return out;
    }

    /**
     * The checks of a fused residual add and norm: {@code residual} has {@code x}'s shape and dtype.
     *
     * @param op the op name for the message
     * @param x the input
     * @param residual the tensor added to it
     */
    public static void residual(String op, Tensor x, Tensor residual) {
        if (!residual.shape().equals(x.shape())) {
            throw new IllegalArgumentException(op + ": argument residual has shape " + residual.shape()
                    + " but x has shape " + x.shape() + "; they must be equal");
        }
        sameDType(op, "x", x, "residual", residual);
    }

    /**
     * The checks of {@code packedAttention}.
     *
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}
     * @param heads {@code H}
     * @param kvHeads {@code H_kv}, dividing {@code H}
     * @param options masks broadcast to {@code [B, H, L, L]}; the additive mask has qkv's dtype
     * @return {@code d}, the width of one head
     */
    public static int packedAttention(Tensor qkv, int heads, int kvHeads, AttentionOptions options) {
        String op = "packedAttention";
        if (options == null) {
            throw new IllegalArgumentException(op + ": argument options is null; use AttentionOptions.defaults()");
        }
        Shape s = qkv.shape();
        if (heads < 1 || kvHeads < 1 || heads % kvHeads != 0) {
            throw new IllegalArgumentException(op + ": arguments heads " + heads + " and kvHeads " + kvHeads
                    + " must be positive, and kvHeads must divide heads");
        }
        int slots = heads + 2 * kvHeads;
        if (s.rank() != 3 || s.dim(2) % slots != 0) {
            throw new IllegalArgumentException(op + ": argument qkv has shape " + s + "; it must be [B, L, (H + 2·H_kv)"
                    + "·d] = [B, L, " + slots + "·d] for " + heads + " heads and " + kvHeads + " kv heads");
        }
        Shape weights = Shape.of(s.dim(0), heads, s.dim(1), s.dim(1));
        if (options.keyLength() > s.dim(1)) {
            throw new IllegalArgumentException(op + ": argument keyLength is " + options.keyLength() + " but qkv of"
                    + " shape " + s + " holds " + s.dim(1) + " keys");
        }
        if (options.window() > 0 && !options.causal()) {
            throw new IllegalArgumentException(op + ": argument window is " + options.window()
                    + " but causal is false; a sliding window needs causal attention");
        }
        if (options.mask() != null) {
            broadcastsTo(op, "mask", options.mask().shape(), weights);
        }
        if (options.additiveMask() != null) {
            sameDType(op, "qkv", qkv, "additiveMask", options.additiveMask());
            broadcastsTo(op, "additiveMask", options.additiveMask().shape(), weights);
        }
        return s.dim(2) / slots;
    }

    /**
     * @param x {@code [..., d]}
     * @param gamma {@code [d]} or null
     * @param beta {@code [d]} or null
     * @param eps at least 0
     */
    public static void layerNorm(Shape x, Shape gamma, Shape beta, double eps) {
        if (x.rank() < 1) {
            throw new IllegalArgumentException("layerNorm: argument x is a scalar; it needs a last axis");
        }
        Shape expected = Shape.of(x.dim(-1));
        if (gamma != null && !gamma.equals(expected)) {
            throw new IllegalArgumentException("layerNorm: argument gamma has shape " + gamma + " but x has shape "
                    + x + "; gamma must be " + expected);
        }
        if (beta != null && !beta.equals(expected)) {
            throw new IllegalArgumentException("layerNorm: argument beta has shape " + beta + " but x has shape "
                    + x + "; beta must be " + expected);
        }
        if (!(eps >= 0)) {
            throw new IllegalArgumentException("layerNorm: argument eps is " + eps + "; it must be at least 0");
        }
    }

    /**
     * @param x {@code [..., d]}
     * @param weight {@code [d]} or null
     * @param eps at least 0
     */
    public static void rmsNorm(Shape x, Shape weight, double eps) {
        if (x.rank() < 1) {
            throw new IllegalArgumentException("rmsNorm: argument x is a scalar; it needs a last axis");
        }
        if (weight != null && !weight.equals(Shape.of(x.dim(-1)))) {
            throw new IllegalArgumentException("rmsNorm: argument weight has shape " + weight + " but x has shape "
                    + x + "; weight must be [" + x.dim(-1) + "]");
        }
        if (!(eps >= 0)) {
            throw new IllegalArgumentException("rmsNorm: argument eps is " + eps + "; it must be at least 0");
        }
    }

    /**
     * @param x {@code [..., L, d]} with {@code d} at least the rotated features
     * @param rotary not null
     * @param offset at least 0
     */
    public static void rope(Shape x, RotaryEmbedding rotary, int offset) {
        notNull("rope", "rotary", rotary);
        if (x.rank() < 2) {
            throw new IllegalArgumentException("rope: argument x has shape " + x + "; it must be [..., L, d]");
        }
        if (x.dim(-1) < rotary.dimension()) {
            throw new IllegalArgumentException("rope: argument rotary turns " + rotary.dimension()
                    + " features but x has shape " + x + "; its last axis must hold at least " + rotary.dimension());
        }
        if (offset < 0 || (long) offset + x.dim(-2) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("rope: argument offset is " + offset + " for x of shape " + x
                    + "; it must be at least 0");
        }
    }

    /**
     * @param cap positive and finite
     */
    public static void softcap(double cap) {
        if (!(cap > 0) || Double.isInfinite(cap)) {
            throw new IllegalArgumentException("softcap: argument cap is " + cap + "; it must be positive and finite");
        }
    }

    /**
     * @param target the shape written into
     * @param source the shape written, equal to {@code target} except along {@code axis}
     * @param axis the axis, possibly negative
     * @param offset where the slice starts along {@code axis}
     * @return the axis in {@code [0, rank)}
     */
    public static int writeSlice(Shape target, Shape source, int axis, int offset) {
        int a = axis("writeSlice", target, axis);
        boolean compatible = source.rank() == target.rank();
        for (int i = 0; compatible && i < target.rank(); i++) {
            compatible = i == a || source.dim(i) == target.dim(i);
        }
        if (!compatible) {
            throw new IllegalArgumentException("writeSlice: argument source has shape " + source + " but target has"
                    + " shape " + target + "; they may differ only along axis " + a);
        }
        if (offset < 0 || (long) offset + source.dim(a) > target.dim(a)) {
            throw new IllegalArgumentException("writeSlice: argument offset is " + offset + " but source of shape "
                    + source + " does not fit into target of shape " + target + " along axis " + a + " from there");
        }
        return a;
    }

    /**
     * @param weight {@code [V, d]}
     * @param ids the token ids, each in {@code [0, V)}
     * @param idsShape the shape of {@code ids}
     * @return {@code idsShape + [d]}
     */
    public static Shape embedding(Shape weight, int[] ids, Shape idsShape) {
        if (weight.rank() != 2) {
            throw new IllegalArgumentException("embedding: argument weight has shape " + weight
                    + "; it must be [V, d]");
        }
        dataLength("embedding", ids.length, idsShape);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= weight.dim(0)) {
                throw new IllegalArgumentException("embedding: argument ids[" + i + "] is " + ids[i]
                        + " but weight of shape " + weight + " has ids [0, " + weight.dim(0) + ")");
            }
        }
        return idsShape.append(weight.dim(1));
    }

    /**
     * The dimensions of one attention call.
     *
     * @param batch the leading dims of q (for example {@code [B, H]}), possibly empty
     * @param queries {@code Lq}
     * @param keys {@code Lk}
     * @param keyDim {@code d_k}
     * @param valueDim {@code d_v}
     * @param groupSize query heads per key/value head: 1, or {@code H / H_kv} for grouped-query attention, where
     *     k and v have {@code H_kv} heads on axis -3
     */
    public record AttentionShape(Shape batch, int queries, int keys, int keyDim, int valueDim, int groupSize) {

        /**
         * Without grouped queries.
         *
         * @param batch the leading dims shared by q, k and v
         * @param queries {@code Lq}
         * @param keys {@code Lk}
         * @param keyDim {@code d_k}
         * @param valueDim {@code d_v}
         */
        public AttentionShape(Shape batch, int queries, int keys, int keyDim, int valueDim) {
            this(batch, queries, keys, keyDim, valueDim, 1);
        }

        /** @return the number of independent (batch × head) problems */
        public int problems() {
            return (int) batch.size();
        }

        /**
         * @param problem a (batch × query head) index
         * @return the (batch × key/value head) index whose keys and values it reads: {@code problem / groupSize}
         */
        public int kvProblem(int problem) {
            return problem / groupSize;
        }

        /** @return {@code [..., Lq, Lk]} */
        public Shape weights() {
            return batch.append(queries, keys);
        }

        /** @return {@code [..., Lq, d_v]} */
        public Shape output() {
            return batch.append(queries, valueDim);
        }
    }

    /**
     * @param q {@code [..., Lq, d_k]}
     * @param k {@code [..., Lk, d_k]}
     * @param v {@code [..., Lk, d_v]}
     * @param options masks must broadcast to {@code [..., Lq, Lk]}; the additive mask shares q's dtype
     * @return the call's dimensions
     */
    public static AttentionShape attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("attention: argument options is null; use AttentionOptions.defaults()");
        }
        Shape qs = q.shape();
        Shape ks = k.shape();
        Shape vs = v.shape();
        if (qs.rank() < 2 || ks.rank() != qs.rank() || vs.rank() != qs.rank()) {
            throw new IllegalArgumentException("attention: arguments q " + qs + ", k " + ks + " and v " + vs
                    + " must have one rank of at least 2 ([..., L, d])");
        }
        Shape batch = qs.slice(0, qs.rank() - 2);
        int groupSize = 1;
        if (!ks.slice(0, ks.rank() - 2).equals(batch) || !vs.slice(0, vs.rank() - 2).equals(batch)) {
            boolean grouped = qs.rank() >= 3 && ks.slice(0, ks.rank() - 2).equals(vs.slice(0, vs.rank() - 2))
                    && ks.slice(0, ks.rank() - 3).equals(qs.slice(0, qs.rank() - 3))
                    && qs.dim(-3) % ks.dim(-3) == 0;
            if (!grouped) {
                throw new IllegalArgumentException("attention: arguments q " + qs + ", k " + ks + " and v " + vs
                        + " must share their leading (batch, head) dims, except that k and v may have fewer heads"
                        + " (axis -3) than q when that number divides q's (grouped-query attention)");
            }
            groupSize = qs.dim(-3) / ks.dim(-3);
        }
        if (ks.dim(-1) != qs.dim(-1)) {
            throw new IllegalArgumentException("attention: argument k has shape " + ks + " but q has shape " + qs
                    + "; their last dims (d_k) must match");
        }
        if (vs.dim(-2) != ks.dim(-2)) {
            throw new IllegalArgumentException("attention: argument v has shape " + vs + " but k has shape " + ks
                    + "; they need the same number of keys");
        }
        sameDType("attention", "q", q, "k", k, "v", v, "additiveMask", options.additiveMask());
        if (options.window() > 0 && !options.causal()) {
            throw new IllegalArgumentException("attention: argument window is " + options.window()
                    + " but causal is false; a sliding window needs causal attention");
        }
        if (options.keyLength() > ks.dim(-2)) {
            throw new IllegalArgumentException("attention: argument keyLength is " + options.keyLength()
                    + " but k of shape " + ks + " holds " + ks.dim(-2) + " keys");
        }
        AttentionShape shape = new AttentionShape(batch, qs.dim(-2), ks.dim(-2), qs.dim(-1), vs.dim(-1), groupSize);
        if (options.mask() != null) {
            broadcastsTo("attention", "mask", options.mask().shape(), shape.weights());
        }
        if (options.additiveMask() != null) {
            broadcastsTo("attention", "additiveMask", options.additiveMask().shape(), shape.weights());
        }
        return shape;
    }

    /**
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param from the shape to broadcast
     * @param to the target shape
     * @throws IllegalArgumentException unless {@code from} broadcasts to exactly {@code to}
     */
    public static void broadcastsTo(String op, String argument, Shape from, Shape to) {
        boolean ok = from.rank() <= to.rank();
        for (int i = 1; ok && i <= from.rank(); i++) {
            ok = from.dim(-i) == 1 || from.dim(-i) == to.dim(-i);
        }
        if (!ok) {
            throw new IllegalArgumentException(op + ": argument " + argument + " has shape " + from
                    + " which does not broadcast to " + to);
        }
    }
}
