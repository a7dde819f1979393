package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;

/**
 * The validation template of {@link Ops}: each op of the interface is final here and validates its call in one
 * place, then hands the backend's compute method operands it can trust. Validation, in this order:
 * <ol>
 *   <li>every tensor operand is open, not null, and this backend's own tensor type ({@link AbstractScope#operand});
 *       the scope is open;</li>
 *   <li>every other argument that may not be null is not null;</li>
 *   <li>the operands share one dtype ({@link ShapeChecks#sameDType});</li>
 *   <li>the shapes fit, and the result shape is computed ({@link ShapeChecks}); axes are normalised to
 *       {@code [0, rank)}.</li>
 * </ol>
 * Each failure throws the {@link IllegalArgumentException} or {@link IllegalStateException} that names the op, the
 * argument and the shapes, so every backend built on this class rejects the same calls with the same messages.
 * A compute method runs only after all checks passed; it allocates its result in {@link #scope()}.
 *
 * <p>Each op, from before its first check until its compute method returns, is an op in flight on the calling
 * thread: its operands and the tensors it creates are pinned, so closing their scope on another thread in the
 * middle of it cannot free memory the op still reads (see {@link AbstractTensor}); the op either completes on the
 * data it pinned or throws {@link IllegalStateException}. A backend hands out these ops from
 * {@link Scope#ops()} as they are.
 *
 * @param <T> the backend's tensor type
 */
public abstract class AbstractOps<T extends AbstractTensor> implements Ops {

    /** The four broadcasting arithmetic ops. */
    public enum Binary {
        /** {@code a + b}. */
        ADD,
        /** {@code a - b}. */
        SUB,
        /** {@code a · b}. */
        MUL,
        /** {@code a / b}. */
        DIV;

        private final String op = name().toLowerCase(Locale.ROOT);

        /** @return the op's name as {@link Ops} spells it, for messages */
        public String op() {
            return op;
        }
    }

    /** The four reductions over one axis. */
    public enum Reduction {
        /** The maximum, NaN if any element is NaN. */
        MAX,
        /** The sum. */
        SUM,
        /** The mean. */
        MEAN,
        /** The population variance, divided by N. */
        VARIANCE;

        private final String op = name().toLowerCase(Locale.ROOT);

        /** @return the op's name as {@link Ops} spells it, for messages */
        public String op() {
            return op;
        }
    }

    private final AbstractScope scope;
    private final Class<T> tensorType;

    /**
     * @param scope the scope that owns every result
     * @param tensorType the backend's tensor class; operands of any other class are rejected
     */
    protected AbstractOps(AbstractScope scope, Class<T> tensorType) {
        this.scope = scope;
        this.tensorType = tensorType;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    /**
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param tensor an operand
     * @return the operand as this backend's tensor type
     * @throws IllegalArgumentException if it is null or belongs to another backend
     * @throws IllegalStateException if it or the scope is closed
     */
    protected final T operand(String op, String argument, Tensor tensor) {
        return scope.operand(op, argument, tensor, tensorType);
    }

    private T optional(String op, String argument, Tensor tensor) {
        return tensor == null ? null : operand(op, argument, tensor);
    }

    /**
     * Runs one op's checks and compute method as an op in flight on this thread ({@link InFlight}): every operand
     * and every tensor created until it returns stays pinned, so a scope closed on another thread meanwhile frees
     * nothing the op still reads or writes. Ops nest (a compute method may call other ops); the outermost one
     * names the running op ({@link AbstractScope#runningOp}) and lets go of the pins when it returns or throws.
     */
    private static <R> R inFlight(String op, Supplier<R> body) {
        InFlight.enter(op);
        try {
            return body.get();
        } finally {
            InFlight.exit();
        }
    }

    private static Shape shapeOf(Tensor t) {
        return t == null ? null : t.shape();
    }

    @Override
    public final Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
        return inFlight("matmul", () -> {
            T x = operand("matmul", "a", a);
            T y = operand("matmul", "b", b);
            ShapeChecks.sameDType("matmul", "a", x, "b", y);
            Shape out = ShapeChecks.matmul(x.shape(), y.shape(), transposeA, transposeB);
            return computeMatmul(x, y, transposeA, transposeB, out);
        });
    }

    /**
     * @param a {@code [..., m, k]} (or {@code [..., k, m]} transposed)
     * @param b {@code [..., k, n]} (or {@code [..., n, k]} transposed), same dtype
     * @param transposeA whether {@code a} is used transposed
     * @param transposeB whether {@code b} is used transposed
     * @param out {@code [broadcast batch..., m, n]}
     * @return {@code a·b}
     */
    protected abstract Tensor computeMatmul(T a, T b, boolean transposeA, boolean transposeB, Shape out);

    @Override
    public final Tensor add(Tensor a, Tensor b) {
        return binary(Binary.ADD, a, b);
    }

    @Override
    public final Tensor sub(Tensor a, Tensor b) {
        return binary(Binary.SUB, a, b);
    }

    @Override
    public final Tensor mul(Tensor a, Tensor b) {
        return binary(Binary.MUL, a, b);
    }

    @Override
    public final Tensor div(Tensor a, Tensor b) {
        return binary(Binary.DIV, a, b);
    }

    private Tensor binary(Binary kind, Tensor a, Tensor b) {
        String op = kind.op();
        return inFlight(op, () -> {
            T x = operand(op, "a", a);
            T y = operand(op, "b", b);
            ShapeChecks.sameDType(op, "a", x, "b", y);
            return computeBinary(kind, x, y, ShapeChecks.broadcast(op, x.shape(), y.shape()));
        });
    }

    /**
     * @param kind which op
     * @param a the first operand
     * @param b the second operand, same dtype, broadcastable against {@code a}
     * @param out the broadcast shape
     * @return {@code a kind b}, elementwise
     */
    protected abstract Tensor computeBinary(Binary kind, T a, T b, Shape out);

    @Override
    public final Tensor scale(Tensor x, double factor) {
        return inFlight("scale", () -> computeScale(operand("scale", "x", x), factor));
    }

    /**
     * @param x any shape
     * @param factor the factor
     * @return {@code x · factor}
     */
    protected abstract Tensor computeScale(T x, double factor);

    @Override
    public final Tensor exp(Tensor x) {
        return inFlight("exp", () -> computeExp(operand("exp", "x", x)));
    }

    /**
     * @param x any shape
     * @return {@code e^x}, elementwise
     */
    protected abstract Tensor computeExp(T x);

    @Override
    public final Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.MAX, x, axis, keepDims);
    }

    @Override
    public final Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.SUM, x, axis, keepDims);
    }

    @Override
    public final Tensor mean(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.MEAN, x, axis, keepDims);
    }

    @Override
    public final Tensor variance(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.VARIANCE, x, axis, keepDims);
    }

    private Tensor reduce(Reduction kind, Tensor x, int axis, boolean keepDims) {
        String op = kind.op();
        return inFlight(op, () -> {
            T t = operand(op, "x", x);
            Shape out = ShapeChecks.reduce(op, t.shape(), axis, keepDims);
            return computeReduce(kind, t, ShapeChecks.axis(op, t.shape(), axis), keepDims, out);
        });
    }

    /**
     * @param kind which reduction
     * @param x rank at least 1
     * @param axis the reduced axis, in {@code [0, rank)}
     * @param keepDims whether the axis stays with size 1
     * @param out the reduced shape
     * @return the reduction
     */
    protected abstract Tensor computeReduce(Reduction kind, T x, int axis, boolean keepDims, Shape out);

    @Override
    public final Tensor softmax(Tensor x, int axis) {
        return inFlight("softmax", () -> {
            T t = operand("softmax", "x", x);
            return computeSoftmax(t, ShapeChecks.axis("softmax", t.shape(), axis));
        });
    }

    /**
     * @param x rank at least 1
     * @param axis the axis along which the result sums to 1, in {@code [0, rank)}
     * @return the softmax; a slice of all {@code -∞} gives zeros
     */
    protected abstract Tensor computeSoftmax(T x, int axis);

    @Override
    public final Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
        return inFlight("layerNorm", () -> {
            T t = operand("layerNorm", "x", x);
            T g = optional("layerNorm", "gamma", gamma);
            T b = optional("layerNorm", "beta", beta);
            ShapeChecks.sameDType("layerNorm", "x", t, "gamma", g, "beta", b);
            ShapeChecks.layerNorm(t.shape(), shapeOf(g), shapeOf(b), eps);
            return computeLayerNorm(t, g, b, eps);
        });
    }

    /**
     * @param x {@code [..., d]}
     * @param gamma {@code [d]} or null, same dtype
     * @param beta {@code [d]} or null, same dtype
     * @param eps at least 0
     * @return the normalised {@code [..., d]}
     */
    protected abstract Tensor computeLayerNorm(T x, T gamma, T beta, double eps);

    @Override
    public final Tensor layerNorm(Tensor x, Tensor residual, Tensor gamma, Tensor beta, double eps) {
        return inFlight("layerNorm", () -> {
            T t = operand("layerNorm", "x", x);
            T r = operand("layerNorm", "residual", residual);
            T g = optional("layerNorm", "gamma", gamma);
            T b = optional("layerNorm", "beta", beta);
            ShapeChecks.residual("layerNorm", t, r);
            ShapeChecks.sameDType("layerNorm", "x", t, "gamma", g, "beta", b);
            ShapeChecks.layerNorm(t.shape(), shapeOf(g), shapeOf(b), eps);
            return computeLayerNorm(t, r, g, b, eps);
        });
    }

    /**
     * {@code layerNorm(x + residual)} in one pass; the default adds in a scope of its own, then normalises.
     *
     * @param x {@code [..., d]}
     * @param residual x's shape and dtype
     * @param gamma {@code [d]} or null
     * @param beta {@code [d]} or null
     * @param eps at least 0
     * @return {@code [..., d]}
     */
    protected Tensor computeLayerNorm(T x, T residual, T gamma, T beta, double eps) {
        try (Scope work = scope.backend().newScope()) {
            return layerNorm(work.ops().add(x, residual), gamma, beta, eps);
        }
    }

    @Override
    public final Tensor relu(Tensor x) {
        return inFlight("relu", () -> computeRelu(operand("relu", "x", x)));
    }

    /**
     * @param x any shape
     * @return {@code max(x, 0)}, NaN kept
     */
    protected abstract Tensor computeRelu(T x);

    @Override
    public final Tensor gelu(Tensor x, GeluApproximation approximation) {
        return inFlight("gelu", () -> {
            T t = operand("gelu", "x", x);
            ShapeChecks.notNull("gelu", "approximation", approximation);
            return computeGelu(t, approximation);
        });
    }

    /**
     * @param x any shape
     * @param approximation not null
     * @return {@code gelu(x)}
     */
    protected abstract Tensor computeGelu(T x, GeluApproximation approximation);

    @Override
    public final Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        return inFlight("linear", () -> {
            T t = operand("linear", "x", x);
            T w = operand("linear", "weight", weight);
            T b = optional("linear", "bias", bias);
            ShapeChecks.sameDType("linear", "x", t, "weight", w, "bias", b);
            Shape out = ShapeChecks.linear(t.shape(), w.shape(), shapeOf(b));
            return computeLinear(t, w, b, out);
        });
    }

    /**
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}, same dtype
     * @param bias {@code [out]} or null, same dtype
     * @param out {@code [..., out]}
     * @return {@code x·weightᵀ + bias}
     */
    protected abstract Tensor computeLinear(T x, T weight, T bias, Shape out);

    @Override
    public final Tensor linear(Tensor x, Weight weight, Tensor bias, Epilogue epilogue) {
        return inFlight("linear", () -> {
            T t = operand("linear", "x", x);
            AbstractWeight w = scope.weightOperand("linear", "weight", weight);
            T b = optional("linear", "bias", bias);
            T r = epilogue == null ? null : optional("linear", "residual", epilogue.residual());
            Shape out = ShapeChecks.linear(t, w, b, epilogue);
            if (w instanceof Int8Weight iw) {
                return computeLinear(t, iw, b, epilogue, r, out);
            }
            return computeLinear(t, w, b, epilogue, r, out);
        });
    }

    /**
     * The linear map over an {@link org.attn4j.api.WeightType#I8} weight in integer arithmetic, as
     * {@link Ops#linear(Tensor, Weight, Tensor, Epilogue)} states it, with its epilogue. The default copies
     * {@code x} to the host, quantizes it one sequence at a time ({@link DynamicQuantization},
     * {@link DynamicQuantization#sequenceRows}), takes each exact int32 product
     * ({@link Int8Weight#dot}), scales it and adds the bias there, and composes the epilogue
     * ({@link ReferenceOps#epilogue}); a backend overrides it with a kernel that computes the same numbers.
     *
     * @param x {@code [..., in]}, F32
     * @param weight {@code [out, in]} ({@code [2·out, in]} when gated)
     * @param bias {@code [out]} ({@code [2·out]}), F32, or null
     * @param epilogue the activation, gate and residual
     * @param residual the epilogue's residual as this backend's tensor, of {@code out}'s shape, or null
     * @param out {@code [..., out]}
     * @return {@code act(x·Wᵀ + b) (⊙ up) + residual}
     */
    protected Tensor computeLinear(T x, Int8Weight weight, T bias, Epilogue epilogue, T residual, Shape out) {
        int in = weight.shape().dim(1);
        int features = weight.shape().dim(0);
        int rows = Math.toIntExact(x.shape().size() / in);
        DynamicQuantization a = DynamicQuantization.of("linear", x.toFloatArray(), in,
                DynamicQuantization.sequenceRows(x.shape()));
        float[] b = bias == null ? null : bias.toFloatArray();
        float[] scales = weight.scales();
        float[] y = new float[Math.multiplyExact(rows, features)];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < features; j++) {
                float v = a.dequantize(weight.dot(a, i, j), i, scales[j]);
                y[i * features + j] = b == null ? v : v + b[j];
            }
        }
        Shape product = out.slice(0, out.rank() - 1).append(features);
        return ReferenceOps.epilogue(this, scope.tensor(y, product), epilogue);
    }

    /**
     * The linear map over a bound weight with its epilogue. The default runs {@link #linear(Tensor, Tensor, Tensor)}
     * over a {@link TensorWeight}'s values and composes the epilogue ({@link ReferenceOps#epilogue}); a backend that
     * creates weights of its own class ({@link AbstractScope#createWeight}) overrides this.
     *
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]} ({@code [2·out, in]} when gated), of a type that meets x's dtype
     * @param bias {@code [out]} ({@code [2·out]}) of x's dtype, or null
     * @param epilogue the activation, gate and residual
     * @param residual the epilogue's residual as this backend's tensor, of {@code out}'s shape, or null
     * @param out {@code [..., out]}
     * @return {@code act(x·Wᵀ + b) (⊙ up) + residual}
     */
    protected Tensor computeLinear(T x, AbstractWeight weight, T bias, Epilogue epilogue, T residual, Shape out) {
        return ReferenceOps.epilogue(this, linear(x, values("linear", weight), bias), epilogue);
    }

    /**
     * @param op the op name for the message
     * @param weight a weight of this backend
     * @return the values of a {@link TensorWeight}
     * @throws IllegalStateException if the backend made weights of another class but left a default weight op
     */
    private Tensor values(String op, AbstractWeight weight) {
        if (weight instanceof TensorWeight tw) {
            return tw.tensor();
        }
        throw new IllegalStateException(op + ": backend " + scope.backend().name() + " creates weights of "
                + weight.getClass().getName() + " but does not override AbstractOps.compute" + Character.toUpperCase(
                op.charAt(0)) + op.substring(1) + " for them");
    }

    @Override
    public final Tensor embedding(Weight table, int[] ids, Shape idsShape) {
        return inFlight("embedding", () -> {
            AbstractWeight w = scope.weightOperand("embedding", "table", table);
            ShapeChecks.notNull("embedding", "ids", ids);
            ShapeChecks.notNull("embedding", "idsShape", idsShape);
            Shape out = ShapeChecks.embedding(w.shape(), ids, idsShape);
            if (w instanceof Int8Weight) {
                int d = w.shape().dim(1);
                float[] values = w.toFloatArray();
                float[] rows = new float[Math.multiplyExact(ids.length, d)];
                for (int i = 0; i < ids.length; i++) {
                    System.arraycopy(values, ids[i] * d, rows, i * d, d);
                }
                return scope.tensor(rows, out);
            }
            return computeEmbedding(w, ids, idsShape, out);
        });
    }

    /**
     * Gathers rows of a bound table. The default gathers from a {@link TensorWeight}'s values; a backend that
     * creates weights of its own class overrides this.
     *
     * @param table {@code [V, d]}
     * @param ids ids in {@code [0, V)}, checked
     * @param idsShape their shape
     * @param out {@code idsShape + [d]}
     * @return the rows, F64 for an F64 table, else F32
     */
    protected Tensor computeEmbedding(AbstractWeight table, int[] ids, Shape idsShape, Shape out) {
        return embedding(values("embedding", table), ids, idsShape);
    }

    @Override
    public final Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
        return inFlight("embedding", () -> {
            T w = operand("embedding", "weight", weight);
            ShapeChecks.notNull("embedding", "ids", ids);
            ShapeChecks.notNull("embedding", "idsShape", idsShape);
            Shape out = ShapeChecks.embedding(w.shape(), ids, idsShape);
            return computeEmbedding(w, ids, out);
        });
    }

    /**
     * @param weight {@code [V, d]}
     * @param ids token ids, each in {@code [0, V)}; not to be modified
     * @param out {@code idsShape + [d]}
     * @return the gathered rows
     */
    protected abstract Tensor computeEmbedding(T weight, int[] ids, Shape out);

    @Override
    public final Tensor reshape(Tensor x, int... shape) {
        return inFlight("reshape", () -> {
            T t = operand("reshape", "x", x);
            ShapeChecks.notNull("reshape", "shape", shape);
            return computeReshape(t, ShapeChecks.reshape(t.shape(), shape));
        });
    }

    /**
     * @param x any shape
     * @param out a shape of the same size
     * @return {@code x}'s elements in the same order under {@code out}
     */
    protected abstract Tensor computeReshape(T x, Shape out);

    @Override
    public final Tensor permute(Tensor x, int... axes) {
        return inFlight("permute", () -> {
            T t = operand("permute", "x", x);
            ShapeChecks.notNull("permute", "axes", axes);
            Shape out = ShapeChecks.permute(t.shape(), axes);
            int[] normalized = new int[axes.length];
            for (int i = 0; i < axes.length; i++) {
                normalized[i] = axes[i] < 0 ? axes[i] + axes.length : axes[i];
            }
            return keepsOrder(t.shape(), normalized) ? computeReshape(t, out) : computePermute(t, normalized, out);
        });
    }

    /**
     * @return whether the axes longer than one keep their order under {@code axes}: the permutation then moves only
     *     axes of length one (the heads of a one-token step, {@code [B, 1, H, d]} to {@code [B, H, 1, d]}) and leaves
     *     the row-major order of the elements as it is, so it is a reshape
     */
    private static boolean keepsOrder(Shape shape, int[] axes) {
        int last = -1;
        for (int axis : axes) {
            if (shape.dim(axis) != 1) {
                if (axis < last) {
                    return false;
                }
                last = axis;
            }
        }
        return true;
    }

    /**
     * Called for the permutations that change the order of the elements; one that moves only axes of length one
     * (or none) is handed to {@link #computeReshape} instead.
     *
     * @param x rank r
     * @param axes a permutation of {@code 0..r-1}, none negative, that moves an axis longer than one past another
     * @param out the permuted shape
     * @return the permuted tensor, contiguous
     */
    protected abstract Tensor computePermute(T x, int[] axes, Shape out);

    @Override
    public final Tensor concat(List<Tensor> parts, int axis) {
        return inFlight("concat", () -> {
            ShapeChecks.notNull("concat", "parts", parts);
            List<T> ts = new ArrayList<>(parts.size());
            List<Shape> shapes = new ArrayList<>(parts.size());
            Object[] named = new Object[2 * parts.size()];
            for (int i = 0; i < parts.size(); i++) {
                T t = operand("concat", "parts[" + i + "]", parts.get(i));
                ts.add(t);
                shapes.add(t.shape());
                named[2 * i] = "parts[" + i + "]";
                named[2 * i + 1] = t;
            }
            Shape out = ShapeChecks.concat(shapes, axis);
            ShapeChecks.sameDType("concat", named);
            return computeConcat(ts, ShapeChecks.axis("concat", out, axis), out);
        });
    }

    /**
     * @param parts at least one, same dtype, shapes equal except along {@code axis}
     * @param axis the axis to join along, in {@code [0, rank)}
     * @param out the joined shape
     * @return the parts joined in order
     */
    protected abstract Tensor computeConcat(List<T> parts, int axis, Shape out);

    @Override
    public final List<Tensor> split(Tensor x, int[] sizes, int axis) {
        return inFlight("split", () -> {
            T t = operand("split", "x", x);
            ShapeChecks.notNull("split", "sizes", sizes);
            List<Shape> shapes = ShapeChecks.split(t.shape(), sizes, axis);
            return computeSplit(t, ShapeChecks.axis("split", t.shape(), axis), shapes);
        });
    }

    /**
     * @param x any shape
     * @param axis the axis to cut, in {@code [0, rank)}
     * @param pieces the shapes of the consecutive pieces along {@code axis}
     * @return one tensor per piece, in order
     */
    protected abstract List<Tensor> computeSplit(T x, int axis, List<Shape> pieces);

    @Override
    public final Tensor cast(Tensor x, DType dtype) {
        return inFlight("cast", () -> {
            T t = operand("cast", "x", x);
            ShapeChecks.notNull("cast", "dtype", dtype);
            return computeCast(t, dtype);
        });
    }

    /**
     * @param x any shape
     * @param dtype not null
     * @return {@code x} converted, rounded to nearest when narrowing
     */
    protected abstract Tensor computeCast(T x, DType dtype);

    @Override
    public final Tensor dropout(Tensor x, double p, long seed) {
        return inFlight("dropout", () -> {
            T t = operand("dropout", "x", x);
            Dropout.checkProbability("dropout", p);
            return computeDropout(t, p, seed);
        });
    }

    /**
     * @param x any shape
     * @param p in {@code [0, 1]}
     * @param seed the mask's seed
     * @return {@code x} with the {@link Dropout} mask applied and survivors scaled by {@link Dropout#survivorScale}
     */
    protected abstract Tensor computeDropout(T x, double p, long seed);

    @Override
    public final Tensor additiveMask(Mask mask, DType dtype) {
        return inFlight("additiveMask", () -> {
            scope.checkOpen("additiveMask");
            ShapeChecks.notNull("additiveMask", "mask", mask);
            ShapeChecks.notNull("additiveMask", "dtype", dtype);
            return computeAdditiveMask(mask, dtype);
        });
    }

    /**
     * @param mask not null
     * @param dtype not null
     * @return {@code 0} where the mask allows, {@code -∞} where not, shaped like the mask
     */
    protected abstract Tensor computeAdditiveMask(Mask mask, DType dtype);

    @Override
    public final Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return inFlight("rmsNorm", () -> {
            T t = operand("rmsNorm", "x", x);
            T w = optional("rmsNorm", "weight", weight);
            ShapeChecks.sameDType("rmsNorm", "x", t, "weight", w);
            ShapeChecks.rmsNorm(t.shape(), shapeOf(w), eps);
            return computeRmsNorm(t, w, eps);
        });
    }

    /**
     * This default composes the primitives ({@link ReferenceOps#rmsNorm}).
     *
     * @param x {@code [..., d]}
     * @param weight {@code [d]} or null, same dtype
     * @param eps at least 0
     * @return {@code x / sqrt(mean(x²) + eps) · weight}
     */
    protected Tensor computeRmsNorm(T x, T weight, double eps) {
        return ReferenceOps.rmsNorm(this, x, weight, eps);
    }

    @Override
    public final Tensor rmsNorm(Tensor x, Tensor residual, Tensor weight, double eps) {
        return inFlight("rmsNorm", () -> {
            T t = operand("rmsNorm", "x", x);
            T r = operand("rmsNorm", "residual", residual);
            T w = optional("rmsNorm", "weight", weight);
            ShapeChecks.residual("rmsNorm", t, r);
            ShapeChecks.sameDType("rmsNorm", "x", t, "weight", w);
            ShapeChecks.rmsNorm(t.shape(), shapeOf(w), eps);
            return computeRmsNorm(t, r, w, eps);
        });
    }

    /**
     * {@code rmsNorm(x + residual)} in one pass; the default adds in a scope of its own, then normalises.
     *
     * @param x {@code [..., d]}
     * @param residual x's shape and dtype
     * @param weight {@code [d]} or null
     * @param eps at least 0
     * @return {@code [..., d]}
     */
    protected Tensor computeRmsNorm(T x, T residual, T weight, double eps) {
        try (Scope work = scope.backend().newScope()) {
            return rmsNorm(work.ops().add(x, residual), weight, eps);
        }
    }

    @Override
    public final Tensor silu(Tensor x) {
        return inFlight("silu", () -> computeSilu(operand("silu", "x", x)));
    }

    /**
     * This default composes the primitives ({@link ReferenceOps#silu}).
     *
     * @param x any shape
     * @return {@code x / (1 + e^-x)}
     */
    protected Tensor computeSilu(T x) {
        return ReferenceOps.silu(this, x);
    }

    /** Builds {@code RotaryEmbedding.of(layout, base, d)} after the checks of {@link Ops}'s default. */
    @Override
    public final Tensor rope(Tensor x, RopeLayout layout, double base, int offset) {
        return Ops.super.rope(x, layout, base, offset);
    }

    @Override
    public final Tensor rope(Tensor x, RotaryEmbedding rotary, int offset) {
        return inFlight("rope", () -> {
            T t = operand("rope", "x", x);
            ShapeChecks.rope(t.shape(), rotary, offset);
            return computeRope(t, rotary, offset);
        });
    }

    /**
     * This default composes the primitives ({@link ReferenceOps#rope}).
     *
     * @param x {@code [..., L, d]} with {@code d >= rotary.dimension()}
     * @param rotary not null
     * @param offset at least 0
     * @return the rotated {@code [..., L, d]}, features past {@code rotary.dimension()} unchanged
     */
    protected Tensor computeRope(T x, RotaryEmbedding rotary, int offset) {
        return ReferenceOps.rope(this, x, rotary, offset);
    }

    @Override
    public final Tensor softcap(Tensor x, double cap) {
        return inFlight("softcap", () -> {
            T t = operand("softcap", "x", x);
            ShapeChecks.softcap(cap);
            return computeSoftcap(t, cap);
        });
    }

    /**
     * This default ({@link ReferenceOps#softcap}) copies {@code x} to the host, computes {@code cap·tanh(x/cap)} in
     * double precision and copies the result back: exact to a rounding in every dtype, F32-only backends included; a
     * backend overrides it to keep the values where they live.
     *
     * @param x any shape
     * @param cap positive and finite
     * @return {@code cap · tanh(x / cap)}
     */
    protected Tensor computeSoftcap(T x, double cap) {
        return ReferenceOps.softcap(this, x, cap);
    }

    @Override
    public final Tensor writeSlice(Tensor target, Tensor source, int axis, int offset) {
        return inFlight("writeSlice", () -> {
            T t = operand("writeSlice", "target", target);
            T s = operand("writeSlice", "source", source);
            ShapeChecks.sameDType("writeSlice", "target", t, "source", s);
            int a = ShapeChecks.writeSlice(t.shape(), s.shape(), axis, offset);
            return computeWriteSlice(t, s, a, offset);
        });
    }

    /**
     * This default builds a new tensor ({@link ReferenceOps#writeSlice}); a backend may write in place.
     *
     * @param target {@code [..., n, ...]}
     * @param source like {@code target} except along {@code axis}, same dtype
     * @param axis the axis, in {@code [0, rank)}
     * @param offset the slice's start; {@code offset + source.dim(axis) <= n}
     * @return {@code target} written in place, or a new tensor
     */
    protected Tensor computeWriteSlice(T target, T source, int axis, int offset) {
        return ReferenceOps.writeSlice(this, target, source, axis, offset);
    }

    @Override
    public final AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        return inFlight("attention", () -> {
            T tq = operand("attention", "q", q);
            T tk = operand("attention", "k", k);
            T tv = operand("attention", "v", v);
            ShapeChecks.notNull("attention", "options", options);
            T additive = optional("attention", "additiveMask", options.additiveMask());
            ShapeChecks.AttentionShape shape = ShapeChecks.attention(tq, tk, tv, options);
            return computeAttention(tq, tk, tv, additive, options, shape);
        });
    }

    /**
     * Attention after every check of {@link ShapeChecks#attention}. This default composes the primitives
     * ({@link ReferenceAttention}); a backend with a fused kernel overrides it and declares
     * {@link org.attn4j.api.Capabilities.Feature#FUSED_ATTENTION}.
     *
     * @param q {@code [..., Lq, d_k]}
     * @param k {@code [..., Lk, d_k]}
     * @param v {@code [..., Lk, d_v]}
     * @param additiveMask {@code options.additiveMask()} as this backend's tensor, or null
     * @param options masks, scale, dropout and returned weights; not null
     * @param shape the call's dimensions
     * @return output {@code [..., Lq, d_v]} and, if asked, weights {@code [..., Lq, Lk]}
     */
    protected AttentionResult computeAttention(T q, T k, T v, T additiveMask, AttentionOptions options,
                                               ShapeChecks.AttentionShape shape) {
        return ReferenceAttention.compute(this, q, k, v, options);
    }

    @Override
    public final AttentionResult packedAttention(Tensor qkv, int heads, int kvHeads, AttentionOptions options) {
        return inFlight("packedAttention", () -> {
            T t = operand("packedAttention", "qkv", qkv);
            T mask = options == null ? null : optional("packedAttention", "additiveMask", options.additiveMask());
            int headDim = ShapeChecks.packedAttention(t, heads, kvHeads, options);
            return computePackedAttention(t, heads, kvHeads, headDim, mask, options);
        });
    }

    /**
     * Attention over a packed projection after every check of {@link ShapeChecks#packedAttention}. The default cuts
     * q, k and v out of {@code qkv} in a scope of its own and runs {@link #attention} on them.
     *
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}
     * @param heads {@code H}
     * @param kvHeads {@code H_kv}, dividing {@code H}
     * @param headDim {@code d}
     * @param additiveMask {@code options.additiveMask()} as this backend's tensor, or null
     * @param options masks, scale, dropout and returned weights; not null
     * @return output {@code [B, L, H·d]} and, if asked, weights {@code [B, H, L, L]}
     */
    protected AttentionResult computePackedAttention(T qkv, int heads, int kvHeads, int headDim, T additiveMask,
                                                     AttentionOptions options) {
        return ReferenceOps.packedAttention(this, qkv, heads, kvHeads, headDim, options);
    }
}
