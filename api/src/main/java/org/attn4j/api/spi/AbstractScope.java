package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * The ownership bookkeeping every backend's scope shares: which tensors it owns, {@link #adopt(Tensor)}, and
 * {@link #close()} freeing them in reverse creation order. It also checks operands: open, non-null, and of this
 * backend.
 *
 * <p>While one of the ops of {@link AbstractOps} runs, every operand it takes through {@link #operand} is pinned,
 * so closing a scope on another thread in the middle of it cannot free memory the op still reads (see
 * {@link AbstractTensor}); the op either completes on the data it pinned or throws {@link IllegalStateException}.
 */
public abstract class AbstractScope implements Scope {
    private static final System.Logger LOG = System.getLogger(AbstractScope.class.getName());
    private static final Set<String> CONVERSIONS_NOTED = ConcurrentHashMap.newKeySet();
    private final Backend backend;
    /** What this scope frees, in creation order; a tensor adopted elsewhere is removed (rare, so a list will do). */
    private ArrayList<Owned> owned = new ArrayList<>();
    private volatile boolean open = true;

    /** @param backend the backend whose memory this scope manages */
    protected AbstractScope(Backend backend) {
        this.backend = backend;
    }

    @Override
    public final Backend backend() {
        return backend;
    }

    @Override
    public final boolean isOpen() {
        return open;
    }

    /**
     * @param op the op name for the message
     * @throws IllegalStateException if this scope is closed
     */
    public final void checkOpen(String op) {
        if (!open) {
            throw new IllegalStateException(op + ": the scope is closed; open a new one with Backend.newScope()");
        }
    }

    synchronized void register(Owned tensor) {
        checkOpen("create tensor");
        owned.add(tensor);
        InFlight.pinCreated(tensor);
    }

    /**
     * Checks an operand and returns it as the backend's own tensor type.
     *
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param tensor the operand
     * @param type the backend's tensor class
     * @param <T> the backend's tensor class
     * @return {@code tensor}, cast
     * @throws IllegalArgumentException if it is null or belongs to another backend
     * @throws IllegalStateException if it or this scope is closed
     */
    public final <T extends AbstractTensor> T operand(String op, String argument, Tensor tensor, Class<T> type) {
        checkOpen(op);
        if (tensor == null) {
            throw new IllegalArgumentException(op + ": argument " + argument + " is null");
        }
        if (!type.isInstance(tensor) || ((AbstractTensor) tensor).backend() != backend) {
            throw new IllegalArgumentException(op + ": argument " + argument + " " + tensor.shape()
                    + " belongs to backend " + tensor.backend().name() + ", not " + backend.name()
                    + "; copy it with toFloatArray()/toDoubleArray() first");
        }
        T t = type.cast(tensor);
        InFlight.pin(op, t);
        return t;
    }

    /**
     * Checks a weight operand and returns it as the spi's weight type.
     *
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param weight the operand
     * @return {@code weight}, cast and pinned for the running op
     * @throws IllegalArgumentException if it is null or belongs to another backend
     * @throws IllegalStateException if it or this scope is closed
     */
    public final AbstractWeight weightOperand(String op, String argument, Weight weight) {
        checkOpen(op);
        if (weight == null) {
            throw new IllegalArgumentException(op + ": argument " + argument + " is null");
        }
        if (!(weight instanceof AbstractWeight w) || w.backend() != backend) {
            throw new IllegalArgumentException(op + ": argument " + argument + " " + weight.type() + weight.shape()
                    + " belongs to backend " + weight.backend().name() + ", not " + backend.name()
                    + "; bind the parameter on this backend");
        }
        InFlight.pin(op, w);
        return w;
    }

    @Override
    public final Weight weight(ByteBuffer data, WeightType type, Shape shape) {
        checkOpen("weight");
        ShapeChecks.notNull("weight", "type", type);
        ShapeChecks.notNull("weight", "shape", shape);
        type.checkData("weight", data, shape);
        if (type == WeightType.F64 && !backend.capabilities().supports(DType.F64)) {
            throw new IllegalArgumentException("weight: backend " + backend.name() + " has no F64; bind " + shape
                    + " as F32");
        }
        ByteBuffer bytes = data.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (type == WeightType.I8) {
            return new Int8Weight(this, bytes, shape);
        }
        if (!backend.capabilities().supports(type) && CONVERSIONS_NOTED.add(backend.name() + " " + type)) {
            LOG.log(System.Logger.Level.INFO, "attn4j " + backend.name() + ": " + type + " weights are converted once,"
                    + " when bound, to a wider form (this backend holds " + backend.capabilities().weightTypes()
                    + " as they are)");
        }
        return createWeight(bytes, type, shape);
    }

    /**
     * Creates a weight from checked bytes, of every type but {@link WeightType#I8}, which every backend holds as an
     * {@link Int8Weight}. The default converts the values once to an F32 tensor (F64 for an F64
     * weight) in this scope and returns a {@link TensorWeight} over it, which the default weight ops of
     * {@link AbstractOps} read; a backend with kernels for weights overrides this and those ops together.
     *
     * @param data exactly {@code type.byteSize(shape)} little-endian bytes from position 0, checked; valid only
     *     during this call
     * @param type the storage type
     * @param shape {@code [rows, columns]}
     * @return a new weight owned by this scope
     */
    protected AbstractWeight createWeight(ByteBuffer data, WeightType type, Shape shape) {
        Tensor values;
        if (type == WeightType.F64) {
            double[] d = new double[Math.toIntExact(shape.size())];
            data.asDoubleBuffer().get(d);
            values = tensor(d, shape);
        } else {
            values = tensor(type.decode(data, shape), shape);
        }
        return new TensorWeight(this, shape, type, values);
    }

    /**
     * @param otherwise the name to answer outside ops (a factory's name, for example)
     * @return the name of the op running on this thread, for messages from deep inside it (an allocation that is
     *     too large, for example)
     */
    public static String runningOp(String otherwise) {
        String op = InFlight.op();
        return op == null ? otherwise : op;
    }

    @Override
    public final Tensor adopt(Tensor tensor) {
        checkOpen("adopt");
        if (!(tensor instanceof AbstractTensor t) || t.backend() != backend) {
            throw new IllegalArgumentException("adopt: argument tensor belongs to another backend");
        }
        t.checkOpen("adopt");
        AbstractScope previous = t.owner();
        if (previous != this) {
            synchronized (previous) {
                previous.owned.remove(t);
            }
            synchronized (this) {
                owned.add(t);
            }
            t.moveTo(this);
        }
        return tensor;
    }

    @Override
    public final void close() {
        List<Owned> toFree;
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
            toFree = owned;
            owned = new ArrayList<>(0);
        }
        RuntimeException failure = null;
        for (int i = toFree.size() - 1; i >= 0; i--) {
            Owned t = toFree.get(i);
            try {
                t.markReleased();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        onClose();
        if (failure != null) {
            throw failure;
        }
    }

    /** @return how many tensors this scope currently owns */
    public final synchronized int ownedCount() {
        return owned.size();
    }

    /** Called after every owned tensor was released; a backend frees scope-level resources here. */
    protected void onClose() {
    }
}
