package org.attn4j.models.parameters;

import java.io.IOException;
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
 *
 * <p>A tensor of more bytes than one {@link ByteBuffer} holds (2<sup>31</sup> - 1: an F32 embedding of a 128k
 * vocabulary × 4096) views several maps, each a whole number of its rows along axis 0 ({@link #ofRowBlocks}).
 * It is read by {@link #get}, {@link #rows} (a view of one block where the rows lie in one), {@link #toFloatArray}
 * (while the values fit a Java array) and converted by {@link #toWeight} to a type whose bytes fit one buffer;
 * {@link #bytes()}, {@link #reshape}, {@link #transpose} and binding it in its own type refuse it by name, since a
 * backend takes a weight's bytes in one buffer. Rows picked from anywhere ({@link #ofRowBlocks} of
 * {@link #rows} views: a reader's reordering of a file's rows) are viewed the same way, copied nowhere until they
 * are bound, when the rows of one tensor are gathered once into the buffer the backend takes.
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
    /** The blocks of whole rows of a tensor over several buffers (then {@code bytes} is null); else null. */
    private final List<HostTensor> blocks;

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
        this.blocks = null;
    }

    private HostTensor(Shape shape, WeightType type, List<HostTensor> blocks) {
        this.shape = shape;
        this.type = type;
        this.bytes = null;
        this.mapping = null;
        this.blocks = List.copyOf(blocks);
    }

    /** Where a reader's tensors lie: views of a file's bytes, a memory map each, or of bytes in memory. */
    @FunctionalInterface
    public interface Region {
        /**
         * @param position the first byte
         * @param bytes how many
         * @return a view of them (a {@link MappedByteBuffer} made for this call alone, or a view of memory)
         * @throws IOException if they cannot be mapped
         */
        ByteBuffer view(long position, int bytes) throws IOException;
    }

    /**
     * Views a tensor's bytes where a reader found them: one view, or, for more bytes than one buffer holds, one view
     * per block of as many whole rows (along axis 0) as 2<sup>31</sup> - 1 bytes hold ({@link #ofRowBlocks}). A
     * {@link MappedByteBuffer} becomes a tensor that {@link #release()} may unmap ({@link #mapped}).
     *
     * @param shape the dimensions
     * @param type the element type of the bytes
     * @param position where its bytes start in the region
     * @param region the reader's bytes
     * @return the tensor
     * @throws IOException if a view cannot be made
     * @throws IllegalArgumentException if one row along axis 0 has more bytes than one buffer holds
     */
    public static HostTensor view(Shape shape, WeightType type, long position, Region region) throws IOException {
        long total = bytes(shape, type);
        if (total <= Integer.MAX_VALUE) {
            return viewOne(shape, type, region.view(position, (int) total));
        }
        long rows = shape.rank() < 2 ? 1 : shape.dim(0);
        long rowBytes = total / rows;
        if (rowBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("HostTensor.view: " + type + shape + " has rows of " + rowBytes
                    + " bytes along axis 0; a block of whole rows is at most " + Integer.MAX_VALUE + " bytes");
        }
        long perBlock = Integer.MAX_VALUE / rowBytes;
        List<HostTensor> parts = new java.util.ArrayList<>();
        for (long first = 0; first < rows; first += perBlock) {
            int n = (int) Math.min(perBlock, rows - first);
            parts.add(viewOne(Shape.of(withRows(shape.toArray(), n)), type,
                    region.view(position + first * rowBytes, (int) (n * rowBytes))));
        }
        return ofRowBlocks(parts);
    }

    private static HostTensor viewOne(Shape shape, WeightType type, ByteBuffer view) {
        return view instanceof MappedByteBuffer map ? mapped(shape, type, map) : wrap(shape, type, view);
    }

    /**
     * Views consecutive blocks of rows as one tensor, without copying them: a tensor of more bytes than one buffer
     * holds (each block a map of its own), or rows of one tensor taken in another order ({@link #rows} views, which
     * share its map: {@link #release()} gives it back once).
     *
     * @param parts tensors of one type whose shapes agree outside axis 0, in row order, none itself of blocks
     * @return their rows as one tensor ({@code parts.get(0)} itself if there is one)
     * @throws IllegalArgumentException if there are none, their types or shapes differ, or the rows exceed an int
     */
    public static HostTensor ofRowBlocks(List<HostTensor> parts) {
        if (parts == null || parts.isEmpty()) {
            throw new IllegalArgumentException("HostTensor.ofRowBlocks: argument parts is empty");
        }
        if (parts.size() == 1) {
            return parts.get(0);
        }
        int[] dims = parts.get(0).shape.toArray();
        long rows = 0;
        for (HostTensor p : parts) {
            int[] pd = p.shape.toArray();
            if (pd.length == 0 || p.blocks != null || p.type != parts.get(0).type) {
                throw new IllegalArgumentException("HostTensor.ofRowBlocks: part " + p + " cannot follow "
                        + parts.get(0));
            }
            pd[0] = dims[0];
            if (!Arrays.equals(pd, dims)) {
                throw new IllegalArgumentException("HostTensor.ofRowBlocks: shape " + p.shape + " does not match "
                        + parts.get(0).shape + " outside axis 0");
            }
            rows += p.shape.dim(0);
        }
        if (rows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("HostTensor.ofRowBlocks: " + rows + " rows exceed an int");
        }
        dims[0] = (int) rows;
        return new HostTensor(Shape.of(dims), parts.get(0).type, parts);
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
        if (blocks != null) {
            boolean any = false;
            for (HostTensor b : blocks) {
                any |= b.release();
            }
            return any;
        }
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
        return blocks != null ? blocks.stream().allMatch(HostTensor::isReleased)
                : mapping != null && mapping.released;
    }

    /** The bytes, checked not released. */
    private ByteBuffer held(String op) {
        if (blocks != null) {
            throw new IllegalStateException("HostTensor." + op + ": " + type + shape + " has " + byteSize()
                    + " bytes in " + blocks.size() + " maps, more than one buffer holds; read it by get, rows or"
                    + " toFloatArray");
        }
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
        if (type == WeightType.F64 && blocks != null) {
            double[] d = new double[Math.toIntExact(shape.size())];
            int at = 0;
            for (HostTensor b : blocks) {
                double[] part = b.data();
                System.arraycopy(part, 0, d, at, part.length);
                at += part.length;
            }
            return d;
        }
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
        if (blocks == null) {
            return type.decode(held("toFloatArray").duplicate(), blocks());
        }
        if (shape.size() > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("HostTensor.toFloatArray: " + type + shape + " has " + shape.size()
                    + " values, more than a Java array holds; read it by rows");
        }
        float[] out = new float[(int) shape.size()];
        int at = 0;
        for (HostTensor b : blocks) {
            float[] part = b.toFloatArray();
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }

    /**
     * @param flatIndex a row-major index
     * @return the value there
     */
    public double get(int flatIndex) {
        if (flatIndex < 0 || flatIndex >= shape.size()) {
            throw new IndexOutOfBoundsException("HostTensor.get: index " + flatIndex + " outside shape " + shape);
        }
        if (blocks != null) {
            int at = flatIndex;
            for (HostTensor b : blocks) {
                if (at < b.shape.size()) {
                    return b.get(at);
                }
                at -= (int) b.shape.size();
            }
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
        if (blocks != null) {
            long at = 0;
            for (HostTensor part : blocks) {
                int i = part.indexOfNonFinite();
                if (i >= 0) {
                    return Math.toIntExact(at + i);
                }
                at += part.shape.size();
            }
            return -1;
        }
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
            if (blocks == null) {
                return scope.weight(held("toWeight").duplicate(), type, shape);
            }
            if (byteSize() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("HostTensor.toWeight: " + type + shape + " has " + byteSize()
                        + " bytes, more than the one buffer a backend takes a weight's bytes in holds ("
                        + Integer.MAX_VALUE + "); bind it in a smaller storage type");
            }
            ByteBuffer joined = ByteBuffer.allocate((int) byteSize()).order(ByteOrder.LITTLE_ENDIAN);
            for (HostTensor b : blocks) {
                joined.put(b.held("toWeight").duplicate());
            }
            return scope.weight(joined.flip(), type, shape);
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
        if (blocks != null) {
            List<HostTensor> inside = new java.util.ArrayList<>();
            int first = 0;
            for (HostTensor b : blocks) {
                int n = b.shape.dim(0);
                int lo = Math.max(from, first);
                int hi = Math.min(to, first + n);
                if (lo < hi) {
                    inside.add(b.rows(lo - first, hi - first));
                }
                first += n;
            }
            return inside.size() == 1 ? inside.get(0) : new HostTensor(Shape.of(withRows(dims, to - from)), type,
                    inside);
        }
        int row = Math.toIntExact(bytes(shape, type) / dims[0]);
        dims[0] = to - from;
        return new HostTensor(Shape.of(dims), type, held("rows").duplicate().position(from * row).limit(to * row),
                mapping);
    }

    private static int[] withRows(int[] dims, int rows) {
        int[] d = dims.clone();
        d[0] = rows;
        return d;
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
                p.copyBytesInto(all);
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

    /** Puts this tensor's bytes, row after row, into {@code into} (each block's in turn). */
    private void copyBytesInto(ByteBuffer into) {
        if (blocks == null) {
            into.put(held("concatRows").duplicate());
            return;
        }
        for (HostTensor b : blocks) {
            b.copyBytesInto(into);
        }
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
