package org.attn4j.models.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * Writes GGUF version 3 files as llama.cpp's {@code gguf-py} writer lays them out: header, metadata in insertion
 * order, tensor entries, padding to the alignment, then each tensor's bytes in its own storage type, each padded to
 * the alignment. Values use {@link Gguf.Value}'s Java forms, so whatever {@link Gguf#read} returns writes back
 * unchanged. For tests and benchmarks: the files it makes are what the reader and llama.cpp are checked with. A tensor
 * may be given as a supplier that {@link #write} calls when it reaches it, so that a model larger than the heap is
 * written one tensor at a time.
 */
public final class GgufWriter {
    private final Map<String, Gguf.Value> metadata = new LinkedHashMap<>();
    private final Map<String, Entry> tensors = new LinkedHashMap<>();
    private int alignment = Gguf.DEFAULT_ALIGNMENT;

    /** @param alignment the data alignment; written as {@code general.alignment} unless it is the default */
    public GgufWriter alignment(int alignment) {
        this.alignment = alignment;
        if (alignment != Gguf.DEFAULT_ALIGNMENT) {
            metadata.put("general.alignment", new Gguf.Value(Gguf.ValueType.UINT32, null, (long) alignment));
        }
        return this;
    }

    /** Adds a metadata value of any type. */
    public GgufWriter put(String key, Gguf.Value value) {
        metadata.put(key, value);
        return this;
    }

    /** Adds a STRING. */
    public GgufWriter string(String key, String value) {
        return put(key, new Gguf.Value(Gguf.ValueType.STRING, null, value));
    }

    /** Adds a UINT32. */
    public GgufWriter uint32(String key, long value) {
        return put(key, new Gguf.Value(Gguf.ValueType.UINT32, null, value));
    }

    /** Adds a FLOAT32. */
    public GgufWriter float32(String key, float value) {
        return put(key, new Gguf.Value(Gguf.ValueType.FLOAT32, null, value));
    }

    /** Adds a BOOL. */
    public GgufWriter bool(String key, boolean value) {
        return put(key, new Gguf.Value(Gguf.ValueType.BOOL, null, value));
    }

    /** Adds an array of STRING. */
    public GgufWriter strings(String key, List<String> values) {
        return put(key, new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.STRING, List.copyOf(values)));
    }

    /** Adds an array of FLOAT32. */
    public GgufWriter floats(String key, float[] values) {
        return put(key, new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.FLOAT32, values.clone()));
    }

    /** Adds an array of INT32. */
    public GgufWriter int32s(String key, int[] values) {
        long[] l = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            l[i] = values[i];
        }
        return put(key, new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.INT32, l));
    }

    /** A tensor's entry: its shape and type for the header, and its values when the data is written. */
    private record Entry(Shape shape, WeightType type, Supplier<HostTensor> data) {
        long byteSize() {
            return shape.size() / type.blockSize() * type.blockBytes();
        }

        HostTensor values(String name) {
            HostTensor t = data.get();
            if (!t.shape().equals(shape) || t.type() != type) {
                throw new IllegalStateException("GgufWriter: tensor " + name + " was announced as " + type + shape
                        + " but is " + t.type() + t.shape());
            }
            return t;
        }
    }

    /** Adds a tensor, written in its own storage type. */
    public GgufWriter tensor(String name, HostTensor tensor) {
        return tensor(name, tensor.shape(), tensor.type(), () -> tensor);
    }

    /**
     * Adds a tensor whose values are made only when the file is written, and dropped after.
     *
     * @param name its name
     * @param shape its shape
     * @param type its storage type
     * @param data makes it, of that shape and type
     * @return this writer
     */
    public GgufWriter tensor(String name, Shape shape, WeightType type, Supplier<HostTensor> data) {
        if (tensors.put(name, new Entry(shape, type, data)) != null) {
            throw new IllegalArgumentException("GgufWriter: tensor " + name + " added twice");
        }
        return this;
    }

    /** Writes the file, one tensor at a time. */
    public void write(Path file) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeAll(buffer -> {
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            });
        }
    }

    /** @return the whole file */
    public byte[] toBytes() {
        Buffer all = new Buffer();
        try {
            writeAll(all::put);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return all.toArray();
    }

    /** Where {@link #writeAll} sends the file's bytes, in order. */
    @FunctionalInterface
    private interface Sink {
        void accept(ByteBuffer bytes) throws IOException;
    }

    private void writeAll(Sink sink) throws IOException {
        Buffer b = new Buffer();
        b.putInt(0x46554747).putInt(3).putLong(tensors.size()).putLong(metadata.size());
        metadata.forEach((key, value) -> {
            b.putString(key).putInt(value.type().code());
            b.putValue(value);
        });
        long offset = 0;
        for (Map.Entry<String, Entry> e : tensors.entrySet()) {
            Entry t = e.getValue();
            int[] dims = t.shape().toArray();
            b.putString(e.getKey()).putInt(dims.length);
            for (int i = dims.length - 1; i >= 0; i--) {
                b.putLong(dims[i]);
            }
            b.putInt(Gguf.ggmlType(t.type())).putLong(offset);
            offset += pad(t.byteSize());
        }
        b.padTo(alignment);
        sink.accept(b.flipped());
        ByteBuffer zeros = ByteBuffer.allocate(alignment);
        for (Map.Entry<String, Entry> e : tensors.entrySet()) {
            long size = e.getValue().byteSize();
            sink.accept(e.getValue().values(e.getKey()).bytes());
            sink.accept(zeros.clear().limit((int) (pad(size) - size)));
        }
    }

    private long pad(long n) {
        return (n + alignment - 1) / alignment * alignment;
    }

    /** A growing little-endian byte buffer. */
    private static final class Buffer {
        private ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

        private Buffer room(long n) {
            if (buf.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.toIntExact(Math.max(2L * buf.capacity(),
                        buf.position() + n))).order(ByteOrder.LITTLE_ENDIAN);
                bigger.put(buf.flip());
                buf = bigger;
            }
            return this;
        }

        Buffer putInt(int v) {
            room(4).buf.putInt(v);
            return this;
        }

        Buffer putLong(long v) {
            room(8).buf.putLong(v);
            return this;
        }

        Buffer put(ByteBuffer bytes) {
            room(bytes.remaining()).buf.put(bytes);
            return this;
        }

        Buffer putString(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            putLong(utf8.length);
            return put(ByteBuffer.wrap(utf8));
        }

        void padTo(int alignment) {
            int pad = (alignment - buf.position() % alignment) % alignment;
            room(pad).buf.put(new byte[pad]);
        }

        void putValue(Gguf.Value v) {
            if (v.type() == Gguf.ValueType.ARRAY) {
                Object a = v.value();
                putInt(v.elementType().code());
                if (a instanceof long[] l) {
                    putLong(l.length);
                    for (long x : l) {
                        putScalar(v.elementType(), x);
                    }
                } else if (a instanceof float[] f) {
                    putLong(f.length);
                    for (float x : f) {
                        room(4).buf.putFloat(x);
                    }
                } else if (a instanceof double[] d) {
                    putLong(d.length);
                    for (double x : d) {
                        room(8).buf.putDouble(x);
                    }
                } else if (a instanceof boolean[] z) {
                    putLong(z.length);
                    for (boolean x : z) {
                        room(1).buf.put((byte) (x ? 1 : 0));
                    }
                } else if (a instanceof List<?> list) {
                    putLong(list.size());
                    for (Object x : list) {
                        if (x instanceof Gguf.Value inner) {
                            putValue(inner);
                        } else {
                            putString((String) x);
                        }
                    }
                } else {
                    throw new IllegalArgumentException("GgufWriter: array value " + a);
                }
                return;
            }
            putScalar(v.type(), v.value());
        }

        private void putScalar(Gguf.ValueType type, Object value) {
            switch (type) {
                case UINT8, INT8 -> room(1).buf.put((byte) (long) (Long) value);
                case UINT16, INT16 -> room(2).buf.putShort((short) (long) (Long) value);
                case UINT32, INT32 -> putInt((int) (long) (Long) value);
                case UINT64, INT64 -> putLong((Long) value);
                case FLOAT32 -> room(4).buf.putFloat((Float) value);
                case FLOAT64 -> room(8).buf.putDouble((Double) value);
                case BOOL -> room(1).buf.put((byte) ((Boolean) value ? 1 : 0));
                case STRING -> putString((String) value);
                case ARRAY -> throw new IllegalArgumentException("GgufWriter: nested array written as a scalar");
            }
        }

        byte[] toArray() {
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }

        /** @return the bytes written so far, ready to be read */
        ByteBuffer flipped() {
            return buf.flip();
        }
    }
}
