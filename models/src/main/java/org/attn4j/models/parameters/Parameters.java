package org.attn4j.models.parameters;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * A model's parameters living on one backend in one dtype, like PyTorch's {@code model.to(device, dtype)}: each
 * {@link HostTensor} is uploaded once, on first use, into a scope owned by this object, and stays there until
 * {@link #close()}. Matrices that products read ({@link #weight}) become {@link Weight}s in their file's storage
 * type (BF16 stays BF16, Q8_0 stays Q8_0), or in one type chosen for all ({@link #on(Backend, DType, WeightType)});
 * the matrices of linear maps ({@link #projection}) may instead be quantized to {@link WeightType#I8} alone
 * ({@link #withInt8Projections}), the other matrices (embedding tables) kept in their own type;
 * vectors (biases, norms) become tensors of the dtype ({@link #upload}). It remembers which host tensors it holds without keeping them alive, so the host copy of a bound
 * model is freed once the caller drops it. A layer's {@code bind(Parameters)} returns a copy of the layer whose forward reads these
 * tensors, so a forward call allocates only its activations (in the caller's scope) and frees them with it.
 *
 * <pre>
 *   try (Parameters p = Parameters.on(backend, DType.F32)) {
 *       Linear bound = linear.bind(p);                  // weight and bias uploaded here, once
 *       try (Scope s = backend.newScope()) {
 *           Tensor y = bound.forward(s, x);              // activations only
 *       }
 *   }                                                   // parameters freed
 * </pre>
 *
 * <p>Thread safety: uploading is synchronized; bound tensors are only read, so many threads may run forward calls
 * of the same bound model at once, each with its own scope. Closing while a forward call runs is the caller's
 * mistake, reported by the backend as an {@link IllegalStateException}.
 */
public final class Parameters implements AutoCloseable {
    private final Backend backend;
    private final DType dtype;
    private final Scope scope;
    private final WeightType storage;
    private final boolean int8Projections;
    private final Map<HostKey, Tensor> uploaded = new HashMap<>();
    private final Map<HostKey, Weight> weights = new HashMap<>();
    private final ReferenceQueue<HostTensor> collected = new ReferenceQueue<>();
    private long bytes;
    private int count;

    private Parameters(Backend backend, DType dtype, WeightType storage, boolean int8Projections) {
        this.backend = backend;
        this.dtype = dtype;
        this.storage = storage;
        this.int8Projections = int8Projections;
        this.scope = backend.newScope();
    }

    /**
     * @param backend where the parameters will live
     * @param dtype the element type they are converted to (F32 keeps F16/BF16/F32 exact)
     * @return an empty, open owner
     */
    public static Parameters on(Backend backend, DType dtype) {
        if (backend == null || dtype == null) {
            throw new IllegalArgumentException("Parameters.on: argument " + (backend == null ? "backend" : "dtype")
                    + " is null");
        }
        return new Parameters(backend, dtype, null, false);
    }

    /**
     * @param backend where the parameters will live
     * @param dtype the element type of activations: F32, or F64 (then every weight is F64)
     * @param storage the storage type of every weight, converted once at bind (for example Q8_0 to quarter the
     *     memory of an F32 checkpoint, or F32 to widen a BF16 one); with F64 it must be F64
     * @return an empty, open owner
     */
    public static Parameters on(Backend backend, DType dtype, WeightType storage) {
        if (backend == null || dtype == null || storage == null) {
            throw new IllegalArgumentException("Parameters.on: argument " + (backend == null ? "backend"
                    : dtype == null ? "dtype" : "storage") + " is null");
        }
        if ((dtype == DType.F64) != (storage == WeightType.F64)) {
            throw new IllegalArgumentException("Parameters.on: " + dtype + " activations cannot meet " + storage
                    + " weights; F64 goes with F64 only");
        }
        return new Parameters(backend, dtype, storage, false);
    }

    /**
     * An owner whose projections ({@link #projection}) are quantized once, at bind, to {@link WeightType#I8} rows as
     * ONNX Runtime's {@code quantize_dynamic} quantizes the weights of its {@code MatMulInteger} graphs (per output
     * feature {@code o}: {@code s[o] = max_i |W[o][i]| / 127}, zero point 0, {@code q[o][i] = round(W[o][i] / s[o])},
     * halves to even; see {@link WeightType#I8}), so that a {@code linear} over them quantizes its input and
     * multiplies in integers; every other matrix keeps its own type, as with {@link #on(Backend, DType)}.
     *
     * @param backend where the parameters will live
     * @param dtype the element type of activations: F32 (integer products take F32 inputs)
     * @return an empty, open owner
     * @throws IllegalArgumentException if an argument is null or {@code dtype} is not F32
     */
    public static Parameters withInt8Projections(Backend backend, DType dtype) {
        if (backend == null || dtype == null) {
            throw new IllegalArgumentException("Parameters.withInt8Projections: argument "
                    + (backend == null ? "backend" : "dtype") + " is null");
        }
        if (dtype != DType.F32) {
            throw new IllegalArgumentException("Parameters.withInt8Projections: " + dtype + " activations cannot meet"
                    + " I8 weights, whose products take F32 inputs");
        }
        return new Parameters(backend, dtype, null, true);
    }

    /** @return the backend the parameters live on */
    public Backend backend() {
        return backend;
    }

    /** @return their element type */
    public DType dtype() {
        return dtype;
    }

    /**
     * @param host a parameter; uploaded the first time this method sees this very object
     * @return its tensor on {@link #backend()} in {@link #dtype()}, owned by this object
     * @throws IllegalStateException if closed
     */
    public synchronized Tensor upload(HostTensor host) {
        if (!scope.isOpen()) {
            throw new IllegalStateException("Parameters.upload: closed; bind the model again");
        }
        for (Object k; (k = collected.poll()) != null; ) {
            uploaded.remove(k);
            weights.remove(k);
        }
        HostKey key = new HostKey(host, null);
        Tensor t = uploaded.get(key);
        if (t == null) {
            t = host.toTensor(scope, dtype);
            uploaded.put(new HostKey(host, collected), t);
            bytes += host.shape().size() * dtype.byteSize();
            count++;
        }
        return t;
    }

    /**
     * @param host a matrix; bound the first time this method sees this very object
     * @return it as a weight on {@link #backend()}: F64 when {@link #dtype()} is; else in the storage type chosen
     *     at {@link #on(Backend, DType, WeightType)}, or the host's own type (F64 narrowed to F32)
     * @throws IllegalStateException if closed
     * @throws IllegalArgumentException if it is not a matrix, or its rows do not fit the storage type's blocks
     */
    public synchronized Weight weight(HostTensor host) {
        return weight(host, null);
    }

    /** Binds {@code host} once, in {@code type}, or in {@link #storageFor} its own when null. */
    private Weight weight(HostTensor host, WeightType type) {
        if (!scope.isOpen()) {
            throw new IllegalStateException("Parameters.weight: closed; bind the model again");
        }
        for (Object k; (k = collected.poll()) != null; ) {
            uploaded.remove(k);
            weights.remove(k);
        }
        HostKey key = new HostKey(host, null);
        Weight w = weights.get(key);
        if (w == null) {
            w = host.toWeight(scope, type != null ? type : storageFor(host));
            weights.put(new HostKey(host, collected), w);
            bytes += w.byteSize();
            count++;
        }
        return w;
    }

    /**
     * Binds the matrix of a linear map ({@code y = x·Wᵀ + b}, {@code W [out, in]}): as {@link #weight} does, unless
     * this owner quantizes projections ({@link #withInt8Projections}), then as {@link WeightType#I8} rows.
     *
     * @param host the matrix {@code [out, in]}; bound the first time this owner sees this very object
     * @return it as a weight on {@link #backend()}
     * @throws IllegalStateException if closed
     * @throws IllegalArgumentException if it is not a matrix, or if projections are quantized and it is already
     *     held in integers or blocks ({@link WeightType#I8}, a GGUF type), which I8 rows are not made from
     */
    public synchronized Weight projection(HostTensor host) {
        if (int8Projections && (host.type() == WeightType.I8 || host.type().isQuantized())) {
            throw new IllegalArgumentException("Parameters.projection: a " + host.type() + " matrix " + host.shape()
                    + " is already quantized; I8 projections are made from F32, F16, BF16 or F64 weights");
        }
        return int8Projections ? weight(host, WeightType.I8) : weight(host);
    }

    /** @return whether projections are quantized to {@link WeightType#I8} ({@link #withInt8Projections}) */
    public boolean quantizesProjections() {
        return int8Projections;
    }

    private WeightType storageFor(HostTensor host) {
        if (dtype == DType.F64) {
            return WeightType.F64;
        }
        if (storage != null) {
            return storage;
        }
        return host.type() == WeightType.F64 ? WeightType.F32 : host.type();
    }

    /**
     * Remembers a host tensor by identity without keeping it alive, so the host copy of a bound model (a memory map,
     * an ONNX file's bytes) can be freed once nothing else holds it.
     */
    private static final class HostKey extends WeakReference<HostTensor> {
        private final int hash;

        HostKey(HostTensor host, ReferenceQueue<HostTensor> queue) {
            super(host, queue);
            this.hash = System.identityHashCode(host);
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof HostKey k && k.hash == hash && k.get() != null && k.get() == get();
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** @return how many distinct parameters were uploaded or bound as weights */
    public synchronized int count() {
        return count;
    }

    /** @return the bytes they occupy on the backend */
    public synchronized long byteSize() {
        return bytes;
    }

    /** @return false once closed */
    public boolean isOpen() {
        return scope.isOpen();
    }

    /** Frees every uploaded parameter; forward calls of layers bound here then throw. */
    @Override
    public synchronized void close() {
        scope.close();
        uploaded.clear();
        weights.clear();
    }
}
