package org.attn4j.models.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Reads the <a href="https://github.com/ggml-org/ggml/blob/master/docs/gguf.md">GGUF</a> format, versions 2 and 3,
 * little-endian:
 * <pre>
 *   magic "GGUF", uint32 version, uint64 tensor_count, uint64 metadata_kv_count
 *   metadata_kv_count × (string key, uint32 value_type, value)
 *   tensor_count × (string name, uint32 n_dims, uint64 ne[n_dims], uint32 ggml_type, uint64 offset)
 *   padding to general.alignment (default 32), then the data section; offsets are relative to its start
 *   string = uint64 length + UTF-8 bytes; array = uint32 element_type, uint64 count, elements
 * </pre>
 * {@code ne[0]} is the fastest-varying axis, so a tensor's row-major shape is {@code ne} reversed: a matrix
 * {@code ne = [in, out]} is {@code [out, in]}, {@code nn.Linear}'s layout. Tensors of ggml types F32, F16, BF16,
 * F64 and of every block type a {@link WeightType} names (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K,
 * Q6_K, IQ4_NL, IQ4_XS: every type of llama.cpp's common mixes such as {@code Q4_K_M}, which keep each tensor in
 * its own type) become {@link HostTensor}s that view their bytes in the file's own type through a memory map
 * ({@link HostTensor#wrap}), copied nowhere; any other type is refused naming the type and the tensor. A tensor
 * of more than 2<sup>31</sup> - 1 bytes (an F32 embedding of a 128k vocabulary × 4096) is mapped in several blocks
 * of whole rows ({@link HostTensor#view}), as one {@link ByteBuffer} holds no more.
 *
 * <p>Everything is validated against the real size before anything is allocated: counts of entries, array elements
 * and string bytes cannot exceed the bytes left, keys and tensor names are unique UTF-8, dims are 1 to 4 positive
 * numbers whose product fits, {@code general.alignment} is a power of two, and every tensor lies inside the data
 * section at an aligned offset without overlapping another. A malformed or hostile file ends in a
 * {@link FormatException} that names the entry and the problem, never in an out-of-memory error or a partial load.
 */
public final class Gguf {
    /** The alignment of tensor data when {@code general.alignment} is absent. */
    public static final int DEFAULT_ALIGNMENT = 32;
    /** The longest tensor name ggml accepts, in bytes. */
    public static final int MAX_NAME_BYTES = 63;
    /** The most dimensions a ggml tensor has. */
    public static final int MAX_DIMS = 4;

    private static final int MAGIC = 0x46554747;
    private static final int MAX_ARRAY_DEPTH = 8;

    private Gguf() {
    }

    /** A file that is not valid GGUF, or holds a tensor type attn4j cannot load. */
    public static final class FormatException extends IOException {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }
    }

    /** The type of a metadata value, with its number in the file. */
    public enum ValueType {
        /** 8-bit unsigned integer. */
        UINT8(1),
        /** 8-bit signed integer. */
        INT8(1),
        /** 16-bit unsigned integer. */
        UINT16(2),
        /** 16-bit signed integer. */
        INT16(2),
        /** 32-bit unsigned integer. */
        UINT32(4),
        /** 32-bit signed integer. */
        INT32(4),
        /** IEEE binary32. */
        FLOAT32(4),
        /** one byte, 0 or 1. */
        BOOL(1),
        /** a UTF-8 string: uint64 length, bytes. */
        STRING(8),
        /** uint32 element type, uint64 count, elements. */
        ARRAY(12),
        /** 64-bit unsigned integer. */
        UINT64(8),
        /** 64-bit signed integer. */
        INT64(8),
        /** IEEE binary64. */
        FLOAT64(8);

        private final int minBytes;

        ValueType(int minBytes) {
            this.minBytes = minBytes;
        }

        /** @return the type's number in a GGUF file (its ordinal: UINT8 = 0 … FLOAT64 = 12) */
        public int code() {
            return ordinal();
        }

        /** @return whether values of this type are integers */
        public boolean isInteger() {
            return this == UINT8 || this == INT8 || this == UINT16 || this == INT16 || this == UINT32
                    || this == INT32 || this == UINT64 || this == INT64;
        }
    }

    /**
     * A metadata value. Integers of every width are {@code Long}, FLOAT32 a {@code Float}, FLOAT64 a
     * {@code Double}, BOOL a {@code Boolean}, STRING a {@code String}. An ARRAY is a {@code long[]} of integers, a
     * {@code float[]}, {@code double[]} or {@code boolean[]}, a {@code List<String>}, or a {@code List<Value>} of
     * arrays; {@code elementType} says which (null for a scalar).
     *
     * @param type the value's type
     * @param elementType an array's element type, else null
     * @param value the value
     */
    public record Value(ValueType type, ValueType elementType, Object value) {
        @Override
        public String toString() {
            if (type != ValueType.ARRAY) {
                return type + " " + value;
            }
            int n = value instanceof List<?> l ? l.size() : java.lang.reflect.Array.getLength(value);
            return "ARRAY of " + n + " " + elementType;
        }
    }

    /**
     * One tensor's entry in the file.
     *
     * @param name its name ({@code blk.0.attn_q.weight})
     * @param type its storage type
     * @param shape its row-major shape ({@code ne} reversed)
     * @param offset where its bytes start, relative to the data section
     */
    public record TensorInfo(String name, WeightType type, Shape shape, long offset) {
        /** @return the bytes it occupies */
        public long byteSize() {
            return shape.size() / type.blockSize() * type.blockBytes();
        }
    }

    /**
     * What a GGUF file holds.
     *
     * @param version 2 or 3
     * @param alignment the data alignment
     * @param metadata the key-value pairs in file order
     * @param infos the tensors' entries in file order
     * @param tensors the tensors in file order, each a view of its bytes
     */
    public record Contents(int version, int alignment, Map<String, Value> metadata, List<TensorInfo> infos,
                           StateDict tensors) {
        /** Copies the collections. */
        public Contents {
            metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
            infos = List.copyOf(infos);
        }

        /** @return whether the metadata has {@code key} */
        public boolean has(String key) {
            return metadata.containsKey(key);
        }

        /**
         * @param key a metadata key
         * @return its string value
         * @throws FormatException if it is absent or not a STRING
         */
        public String string(String key) throws FormatException {
            return (String) require(key, ValueType.STRING).value();
        }

        /**
         * @param key a metadata key
         * @return its value as a long, whichever integer width it has
         * @throws FormatException if it is absent or not an integer
         */
        public long integer(String key) throws FormatException {
            Value v = require(key, null);
            if (!v.type().isInteger()) {
                throw new FormatException("gguf: metadata " + key + " is " + v + ", an integer was expected");
            }
            return (Long) v.value();
        }

        /**
         * @param key a metadata key
         * @return its value as a double: FLOAT32, FLOAT64, or an integer
         * @throws FormatException if it is absent or not a number
         */
        public double number(String key) throws FormatException {
            Value v = require(key, null);
            if (v.value() instanceof Number n) {
                return n.doubleValue();
            }
            throw new FormatException("gguf: metadata " + key + " is " + v + ", a number was expected");
        }

        /**
         * @param key a metadata key
         * @return its boolean value
         * @throws FormatException if it is absent or not a BOOL
         */
        public boolean bool(String key) throws FormatException {
            return (Boolean) require(key, ValueType.BOOL).value();
        }

        /**
         * @param key a metadata key
         * @return its array of strings
         * @throws FormatException if it is absent or not an array of strings
         */
        @SuppressWarnings("unchecked")
        public List<String> strings(String key) throws FormatException {
            return (List<String>) array(key, ValueType.STRING).value();
        }

        /**
         * @param key a metadata key
         * @return its array of FLOAT32 (or integers, converted)
         * @throws FormatException if it is absent or not such an array
         */
        public float[] floats(String key) throws FormatException {
            Value v = require(key, ValueType.ARRAY);
            if (v.value() instanceof float[] f) {
                return f.clone();
            }
            if (v.value() instanceof long[] l) {
                float[] f = new float[l.length];
                for (int i = 0; i < l.length; i++) {
                    f[i] = l[i];
                }
                return f;
            }
            throw new FormatException("gguf: metadata " + key + " is " + v + ", an array of FLOAT32 was expected");
        }

        /**
         * @param key a metadata key
         * @return its array of integers, each within the range of int
         * @throws FormatException if it is absent, not an integer array, or a value does not fit an int
         */
        public int[] ints(String key) throws FormatException {
            Value v = require(key, ValueType.ARRAY);
            if (!(v.value() instanceof long[] l)) {
                throw new FormatException("gguf: metadata " + key + " is " + v + ", an integer array was expected");
            }
            int[] out = new int[l.length];
            for (int i = 0; i < l.length; i++) {
                if (l[i] != (int) l[i]) {
                    throw new FormatException("gguf: metadata " + key + "[" + i + "] is " + l[i]
                            + ", outside the range of int");
                }
                out[i] = (int) l[i];
            }
            return out;
        }

        private Value array(String key, ValueType element) throws FormatException {
            Value v = require(key, ValueType.ARRAY);
            if (v.elementType() != element) {
                throw new FormatException("gguf: metadata " + key + " is " + v + ", an array of " + element
                        + " was expected");
            }
            return v;
        }

        private Value require(String key, ValueType type) throws FormatException {
            Value v = metadata.get(key);
            if (v == null) {
                throw new FormatException("gguf: metadata " + key + " is missing");
            }
            if (type != null && v.type() != type) {
                throw new FormatException("gguf: metadata " + key + " is " + v + ", " + type + " was expected");
            }
            return v;
        }
    }

    /** The ggml tensor types by number; null where ggml has none (removed types). */
    private static final String[] GGML_TYPES = new String[40];

    static {
        String[] names = {"F32", "F16", "Q4_0", "Q4_1", null, null, "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q2_K", "Q3_K",
            "Q4_K", "Q5_K", "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S",
            "IQ4_XS", "I8", "I16", "I32", "I64", "F64", "IQ1_M", "BF16", null, null, null, "TQ1_0", "TQ2_0", null,
            null, null, "MXFP4"};
        System.arraycopy(names, 0, GGML_TYPES, 0, names.length);
    }

    /**
     * @param type a storage type attn4j holds, any but {@link WeightType#I8}
     * @return its ggml type number
     * @throws IllegalArgumentException for I8, ONNX's per-row scaled int8, which GGUF has no type for
     */
    public static int ggmlType(WeightType type) {
        return switch (type) {
            case F32 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2;
            case Q4_1 -> 3;
            case Q5_0 -> 6;
            case Q5_1 -> 7;
            case Q8_0 -> 8;
            case Q2_K -> 10;
            case Q3_K -> 11;
            case Q4_K -> 12;
            case Q5_K -> 13;
            case Q6_K -> 14;
            case IQ4_NL -> 20;
            case IQ4_XS -> 23;
            case F64 -> 28;
            case BF16 -> 30;
            case I8 -> throw new IllegalArgumentException("ggmlType: GGUF has no type for I8 weights (int8 scaled per"
                    + " row, as ONNX Runtime stores them)");
        };
    }

    /** The ggml names of the types attn4j loads, for messages. */
    private static final String SUPPORTED = java.util.Arrays.stream(WeightType.values())
            .filter(t -> t != WeightType.I8).map(Enum::name).collect(java.util.stream.Collectors.joining(", "));

    private static WeightType weightType(long code, String where) throws FormatException {
        for (WeightType t : WeightType.values()) {
            if (t != WeightType.I8 && ggmlType(t) == code) {
                return t;
            }
        }
        String name = code >= 0 && code < GGML_TYPES.length ? GGML_TYPES[(int) code] : null;
        throw new FormatException(where + " has ggml type " + (name != null ? name : "number " + code)
                + ", which " + (name != null ? "attn4j does not load" : "ggml does not define")
                + "; supported: " + SUPPORTED);
    }

    /**
     * @param file a GGUF file
     * @return its metadata and tensors, the tensors memory-mapped
     * @throws FormatException if the file is malformed or holds an unsupported tensor type
     * @throws IOException if it cannot be read
     */
    public static Contents read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = ch.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(size, Integer.MAX_VALUE));
            return parse(head, size, file.toString(), (position, bytes) ->
                    ch.map(FileChannel.MapMode.READ_ONLY, position, bytes));
        }
    }

    /**
     * @param given a whole GGUF file; not modified (copied once, the tensors view the copy)
     * @return its metadata and tensors
     * @throws FormatException if the bytes are malformed or hold an unsupported tensor type
     */
    public static Contents read(byte[] given) throws FormatException {
        byte[] bytes = given.clone();
        try {
            return parse(ByteBuffer.wrap(bytes), bytes.length, "the given bytes",
                    (position, n) -> ByteBuffer.wrap(bytes, (int) position, n).slice());
        } catch (FormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading from memory cannot fail", e);
        }
    }

    private interface Views {
        ByteBuffer view(long position, int bytes) throws IOException;
    }

    private static Contents parse(ByteBuffer head, long fileSize, String what, Views views) throws IOException {
        if (fileSize < 24) {
            throw new FormatException("gguf: " + what + " has " + fileSize + " bytes, fewer than the 24-byte header");
        }
        Reader r = new Reader(head.order(ByteOrder.LITTLE_ENDIAN), what);
        int magic = head.getInt();
        if (magic != MAGIC) {
            throw new FormatException("gguf: " + what + " does not start with the magic \"GGUF\"");
        }
        int version = head.getInt();
        if (version == 1) {
            throw new FormatException("gguf: " + what + " is GGUF version 1, which is not supported (2 and 3 are)");
        }
        if (version != 2 && version != 3) {
            throw new FormatException("gguf: " + what + " has version " + Integer.toUnsignedString(version)
                    + ((version & 0xffff) == 0 ? " (a big-endian file?)" : "")
                    + "; little-endian versions 2 and 3 are supported");
        }
        long tensorCount = r.count("the tensor count", 8 + 4 + 8 + 4 + 8 + 8);
        long kvCount = r.count("the metadata count", 8 + 1 + 4 + 1);
        Map<String, Value> metadata = new LinkedHashMap<>();
        for (long i = 0; i < kvCount; i++) {
            String key = r.string("metadata key " + i);
            if (key.isEmpty()) {
                throw new FormatException("gguf: metadata key " + i + " in " + what + " is empty");
            }
            ValueType type = r.type("metadata " + key);
            Value v = r.value(type, "metadata " + key, 0);
            if (metadata.put(key, v) != null) {
                throw new FormatException("gguf: metadata key " + key + " appears twice in " + what);
            }
        }
        int alignment = DEFAULT_ALIGNMENT;
        Value align = metadata.get("general.alignment");
        if (align != null) {
            long a = align.type() == ValueType.UINT32 ? (Long) align.value() : 0;
            if (a <= 0 || Long.bitCount(a) != 1) {
                throw new FormatException("gguf: general.alignment in " + what + " is " + align
                        + "; a UINT32 power of two was expected");
            }
            alignment = (int) a;
        }
        List<TensorInfo> infos = new ArrayList<>();
        Map<String, TensorInfo> byName = new LinkedHashMap<>();
        for (long i = 0; i < tensorCount; i++) {
            TensorInfo info = r.tensorInfo(i, alignment);
            if (byName.put(info.name(), info) != null) {
                throw new FormatException("gguf: tensor " + info.name() + " appears twice in " + what);
            }
            infos.add(info);
        }
        long dataStart = (head.position() + (long) alignment - 1) / alignment * alignment;
        long dataSize = Math.max(0, fileSize - dataStart);
        List<TensorInfo> sorted = new ArrayList<>(infos);
        sorted.sort(Comparator.comparingLong(TensorInfo::offset));
        long end = 0;
        String previous = null;
        for (TensorInfo t : sorted) {
            if (t.offset() < end) {
                throw new FormatException("gguf: tensor " + t.name() + " in " + what + " starts at data byte "
                        + t.offset() + ", inside tensor " + previous + " which ends at " + end);
            }
            if (t.byteSize() > dataSize - t.offset()) {
                throw new FormatException("gguf: tensor " + t.name() + " in " + what + " needs data bytes ["
                        + t.offset() + ", " + (t.offset() + t.byteSize()) + ") but the data section has "
                        + dataSize + " bytes");
            }
            end = t.offset() + t.byteSize();
            previous = t.name();
        }
        Map<String, HostTensor> tensors = new LinkedHashMap<>();
        for (TensorInfo t : infos) {
            tensors.put(t.name(), HostTensor.view(t.shape(), t.type(), dataStart + t.offset(), views::view));
        }
        return new Contents(version, alignment, metadata, infos, StateDict.of(tensors));
    }

    /** Bounds-checked little-endian reads from the head of the file. */
    private static final class Reader {
        private final ByteBuffer in;
        private final String what;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

        Reader(ByteBuffer in, String what) {
            this.in = in;
            this.what = what;
        }

        private void need(long bytes, String field) throws FormatException {
            if (bytes > in.remaining()) {
                throw new FormatException("gguf: " + field + " in " + what + " needs " + bytes
                        + " bytes at byte " + in.position() + " but " + in.remaining() + " are left");
            }
        }

        /** A uint64 count of items each at least {@code minBytes} long, checked against the bytes left. */
        long count(String field, int minBytes) throws FormatException {
            need(8, field);
            long n = in.getLong();
            if (n < 0 || n > in.remaining() / minBytes) {
                throw new FormatException("gguf: " + field + " in " + what + " is " + Long.toUnsignedString(n)
                        + ", more than the " + in.remaining() + " bytes left can hold");
            }
            return n;
        }

        String string(String field) throws FormatException {
            need(8, field);
            long n = in.getLong();
            if (n < 0 || n > in.remaining()) {
                throw new FormatException("gguf: " + field + " in " + what + " is a string of "
                        + Long.toUnsignedString(n) + " bytes but " + in.remaining() + " are left");
            }
            ByteBuffer bytes = in.slice(in.position(), (int) n);
            in.position(in.position() + (int) n);
            try {
                CharBuffer chars = utf8.reset().decode(bytes);
                return chars.toString();
            } catch (CharacterCodingException e) {
                throw new FormatException("gguf: " + field + " in " + what + " is not valid UTF-8");
            }
        }

        ValueType type(String field) throws FormatException {
            need(4, field);
            int code = in.getInt();
            if (code < 0 || code >= ValueType.values().length) {
                throw new FormatException("gguf: " + field + " in " + what + " has value type "
                        + Integer.toUnsignedString(code) + "; GGUF defines 0 to " + (ValueType.values().length - 1));
            }
            return ValueType.values()[code];
        }

        Value value(ValueType type, String field, int depth) throws FormatException {
            if (type == ValueType.ARRAY) {
                if (depth >= MAX_ARRAY_DEPTH) {
                    throw new FormatException("gguf: " + field + " in " + what + " nests arrays deeper than "
                            + MAX_ARRAY_DEPTH);
                }
                ValueType element = type(field + " element type");
                long n = count(field + " element count", element.minBytes);
                return new Value(ValueType.ARRAY, element, array(element, (int) n, field, depth));
            }
            need(type.minBytes, field);
            return new Value(type, null, scalar(type, field));
        }

        private Object scalar(ValueType type, String field) throws FormatException {
            return switch (type) {
                case UINT8 -> (long) (in.get() & 0xff);
                case INT8 -> (long) in.get();
                case UINT16 -> (long) (in.getShort() & 0xffff);
                case INT16 -> (long) in.getShort();
                case UINT32 -> in.getInt() & 0xffffffffL;
                case INT32 -> (long) in.getInt();
                case UINT64 -> {
                    long v = in.getLong();
                    if (v < 0) {
                        throw new FormatException("gguf: " + field + " in " + what + " is "
                                + Long.toUnsignedString(v) + ", beyond 2^63 - 1");
                    }
                    yield v;
                }
                case INT64 -> in.getLong();
                case FLOAT32 -> in.getFloat();
                case FLOAT64 -> in.getDouble();
                case BOOL -> {
                    byte b = in.get();
                    if (b != 0 && b != 1) {
                        throw new FormatException("gguf: " + field + " in " + what + " is a BOOL of byte " + b
                                + "; 0 or 1 was expected");
                    }
                    yield b == 1;
                }
                case STRING -> string(field);
                case ARRAY -> throw new IllegalStateException("arrays are read by value()");
            };
        }

        private Object array(ValueType element, int n, String field, int depth) throws FormatException {
            switch (element) {
                case FLOAT32 -> {
                    float[] f = new float[n];
                    in.slice(in.position(), 4 * n).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
                    in.position(in.position() + 4 * n);
                    return f;
                }
                case FLOAT64 -> {
                    double[] d = new double[n];
                    in.slice(in.position(), 8 * n).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(d);
                    in.position(in.position() + 8 * n);
                    return d;
                }
                case BOOL -> {
                    boolean[] b = new boolean[n];
                    for (int i = 0; i < n; i++) {
                        b[i] = (Boolean) scalar(element, field + "[" + i + "]");
                    }
                    return b;
                }
                case STRING -> {
                    List<String> s = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        s.add(string(field + "[" + i + "]"));
                    }
                    return Collections.unmodifiableList(s);
                }
                case ARRAY -> {
                    List<Value> a = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        a.add(value(ValueType.ARRAY, field + "[" + i + "]", depth + 1));
                    }
                    return Collections.unmodifiableList(a);
                }
                default -> {
                    long[] l = new long[n];
                    for (int i = 0; i < n; i++) {
                        l[i] = (Long) scalar(element, field + "[" + i + "]");
                    }
                    return l;
                }
            }
        }

        TensorInfo tensorInfo(long index, int alignment) throws FormatException {
            String name = string("the name of tensor " + index);
            String where = "gguf: tensor " + (name.isEmpty() ? "#" + index : name) + " in " + what;
            if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                throw new FormatException(where + " has a name of " + name.getBytes(StandardCharsets.UTF_8).length
                        + " bytes; 1 to " + MAX_NAME_BYTES + " are allowed");
            }
            need(4, where);
            int nDims = in.getInt();
            if (nDims < 1 || nDims > MAX_DIMS) {
                throw new FormatException(where + " has " + Integer.toUnsignedString(nDims) + " dimensions; 1 to "
                        + MAX_DIMS + " are allowed");
            }
            need(8L * nDims + 12, where);
            long[] ne = new long[nDims];
            long elements = 1;
            for (int i = 0; i < nDims; i++) {
                ne[i] = in.getLong();
                if (ne[i] < 1 || ne[i] > Integer.MAX_VALUE) {
                    throw new FormatException(where + " has ne[" + i + "] = " + Long.toUnsignedString(ne[i])
                            + "; 1 to " + Integer.MAX_VALUE + " are allowed");
                }
                elements = Math.multiplyHigh(elements, ne[i]) != 0 || elements * ne[i] < 0 ? -1 : elements * ne[i];
                if (elements < 0) {
                    throw new FormatException(where + " has dims " + Arrays.toString(Arrays.copyOf(ne, i + 1))
                            + " whose product overflows");
                }
            }
            WeightType type = weightType(in.getInt() & 0xffffffffL, where);
            if (ne[0] % type.blockSize() != 0) {
                throw new FormatException(where + " is " + type + " with ne[0] = " + ne[0] + ", not a whole number of"
                        + " blocks of " + type.blockSize());
            }
            long bytes = elements / type.blockSize() * type.blockBytes();
            long rowBytes = nDims == 1 ? bytes : bytes / ne[nDims - 1];
            if (bytes > Integer.MAX_VALUE && rowBytes > Integer.MAX_VALUE) {
                throw new FormatException(where + " has rows (along its first axis, ne[" + (nDims - 1) + "]) of "
                        + rowBytes + " bytes; a tensor is mapped in blocks of whole rows of at most "
                        + Integer.MAX_VALUE + " bytes");
            }
            long offset = in.getLong();
            if (offset < 0 || offset % alignment != 0) {
                throw new FormatException(where + " has data offset " + Long.toUnsignedString(offset)
                        + ", not a multiple of the alignment " + alignment);
            }
            int[] dims = new int[nDims];
            for (int i = 0; i < nDims; i++) {
                dims[i] = (int) ne[nDims - 1 - i];
            }
            return new TensorInfo(name, type, Shape.of(dims), offset);
        }
    }
}
