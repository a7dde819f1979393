package org.attn4j.backend.nd4j;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.function.LongUnaryOperator;
import org.attn4j.api.Activation;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.Dropout;
import org.nd4j.linalg.api.blas.params.MMulTranspose;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.reduce.Mmul;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.DivOp;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Erfc;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Swish;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;

/** The computations several ops share, on ND4J arrays, with attn4j's semantics where ND4J's differ. */
final class Kernels {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double SQRT_TWO_OVER_PI = Math.sqrt(2.0 / Math.PI);
    private static final double GELU_TANH_CUBIC = 0.044715;

    private Kernels() {
    }

    /**
     * {@code z = alpha · op(x)·op(y)} with libnd4j's batched matmul (OpenBLAS GEMM per batch item).
     *
     * @param x {@code [..., m, k]} ({@code [..., k, m]} if {@code transposeX}); not modified
     * @param y {@code [..., k, n]} ({@code [..., n, k]} if {@code transposeY}), same batch dims; not modified
     * @param z {@code [..., m, n]}; modified (overwritten)
     * @param transposeX use {@code xᵀ}
     * @param transposeY use {@code yᵀ}
     * @param alpha the factor applied to the product
     */
    static void matmul(INDArray x, INDArray y, INDArray z, boolean transposeX, boolean transposeY, double alpha) {
        MMulTranspose transpose = MMulTranspose.builder().transposeA(transposeX).transposeB(transposeY).build();
        Nd4j.exec(new Mmul(x, y, z, alpha, 0.0, transpose));
    }

    /**
     * An activation in place, in few native calls:
     * <pre>
     *   RELU       max(z, 0), NaN kept                                   libnd4j's relu
     *   GELU       z/2 · erfc(-z/√2)                                     a scaled copy, erfc, two multiplies
     *   GELU_TANH  z · σ(2√(2/π)·(z + 0.044715·z³))  (= z/2·(1 + tanh(…)))   a cube, three scalar ops, σ, a multiply
     *   SILU       z · σ(z)                                              libnd4j's swish
     * </pre>
     * The erfc form of GELU keeps the relative precision of its tiny results for large negative z, which
     * {@code 1 + erf} loses to cancellation, and so does the σ form of the tanh approximation. libnd4j's own
     * {@code PreciseGELU} is not used: it cubes {@code 0.044715·z} instead of {@code z} (−0.0247 for z = −3, where the
     * formula gives −0.00364).
     *
     * @param z any array owning its buffer; modified
     * @param activation the function
     * @param t receives the intermediates
     */
    static void activate(INDArray z, Activation activation, Intermediates t) {
        switch (activation) {
            case IDENTITY -> {
            }
            case RELU -> Transforms.relu(z, false);
            case GELU -> {
                INDArray e = t.add(z.mul(-SQRT_HALF));
                Nd4j.exec(new Erfc(e, e));
                Nd4jOps.Kind.MUL.exec(z, e, z);
                z.muli(0.5);
            }
            case GELU_TANH -> {
                INDArray e = t.add(Transforms.pow(z, 3, true));
                e.muli(GELU_TANH_CUBIC).addi(z).muli(2 * SQRT_TWO_OVER_PI);
                Transforms.sigmoid(e, false);
                Nd4jOps.Kind.MUL.exec(z, e, z);
            }
            case SILU -> Nd4j.exec(new Swish(z, z));
        }
    }

    /**
     * {@code z = x·y + z} with libnd4j's batched matmul (GEMM with beta = 1).
     *
     * @param x {@code [..., m, k]}; not modified
     * @param y {@code [..., k, n]}, same batch dims; not modified
     * @param z {@code [..., m, n]}; modified (the product is added)
     */
    static void matmulAccumulate(INDArray x, INDArray y, INDArray z) {
        Nd4j.exec(new Mmul(x, y, z, 1.0, 1.0, MMulTranspose.allFalse()));
    }

    /**
     * The maximum along {@code axis}, NaN wherever the slice holds a NaN. libnd4j's max reduction skips NaN, so
     * when {@code x} may hold any ({@link #surelyFinite}), {@code sqrt(-n)} is added to each result, where
     * {@code n} counts the slice's NaNs: {@code sqrt(-0) = -0} leaves the maximum unchanged, {@code sqrt(-n) = NaN} for {@code n ≥ 1}.
     *
     * @param x any shape, rank at least 1; not modified
     * @param axis the reduced axis in {@code [0, rank)}
     * @param keepDims keep the axis with size 1
     * @param t receives the intermediates
     * @return a new array with the maxima
     */
    static INDArray maxPropagatingNaN(INDArray x, int axis, boolean keepDims, Intermediates t) {
        INDArray max = x.max(keepDims, axis);
        if (!surelyFinite(x)) {
            INDArray nanCount = t.add(t.add(t.add(x.isNaN()).castTo(x.dataType())).sum(keepDims, axis));
            max.addi(Transforms.sqrt(nanCount.negi(), false));
        }
        return max;
    }

    /**
     * Softmax along {@code axis} by libnd4j's native kernel, which already subtracts the maximum. The native kernel
     * answers NaN for a slice whose entries are all -∞ where attn4j wants zeros, and NaN is also its answer for a
     * slice holding NaN or +∞; so when its output holds any NaN, the whole softmax is computed again by
     * {@link #stableSoftmax}, which gives both answers as attn4j defines them.
     *
     * @param x any shape; not modified
     * @param z the same shape as {@code x}, another array; modified (overwritten)
     * @param axis the axis in {@code [0, rank)}
     * @param t receives the intermediates
     */
    static void softmax(INDArray x, INDArray z, int axis, Intermediates t) {
        if (!softmaxIfFinite(x, z, axis)) {
            stableSoftmax(x, z, axis, t);
        }
    }

    /**
     * @param x any shape; not modified unless it is {@code z}
     * @param z the same shape as {@code x}, may be {@code x}; modified (overwritten)
     * @param axis the axis in {@code [0, rank)}
     * @return true if the native softmax produced no NaN, so {@code z} is attn4j's softmax of {@code x}; false if
     *     {@code z} must be recomputed with {@link #stableSoftmax}
     */
    static boolean softmaxIfFinite(INDArray x, INDArray z, int axis) {
        Nd4j.exec(new SoftMax(x, z, axis));
        return surelyFinite(z);
    }

    /**
     * Numerically stable softmax along {@code axis} composed from native reductions and broadcasts, with attn4j's
     * answers at the edges:
     * <pre>
     *   m = max(x)  (-∞ replaced by 0, so an all -∞ slice gives e = 0 instead of NaN)
     *   e = exp(x - m)
     *   s = Σ e     (0 replaced by 1: it is 0 only for an all -∞ slice, else at least exp(0) = 1 or NaN)
     *   z = e / s
     * </pre>
     * A NaN anywhere in a slice makes {@code s}, and so the whole slice, NaN.
     *
     * @param x any shape; not modified unless it is {@code z}
     * @param z the same shape as {@code x}; modified (overwritten), may be {@code x}
     * @param axis the axis in {@code [0, rank)}
     * @param t receives the intermediates
     */
    static void stableSoftmax(INDArray x, INDArray z, int axis, Intermediates t) {
        INDArray max = t.add(x.max(true, axis));
        double lowestFinite = x.dataType() == DataType.DOUBLE ? -Double.MAX_VALUE : -Float.MAX_VALUE;
        BooleanIndexing.replaceWhere(max, 0.0, Conditions.lessThan(lowestFinite));
        Nd4jOps.Kind.SUB.exec(x, max, z);
        Transforms.exp(z, false);
        INDArray sum = t.add(z.sum(true, axis));
        BooleanIndexing.replaceWhere(sum, 1.0, Conditions.lessThan(0.5));
        Nd4jOps.Kind.DIV.exec(z, sum, z);
    }

    /**
     * One fast native sum decides whether an array may hold NaN or ±∞: a finite sum proves every element finite.
     * An infinite or NaN sum may also come from overflow of large finite values; callers then take their slower,
     * exact path, which is correct either way. (libnd4j's condition-matching count is several times slower than
     * the whole softmax on large arrays.)
     *
     * @param x any array; not modified
     * @return true if every element of {@code x} is finite; false if some element may not be
     */
    static boolean surelyFinite(INDArray x) {
        return Double.isFinite(x.sumNumber().doubleValue());
    }

    /**
     * Reads every element where it lies, without a native call: cheaper than {@link #surelyFinite} for the small
     * arrays it is meant for, whose native reduction costs more to launch than to run.
     *
     * @param x a C-ordered array that owns its buffer; not modified
     * @return true if every element of {@code x} is finite
     */
    static boolean finiteOnHost(INDArray x) {
        if (x.dataType() == DataType.DOUBLE) {
            DoubleBuffer values = x.data().asNioDouble();
            for (int i = 0, n = Math.toIntExact(x.length()); i < n; i++) {
                if (!Double.isFinite(values.get(i))) {
                    return false;
                }
            }
            return true;
        }
        FloatBuffer values = x.data().asNioFloat();
        for (int i = 0, n = Math.toIntExact(x.length()); i < n; i++) {
            if (!Float.isFinite(values.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Inverted dropout with the {@link Dropout} hash of the flat row-major index: the mask of factors
     * {@code 1/(1-p)} and 0 is built on the host and multiplied natively. A dropped NaN or ∞ times 0 would stay NaN,
     * so when {@code z} may hold any ({@link #surelyFinite}), the dropped elements are then set to 0 one by one.
     *
     * @param z a C-ordered array that owns its buffer; modified
     * @param p the drop probability in {@code [0, 1]}
     * @param seed the mask's seed
     * @param t receives the intermediates
     */
    static void dropoutInPlace(INDArray z, double p, long seed, Intermediates t) {
        dropoutInPlace(z, p, seed, i -> i, t);
    }

    /**
     * Dropout on part of a larger tensor: element {@code i} of {@code z} draws the mask of element
     * {@code flatIndex(i)} of the whole.
     *
     * @param z a C-ordered array that owns its buffer; modified
     * @param p the drop probability in {@code [0, 1]}
     * @param seed the mask's seed
     * @param flatIndex maps an index of {@code z} to the row-major index in the whole tensor
     * @param t receives the intermediates
     */
    static void dropoutInPlace(INDArray z, double p, long seed, LongUnaryOperator flatIndex, Intermediates t) {
        if (p == 0.0) {
            return;
        }
        double survivor = Dropout.survivorScale(p);
        int n = Math.toIntExact(z.length());
        double[] factors = new double[n];
        for (int i = 0; i < n; i++) {
            factors[i] = Dropout.keep(seed, flatIndex.applyAsLong(i), p) ? survivor : 0.0;
        }
        boolean nonFinite = !surelyFinite(z);
        DType dtype = z.dataType() == DataType.DOUBLE ? DType.F64 : DType.F32;
        z.reshape(n).muli(t.add(NdArrays.fromHost(factors, dtype, Shape.of(n))));
        if (nonFinite) {
            DataBuffer data = z.data();
            for (int i = 0; i < n; i++) {
                if (factors[i] == 0.0) {
                    data.put(i, 0.0);
                }
            }
        }
    }

    /**
     * Soft-caps in place: {@code z = cap · tanh(z / cap)} with {@code tanh(y) = sinh(y) / cosh(y)} for {@code y}
     * clamped to {@code [-20, 20]} (where tanh is ±1 to double precision, and sinh and cosh stay finite), the
     * quotient clamped to {@code [-1, 1]} (a rounded quotient may pass 1 by an ulp), in eight native calls.
     * libnd4j's own tanh (and expm1) forms it from {@code e^y − 1} and loses its relative precision near 0 (it
     * gives 0 for 1e-30); its sinh and cosh do not. {@code ±∞} gives {@code ±cap}, NaN stays NaN.
     *
     * @param z any array that owns its buffer; modified
     * @param cap positive and finite
     * @return {@code z}
     */
    static INDArray softcapInPlace(INDArray z, double cap) {
        z.divi(cap);
        BooleanIndexing.replaceWhere(z, 20.0, Conditions.greaterThan(20.0));
        BooleanIndexing.replaceWhere(z, -20.0, Conditions.lessThan(-20.0));
        try (INDArray sinh = Transforms.sinh(z, true)) {
            Transforms.cosh(z, false);
            Nd4j.exec(new DivOp(new INDArray[] {sinh, z}, new INDArray[] {z}));
        }
        BooleanIndexing.replaceWhere(z, 1.0, Conditions.greaterThan(1.0));
        BooleanIndexing.replaceWhere(z, -1.0, Conditions.lessThan(-1.0));
        return z.muli(cap);
    }

    /**
     * @param mask a boolean mask, {@code true} = may attend
     * @param dtype the element type
     * @return a new array of the mask's shape, 0 where allowed and -∞ where not
     */
    static INDArray additive(Mask mask, DType dtype) {
        double[] values = new double[Math.toIntExact(mask.shape().size())];
        for (int i = 0; i < values.length; i++) {
            values[i] = mask.allowed(i) ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        return NdArrays.fromHost(values, dtype, mask.shape());
    }
}
