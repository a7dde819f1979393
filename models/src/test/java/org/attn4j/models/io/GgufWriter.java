package org.attn4j.models.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.models.HostTensor;

/**
 * Writes GGUF version 3 files as llama.cpp's {@code gguf-py} writer lays them out: header, metadata in insertion
 * order, tensor entries, padding to the alignment, then each tensor's bytes in its own storage type, each padded to
 * the alignment. Values use {@link Gguf.Value}'s Java forms, so whatever {@link Gguf#read} returns writes back
 * unchanged. For tests and benchmarks: the files it makes are what the reader and llama.cpp are checked with.
 */
public final class GgufWriter {
    private final Map<String, Gguf.Value> metadata = new LinkedHashMap<>();
    private final Map<String, HostTensor> tensors = new LinkedHashMap<>();
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

    /** Adds a tensor, written in its own storage type. */
    public GgufWriter tensor(String name, HostTensor tensor) {
        if (tensors.put(name, tensor) != null) {
            throw new IllegalArgumentException("GgufWriter: tensor " + name + " added twice");
        }
        return this;
    }

    /** Writes the file. */
    public void write(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(toBytes());
        }
    }

    /** @return the whole file */
    public byte[] toBytes() {
        Buffer b = new Buffer();
        b.putInt(0x46554747).putInt(3).putLong(tensors.size()).putLong(metadata.size());
        metadata.forEach((key, value) -> {
            b.putString(key).putInt(value.type().code());
            b.putValue(value);
        });
        long offset = 0;
        for (Map.Entry<String, HostTensor> e : tensors.entrySet()) {
            HostTensor t = e.getValue();
            int[] dims = t.shape().toArray();
            b.putString(e.getKey()).putInt(dims.length);
            for (int i = dims.length - 1; i >= 0; i--) {
                b.putLong(dims[i]);
            }
            b.putInt(Gguf.ggmlType(t.type())).putLong(offset);
            offset += pad(t.byteSize());
        }
        b.padTo(alignment);
        for (HostTensor t : tensors.values()) {
            b.put(t.bytes());
            b.padTo(alignment);
        }
        return b.toArray();
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
    }
}
