package org.attn4j.tck;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.UnaryOperator;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ReferenceOps;
import org.attn4j.api.spi.ShapeChecks;

/**
 * A test backend that runs on a real one but lets a test change its name, its capabilities or some of its ops.
 * Attention is always the spi's {@link ReferenceAttention} over this backend's (possibly changed) primitives, so a
 * broken softmax or mask shows up in attention too.
 */
final class ForwardingBackend implements Backend {
    private final String name;
    private final Backend delegate;
    private final Capabilities capabilities;
    private final UnaryOperator<Ops> decorate;

    /**
     * @param name the name to report
     * @param delegate the real backend
     * @param capabilities what to declare
     * @param decorate wraps the forwarding ops, to replace some of them
     */
    ForwardingBackend(String name, Backend delegate, Capabilities capabilities, UnaryOperator<Ops> decorate) {
        this.name = name;
        this.delegate = delegate;
        this.capabilities = capabilities;
        this.decorate = decorate;
    }

    /** @return a provider that is always available and creates this backend */
    BackendProvider provider() {
        ForwardingBackend self = this;
        return new BackendProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int priority() {
                return 0;
            }

            @Override
            public Availability availability() {
                return Availability.available("test backend over " + delegate.name());
            }

            @Override
            public Capabilities capabilities() {
                return capabilities;
            }

            @Override
            public Backend create() {
                return self;
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public Scope newScope() {
        return new ForwardingScope(delegate.newScope());
    }

    private final class ForwardingScope implements Scope {
        private final Scope scope;

        ForwardingScope(Scope scope) {
            this.scope = scope;
        }

        @Override
        public Backend backend() {
            return ForwardingBackend.this;
        }

        @Override
        public Ops ops() {
            return decorate.apply(new ForwardingOps(this, scope.ops()));
        }

        @Override
        public Tensor tensor(float[] data, Shape shape) {
            return scope.tensor(data, shape);
        }

        @Override
        public Tensor tensor(double[] data, Shape shape) {
            return scope.tensor(data, shape);
        }

        @Override
        public Tensor zeros(Shape shape, DType dtype) {
            return scope.zeros(shape, dtype);
        }

        @Override
        public Tensor adopt(Tensor tensor) {
            return scope.adopt(tensor);
        }

        @Override
        public Weight weight(ByteBuffer data, WeightType type, Shape shape) {
            return scope.weight(data, type, shape);
        }

        @Override
        public boolean isOpen() {
            return scope.isOpen();
        }

        @Override
        public void close() {
            scope.close();
        }
    }

    /** Every op of the real backend, with results in the real scope; attention is the composed reference. */
    static class ForwardingOps implements Ops {
        private final Scope scope;
        private final Ops ops;

        ForwardingOps(Scope scope, Ops ops) {
            this.scope = scope;
            this.ops = ops;
        }

        ForwardingOps(ForwardingOps other) {
            this(other.scope, other.ops);
        }

        @Override
        public Scope scope() {
            return scope;
        }

        @Override
        public AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
            for (Tensor t : new Tensor[] {q, k, v}) {
                if (t != null && !t.isOpen()) {
                    throw new IllegalStateException("attention: tensor " + t.dtype() + t.shape() + " is closed");
                }
            }
            return ReferenceAttention.compute(this, q, k, v, options);
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
        public AttentionResult packedAttention(Tensor qkv, int heads, int kvHeads, AttentionOptions options) {
            return ReferenceOps.packedAttention(this, qkv, heads, kvHeads,
                    ShapeChecks.packedAttention(qkv, heads, kvHeads, options), options);
        }

        @Override
        public Tensor linear(Tensor x, Weight weight, Tensor bias, Epilogue epilogue) {
            return ops.linear(x, weight, bias, epilogue);
        }

        @Override
        public Tensor embedding(Weight table, int[] ids, Shape idsShape) {
            return ops.embedding(table, ids, idsShape);
        }

        @Override
        public Tensor layerNorm(Tensor x, Tensor residual, Tensor gamma, Tensor beta, double eps) {
            return ops.layerNorm(x, residual, gamma, beta, eps);
        }

        @Override
        public Tensor rmsNorm(Tensor x, Tensor residual, Tensor weight, double eps) {
            return ops.rmsNorm(x, residual, weight, eps);
        }

        @Override
        public Tensor rope(Tensor x, RotaryEmbedding rotary, int offset) {
            return ReferenceOps.rope(this, x, rotary, offset);
        }

        @Override
        public Tensor softcap(Tensor x, double cap) {
            return ops.softcap(x, cap);
        }

        @Override
        public Tensor writeSlice(Tensor target, Tensor source, int axis, int offset) {
            return ReferenceOps.writeSlice(this, target, source, axis, offset);
        }

        @Override
        public Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
            return ops.matmul(a, b, transposeA, transposeB);
        }

        @Override
        public Tensor add(Tensor a, Tensor b) {
            return ops.add(a, b);
        }

        @Override
        public Tensor sub(Tensor a, Tensor b) {
            return ops.sub(a, b);
        }

        @Override
        public Tensor mul(Tensor a, Tensor b) {
            return ops.mul(a, b);
        }

        @Override
        public Tensor div(Tensor a, Tensor b) {
            return ops.div(a, b);
        }

        @Override
        public Tensor scale(Tensor x, double factor) {
            return ops.scale(x, factor);
        }

        @Override
        public Tensor exp(Tensor x) {
            return ops.exp(x);
        }

        @Override
        public Tensor max(Tensor x, int axis, boolean keepDims) {
            return ops.max(x, axis, keepDims);
        }

        @Override
        public Tensor sum(Tensor x, int axis, boolean keepDims) {
            return ops.sum(x, axis, keepDims);
        }

        @Override
        public Tensor mean(Tensor x, int axis, boolean keepDims) {
            return ops.mean(x, axis, keepDims);
        }

        @Override
        public Tensor variance(Tensor x, int axis, boolean keepDims) {
            return ops.variance(x, axis, keepDims);
        }

        @Override
        public Tensor softmax(Tensor x, int axis) {
            return ops.softmax(x, axis);
        }

        @Override
        public Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
            return ops.layerNorm(x, gamma, beta, eps);
        }

        @Override
        public Tensor relu(Tensor x) {
            return ops.relu(x);
        }

        @Override
        public Tensor gelu(Tensor x, GeluApproximation approximation) {
            return ops.gelu(x, approximation);
        }

        @Override
        public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
            return ops.linear(x, weight, bias);
        }

        @Override
        public Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
            return ops.embedding(weight, ids, idsShape);
        }

        @Override
        public Tensor reshape(Tensor x, int... shape) {
            return ops.reshape(x, shape);
        }

        @Override
        public Tensor permute(Tensor x, int... axes) {
            return ops.permute(x, axes);
        }

        @Override
        public Tensor concat(List<Tensor> parts, int axis) {
            return ops.concat(parts, axis);
        }

        @Override
        public List<Tensor> split(Tensor x, int[] sizes, int axis) {
            return ops.split(x, sizes, axis);
        }

        @Override
        public Tensor cast(Tensor x, DType dtype) {
            return ops.cast(x, dtype);
        }

        @Override
        public Tensor dropout(Tensor x, double p, long seed) {
            return ops.dropout(x, p, seed);
        }

        @Override
        public Tensor additiveMask(Mask mask, DType dtype) {
            return ops.additiveMask(mask, dtype);
        }
    }
}
