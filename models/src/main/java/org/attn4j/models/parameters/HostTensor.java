package org.attn4j.models.parameters;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * A parameter held outside any backend: a shape and its row-major values in a {@link WeightType} (the file's type
 * for weights read from disk, which may be a memory map: F16, BF16, F32, F64, or GGUF's blocks of 32 along the last
 * axis; F32 or F64 for values built in Java). Values are never widened in place: they are converted when
 * {@link #toTensor uploaded}, {@link #toWeight bound} in another type, or read. It is immutable: the factories copy
 * Java arrays, and buffers handed to {@link #wrap} must not change afterwards.
 *
 * <p>A tensor a reader made over a memory map of its own ({@link #mapped}) can give the map back before the garbage
 * collector would ({@link #release()}): a model loader that owns its files releases each tensor once it is bound, so
 * that loading holds the file's pages of one tensor at a time in resident memory beside the bound weights, not the
 * whole file. A released tensor, and every view made of it, refuses to be read.
 */
public final class HostTensor {
    /** {@code sun.misc.Unsafe} and its {@code invokeCleaner(ByteBuffer)}, or nulls where the JDK does not offer them. */
    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
        Object unsafe = null;
        Method cleaner = null;
        try {
            Class<?> c = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field the = c.getDeclaredField("theUnsafe");
            the.setAccessible(true);
            unsafe = the.get(null);
            cleaner = c.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unsafe = null;
            cleaner = null;
        }
        UNSAFE = unsafe;
        INVOKE_CLEANER = cleaner;
    }
    private final Shape shape;
    private final WeightType type;
    private final ByteBuffer bytes;
    /** The memory map these bytes are in, shared with every view made of this tensor; null for other bytes. */
    private final Mapping mapping;

    /** A memory map that one reader's tensor owns, and whether it was given back. */
    private static final class Mapping {
        private final MappedByteBuffer map;
        private volatile boolean released;

        Mapping(MappedByteBuffer map) {
            this.map = map;
        }
    }

    private HostTensor(Shape shape, WeightType type, ByteBuffer bytes) {
        this(shape, type, bytes, null);
    }

    private HostTensor(Shape shape, WeightType type, ByteBuffer bytes, Mapping mapping) {
        this.shape = shape;
        this.type = type;
        this.bytes = bytes.slice().order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        this.mapping = mapping;
    }

    /**
     * @param shape the dimensions
     * @param data row-major values, {@code shape.size()} of them; not modified (copied), stored as F64
     * @throws IllegalArgumentException if the lengths differ
     */
    public HostTensor(Shape shape, double[] data) {
        this(shape, WeightType.F64, doubles(shape, data));
    }

    /**
     * @param data row-major values; not modified (copied, stored as F64)
     * @param dims the dimensions
     * @return the parameter
     */
    public static HostTensor of(double[] data, int... dims) {
        return new HostTensor(Shape.of(dims), data);
    }

    /**
     * @param data row-major values; not modified (copied, stored as F32)
     * @param dims the dimensions
     * @return the parameter
     */
    public static HostTensor of(float[] data, int... dims) {
        Shape shape = Shape.of(dims);
        checkLength(shape, data.length);
        ByteBuffer b = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(data);
        return new HostTensor(shape, WeightType.F32, b);
    }

    /**
     * Views little-endian bytes, for example a region of a memory-mapped file, without copying them.
     *
     * @param shape the dimensions
     * @param type the element type of the bytes
     * @param bytes exactly the bytes of {@code shape.size()} values of {@code type} from its position to its limit; not modified,
     *     and it must not be modified afterwards
     * @return the parameter
     * @throws IllegalArgumentException if the byte count does not match
     */
    public static HostTensor wrap(Shape shape, WeightType type, ByteBuffer bytes) {
        if (type == WeightType.I8 && shape.rank() != 2) {
            throw new IllegalArgumentException("HostTensor.wrap: an I8 tensor is a matrix whose rows carry their scale"
                    + " and zero point, but its shape is " + shape);
        }
        if (type.isQuantized() && (shape.rank() < 1 || shape.dim(-1) % type.blockSize() != 0)) {
            throw new IllegalArgumentException("HostTensor.wrap: a " + type + " tensor's last axis holds whole blocks"
                    + " of " + type.blockSize() + ", but its shape is " + shape);
        }
        if (bytes.remaining() != bytes(shape, type)) {
            throw new IllegalArgumentException("HostTensor.wrap: argument bytes has " + bytes.remaining()
                    + " bytes but shape " + shape + " of " + type + " needs " + bytes(shape, type));
        }
        return new HostTensor(shape, type, bytes);
    }

    /**
     * Views a memory map made for this tensor alone, which {@link #release()} may unmap.
     *
     * @param shape the dimensions
     * @param type the element type of the bytes
     * @param map exactly the bytes of {@code shape.size()} values of {@code type}, mapped for this tensor and read
     *     by nothing else
     * @return the parameter
     * @throws IllegalArgumentException if the byte count does not match
     */
    public static HostTensor mapped(Shape shape, WeightType type, MappedByteBuffer map) {
        wrap(shape, type, map);
        return new HostTensor(shape, type, map, new Mapping(map));
    }

    /**
     * Gives the memory map this tensor views back to the operating system now, rather than when the garbage collector
     * finds it unreachable, so that its pages leave the process's resident memory. Call it only when nothing reads a
     * buffer from {@link #bytes()} any more (a weight bound from it holds its own copy): the memory is gone. From
     * then on this tensor and every view made of it ({@link #rows}, {@link #reshape}) throw
     * {@link IllegalStateException} when read.
     *
     * @return whether a map was unmapped: false for a tensor that views no map of its own, or one released already,
     *     or where the JVM offers no way to unmap ({@code sun.misc.Unsafe.invokeCleaner}); the garbage collector
     *     then unmaps it once it is unreachable
     */
    public boolean release() {
        if (mapping == null || INVOKE_CLEANER == null) {
            return false;
        }
        synchronized (mapping) {
            if (mapping.released) {
                return false;
            }
            mapping.released = true;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, mapping.map);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** @return whether {@link #release()} gave this tensor's map back */
    public boolean isReleased() {
        return mapping != null && mapping.released;
    }

    /** The bytes, checked not released. */
    private ByteBuffer held(String op) {
        if (mapping != null && mapping.released) {
            throw new IllegalStateException("HostTensor." + op + ": " + type + shape + " was released; its memory"
                    + " map is gone");
        }
        return bytes;
    }

    private static long bytes(Shape shape, WeightType type) {
        return type == WeightType.I8 ? type.byteSize(shape) : shape.size() / type.blockSize() * type.blockBytes();
    }

    /**
     * @return the values viewed as consecutive blocks, the rank-2 shape {@link WeightType#decode} reads (an I8
     *     matrix's own shape: its blocks are its rows)
     */
    private Shape blocks() {
        return type == WeightType.I8 ? shape : Shape.of(Math.toIntExact(shape.size() / type.blockSize()), type.blockSize());
    }

    /**
     * @param tensor an open tensor of any backend; not modified
     * @return its values copied to the heap, stored in the tensor's dtype
     */
    public static HostTensor copyOf(Tensor tensor) {
        return tensor.dtype() == DType.F64 ? new HostTensor(tensor.shape(), tensor.toDoubleArray())
                : of(tensor.toFloatArray(), tensor.shape().toArray());
    }

    private static ByteBuffer doubles(Shape shape, double[] data) {
        checkLength(shape, data.length);
        ByteBuffer b = ByteBuffer.allocate(data.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.asDoubleBuffer().put(data);
        return b;
    }

    private static void checkLength(Shape shape, int length) {
        if (length != shape.size()) {
            throw new IllegalArgumentException("HostTensor: argument data has " + length
                    + " values but shape " + shape + " needs " + shape.size());
        }
    }

    /** @return the dimensions */
    public Shape shape() {
        return shape;
    }

    /** @return the type the values are kept in */
    public WeightType type() {
        return type;
    }

    /** @return the bytes the values occupy */
    public long byteSize() {
        return bytes(shape, type);
    }

    /**
     * @return a read-only little-endian view of the stored bytes, exactly {@link #byteSize()} of them, in
     *     {@link #type()}'s layout (for writing them to a file unchanged)
     */
    public ByteBuffer bytes() {
        return held("bytes").duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** @return a copy of the row-major values, widened to double */
    public double[] data() {
        if (type == WeightType.F64) {
            double[] d = new double[(int) shape.size()];
            held("data").duplicate().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(d);
            return d;
        }
        float[] f = toFloatArray();
        double[] d = new double[f.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    /** @return a copy of the row-major values as floats (F64 values rounded to nearest) */
    public float[] toFloatArray() {
        return type.decode(held("toFloatArray").duplicate(), blocks());
    }

    /**
     * @param flatIndex a row-major index
     * @return the value there
     */
    public double get(int flatIndex) {
        if (flatIndex < 0 || flatIndex >= shape.size()) {
            throw new IndexOutOfBoundsException("HostTensor.get: index " + flatIndex + " outside shape " + shape);
        }
        if (type == WeightType.F64) {
            return held("get").getDouble(flatIndex * 8);
        }
        int size = type == WeightType.I8 ? shape.dim(1) : type.blockSize();
        int bytes = Math.toIntExact(type.rowBytes(size));
        int block = flatIndex / size;
        ByteBuffer one = held("get").duplicate().position(block * bytes).limit((block + 1) * bytes);
        return type.decode(one, Shape.of(1, size))[flatIndex % size];
    }

    /**
     * Scans the bytes where they lie (a quantized type block by block), without a copy of the values.
     *
     * @return the row-major index of the first NaN or infinite value, or -1 if every value is finite
     */
    public int indexOfNonFinite() {
        ByteBuffer b = held("indexOfNonFinite").slice().order(ByteOrder.LITTLE_ENDIAN);
        int n = (int) shape.size();
        switch (type) {
            case F32 -> {
                for (int i = 0; i < n; i++) {
                    if ((b.getInt(4 * i) & 0x7f800000) == 0x7f800000) {
                        return i;
                    }
                }
            }
            case F64 -> {
                for (int i = 0; i < n; i++) {
                    if ((b.getLong(8 * i) & 0x7ff0000000000000L) == 0x7ff0000000000000L) {
                        return i;
                    }
                }
            }
            case BF16 -> {
                for (int i = 0; i < n; i++) {
                    if ((b.getShort(2 * i) & 0x7f80) == 0x7f80) {
                        return i;
                    }
                }
            }
            case F16 -> {
                for (int i = 0; i < n; i++) {
                    if ((b.getShort(2 * i) & 0x7c00) == 0x7c00) {
                        return i;
                    }
                }
            }
            default -> {
                float[] f = toFloatArray();
                for (int i = 0; i < f.length; i++) {
                    if (!Float.isFinite(f[i])) {
                        return i;
                    }
                }
            }
        }
        return -1;
    }

    /**
     * @param scope where the tensor is created
     * @param dtype its element type (F64 values round to nearest in F32)
     * @return a new tensor owned by {@code scope} holding these values
     */
    public Tensor toTensor(Scope scope, DType dtype) {
        return dtype == DType.F64 ? scope.tensor(data(), shape) : scope.tensor(toFloatArray(), shape);
    }

    /**
     * Binds this matrix to a backend as a {@link Weight} of a storage type: its own bytes as they are when the type
     * is its own, else its values converted (rounded or quantized) once, here.
     *
     * @param scope where the weight is created
     * @param as the storage type of the weight
     * @return a new weight owned by {@code scope}
     * @throws IllegalArgumentException if this is not a matrix, or its rows do not split into {@code as}'s blocks
     */
    public Weight toWeight(Scope scope, WeightType as) {
        if (shape.rank() != 2) {
            throw new IllegalArgumentException("HostTensor.toWeight: a weight is a matrix, but the shape is " + shape);
        }
        if (as == type) {
            return scope.weight(held("toWeight").duplicate(), type, shape);
        }
        if (as == WeightType.F64) {
            ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(shape.size() * 8)).order(ByteOrder.LITTLE_ENDIAN);
            b.asDoubleBuffer().put(data());
            return scope.weight(b, as, shape);
        }
        return scope.weight(toFloatArray(), shape, as);
    }

    /**
     * @param dims the new dimensions with the same number of elements
     * @return the same values under another shape
     */
    public HostTensor reshape(int... dims) {
        Shape s = Shape.of(dims);
        if (s.size() != shape.size()) {
            throw new IllegalArgumentException("HostTensor.reshape: shape " + shape + " cannot become " + s);
        }
        if (type == WeightType.I8 && !s.equals(shape)) {
            throw new IllegalArgumentException("HostTensor.reshape: an I8 matrix " + shape + " keeps its rows, whose"
                    + " scales and zero points it carries; it cannot become " + s);
        }
        return new HostTensor(s, type, held("reshape"), mapping);
    }

    /**
     * @param from first row (index along axis 0), inclusive
     * @param to last row, exclusive
     * @return rows {@code [from, to)} of this tensor (a view, no copy), for example the query part of
     *     {@code in_proj_weight}
     */
    public HostTensor rows(int from, int to) {
        int[] dims = shape.toArray();
        if (dims.length == 0 || from < 0 || to > dims[0] || from >= to) {
            throw new IllegalArgumentException("HostTensor.rows: rows [" + from + ", " + to + ") of shape " + shape);
        }
        int row = Math.toIntExact(bytes(shape, type) / dims[0]);
        dims[0] = to - from;
        return new HostTensor(Shape.of(dims), type, held("rows").duplicate().position(from * row).limit(to * row),
                mapping);
    }

    /**
     * @param parts tensors whose shapes agree except along axis 0
     * @return the parts stacked along axis 0, in order: in their storage type when they share one, else in F64
     *     when one is F64, else in F32
     */
    public static HostTensor concatRows(List<HostTensor> parts) {
        int[] dims = parts.get(0).shape.toArray();
        int rows = 0;
        boolean same = true;
        boolean anyF64 = false;
        for (HostTensor p : parts) {
            int[] pd = p.shape.toArray();
            pd[0] = dims[0];
            if (!Arrays.equals(pd, dims)) {
                throw new IllegalArgumentException("HostTensor.concatRows: shape " + p.shape + " does not match "
                        + parts.get(0).shape + " outside axis 0");
            }
            rows += p.shape.dim(0);
            same &= p.type == parts.get(0).type;
            anyF64 |= p.type == WeightType.F64;
        }
        WeightType out = same ? parts.get(0).type : anyF64 ? WeightType.F64 : WeightType.F32;
        dims[0] = rows;
        long total = 0;
        for (HostTensor p : parts) {
            total += p.shape.size();
        }
        ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(bytes(Shape.of(dims), out)))
                .order(ByteOrder.LITTLE_ENDIAN);
        for (HostTensor p : parts) {
            if (p.type == out) {
                all.put(p.held("concatRows").duplicate());
            } else if (out == WeightType.F64) {
                for (double v : p.data()) {
                    all.putDouble(v);
                }
            } else {
                for (float v : p.toFloatArray()) {
                    all.putFloat(v);
                }
            }
        }
        return new HostTensor(Shape.of(dims), out, all.flip());
    }

    /** @return the transpose of this rank-2 tensor, in the same storage type (one of the plain floats) */
    public HostTensor transpose() {
        if (shape.rank() != 2) {
            throw new IllegalArgumentException("HostTensor.transpose: shape " + shape + " is not a matrix");
        }
        if (type.isQuantized() || type == WeightType.I8) {
            throw new IllegalArgumentException("HostTensor.transpose: a " + type + " matrix " + shape + " is stored"
                    + " in blocks along its rows and cannot be transposed in place");
        }
        int r = shape.dim(0);
        int c = shape.dim(1);
        int size = type.blockBytes();
        byte[] src = new byte[(int) byteSize()];
        held("transpose").duplicate().get(src);
        byte[] t = new byte[src.length];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < c; j++) {
                System.arraycopy(src, (i * c + j) * size, t, (j * r + i) * size, size);
            }
        }
        return new HostTensor(Shape.of(c, r), type, ByteBuffer.wrap(t));
    }

    /** Equal when the shapes and every value (compared as doubles) are equal, whatever the storage types. */
    @Override
    public boolean equals(Object o) {
        return o instanceof HostTensor h && shape.equals(h.shape) && Arrays.equals(data(), h.data());
    }

    @Override
    public int hashCode() {
        return 31 * shape.hashCode() + Arrays.hashCode(data());
    }

    @Override
    public String toString() {
        return "HostTensor" + shape + type;
    }
}
