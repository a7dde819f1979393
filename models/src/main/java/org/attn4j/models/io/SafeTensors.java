package org.attn4j.models.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Reads and writes the <a href="https://github.com/huggingface/safetensors">safetensors</a> format:
 * <pre>
 *   8 bytes    N, the header length, unsigned little-endian
 *   N bytes    UTF-8 JSON: {"__metadata__": {string: string}?,
 *                           name: {"dtype": "F16"|"BF16"|"F32"|"F64", "shape": [d0, ...],
 *                                  "data_offsets": [begin, end]}, ...}
 *   the rest   the data; offsets are relative to its start, values little-endian row-major
 * </pre>
 * F16, BF16, F32 and F64 are read; the integer and boolean dtypes are refused with a message. A file is read through
 * a memory map: each tensor is a read-only view of its bytes in the file's own dtype ({@link HostTensor#wrap}),
 * converted only when uploaded to a backend, so nothing is copied to the heap or widened. Reading validates everything against the real file size <em>before</em> allocating: the header length
 * (at most {@value #MAX_HEADER_BYTES} bytes and within the file), strict JSON without duplicate names, each entry's
 * keys and types, dims at least 1, {@code elements × dtype size = end - begin}, and offsets that tile the data
 * section exactly (no overlap, no gap, nothing past the end of the file). A malformed or hostile file therefore
 * ends in a {@link FormatException} naming the problem, never in an out-of-memory error or a partial load.
 */
public final class SafeTensors {
    /** The largest header accepted, as in the reference implementation. */
    public static final long MAX_HEADER_BYTES = 100L * 1024 * 1024;

    private static final String METADATA = "__metadata__";

    private SafeTensors() {
    }

    /** A file that is not valid safetensors, or holds a dtype attn4j cannot load. */
    public static final class FormatException extends IOException {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }
    }

    /**
     * What a safetensors file holds.
     *
     * @param tensors the tensors in data order (ascending offsets), in the file's dtypes
     * @param dtypes each tensor's dtype in the file
     * @param metadata the {@code __metadata__} strings, empty if absent
     */
    public record Contents(StateDict tensors, Map<String, WeightType> dtypes, Map<String, String> metadata) {
        /** Copies the maps. */
        public Contents {
            dtypes = Collections.unmodifiableMap(new LinkedHashMap<>(dtypes));
            metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        }
    }

    /**
     * Reads the weights of a Hugging Face model folder: {@code model.safetensors}, or, for a sharded checkpoint, every
     * shard named by the {@code weight_map} of {@code model.safetensors.index.json}. Each name must sit in the shard
     * the index gives, and each shard may hold only names the index gives it.
     *
     * @param folder the model folder
     * @return all tensors (shards in index order), their file dtypes and the first shard's metadata
     * @throws FormatException if a file is malformed, the index names a file outside the folder, or the index and
     *     the shards disagree
     * @throws IOException if a file cannot be read
     */
    public static Contents readCheckpoint(Path folder) throws IOException {
        Path index = folder.resolve("model.safetensors.index.json");
        if (!Files.exists(index)) {
            return read(folder.resolve("model.safetensors"));
        }
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(index.toFile());
        } catch (JsonProcessingException e) {
            throw new FormatException("safetensors: " + index + " is not valid JSON: " + e.getOriginalMessage());
        }
        JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject() || map.isEmpty()) {
            throw new FormatException("safetensors: " + index + " has no non-empty object \"weight_map\"");
        }
        Map<String, List<String>> byShard = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            String shard = e.getValue().isTextual() ? e.getValue().textValue() : "";
            if (shard.isEmpty() || shard.contains("/") || shard.contains("\\") || shard.equals("..")) {
                throw new FormatException("safetensors: " + index + " maps '" + e.getKey() + "' to " + e.getValue()
                        + "; a file name in the same folder was expected");
            }
            byShard.computeIfAbsent(shard, k -> new ArrayList<>()).add(e.getKey());
        }
        Map<String, HostTensor> tensors = new LinkedHashMap<>();
        Map<String, WeightType> dtypes = new LinkedHashMap<>();
        Map<String, String> metadata = null;
        for (Map.Entry<String, List<String>> shard : byShard.entrySet()) {
            Contents c = read(folder.resolve(shard.getKey()));
            Set<String> listed = new HashSet<>(shard.getValue());
            for (String name : listed) {
                if (!c.tensors().contains(name)) {
                    throw new FormatException("safetensors: " + index + " puts '" + name + "' in " + shard.getKey()
                            + ", which does not hold it");
                }
            }
            for (String name : c.tensors().names()) {
                if (!listed.contains(name)) {
                    throw new FormatException("safetensors: " + shard.getKey() + " holds '" + name
                            + "', which " + index + " does not list for it");
                }
                tensors.put(name, c.tensors().get(name));
                dtypes.put(name, c.dtypes().get(name));
            }
            metadata = metadata == null ? c.metadata() : metadata;
        }
        return new Contents(StateDict.of(tensors), dtypes, metadata);
    }

    private interface Source {
        long size() throws IOException;

        void read(long position, ByteBuffer into) throws IOException;

        ByteBuffer view(long position, int size) throws IOException;
    }

    private record Entry(String name, WeightType dtype, Shape shape, long begin, long end) {
    }

    /**
     * @param file a safetensors file
     * @return its tensors and metadata
     * @throws FormatException if the file is malformed or holds an unsupported dtype
     * @throws IOException if it cannot be read
     */
    public static Contents read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return read(new Source() {
                @Override
                public long size() throws IOException {
                    return ch.size();
                }

                @Override
                public void read(long position, ByteBuffer into) throws IOException {
                    long p = position;
                    while (into.hasRemaining()) {
                        int n = ch.read(into, p);
                        if (n < 0) {
                            throw new FormatException("safetensors: " + file + " ended early at byte " + p);
                        }
                        p += n;
                    }
                }

                @Override
                public ByteBuffer view(long position, int size) throws IOException {
                    return ch.map(FileChannel.MapMode.READ_ONLY, position, size);
                }
            }, file.toString());
        }
    }

    /**
     * @param given a whole safetensors file; not modified (copied once, the tensors view the copy)
     * @return its tensors and metadata
     * @throws FormatException if the bytes are malformed or hold an unsupported dtype
     */
    public static Contents read(byte[] given) throws FormatException {
        byte[] bytes = given.clone();
        try {
            return read(new Source() {
                @Override
                public long size() {
                    return bytes.length;
                }

                @Override
                public void read(long position, ByteBuffer into) {
                    into.put(bytes, (int) position, into.remaining());
                }

                @Override
                public ByteBuffer view(long position, int size) {
                    return ByteBuffer.wrap(bytes, (int) position, size);
                }
            }, "the given bytes");
        } catch (FormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading from memory cannot fail", e);
        }
    }

    private static Contents read(Source src, String what) throws IOException {
        long fileSize = src.size();
        if (fileSize < 8) {
            throw new FormatException("safetensors: " + what + " has " + fileSize
                    + " bytes, fewer than the 8-byte header length");
        }
        ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        src.read(0, lenBuf);
        long headerLen = lenBuf.flip().getLong();
        if (headerLen < 0 || headerLen > MAX_HEADER_BYTES || headerLen > fileSize - 8) {
            throw new FormatException("safetensors: " + what + " declares a header of "
                    + Long.toUnsignedString(headerLen) + " bytes but the file has " + (fileSize - 8)
                    + " bytes after the length and the limit is " + MAX_HEADER_BYTES);
        }
        ByteBuffer headerBuf = ByteBuffer.allocate((int) headerLen);
        src.read(8, headerBuf);
        String json;
        try {
            json = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(headerBuf.flip()).toString();
        } catch (CharacterCodingException e) {
            throw new FormatException("safetensors: the header of " + what + " is not valid UTF-8");
        }
        Object parsed;
        try {
            parsed = StrictJson.parse(json);
        } catch (IllegalArgumentException e) {
            throw new FormatException("safetensors: the header of " + what + " is not valid JSON: " + e.getMessage());
        }
        if (!(parsed instanceof Map<?, ?> header)) {
            throw new FormatException("safetensors: the header of " + what + " is not a JSON object");
        }
        long dataStart = 8 + headerLen;
        long dataSize = fileSize - dataStart;
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Map.Entry<?, ?> e : header.entrySet()) {
            String name = (String) e.getKey();
            if (name.equals(METADATA)) {
                metadata = metadata(e.getValue(), what);
            } else {
                entries.add(entry(name, e.getValue(), dataSize, what));
            }
        }
        entries.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long expected = 0;
        for (Entry en : entries) {
            if (en.begin() != expected) {
                throw new FormatException("safetensors: tensor '" + en.name() + "' in " + what + " starts at data byte "
                        + en.begin() + " but the previous tensor ends at " + expected
                        + (en.begin() < expected ? " (overlap)" : " (gap)"));
            }
            expected = en.end();
        }
        if (expected != dataSize) {
            throw new FormatException("safetensors: the tensors of " + what + " cover " + expected
                    + " data bytes but the file holds " + dataSize + " after the header");
        }
        Map<String, HostTensor> tensors = new LinkedHashMap<>();
        Map<String, WeightType> dtypes = new LinkedHashMap<>();
        for (Entry en : entries) {
            tensors.put(en.name(), HostTensor.view(en.shape(), en.dtype(), dataStart + en.begin(), src::view));
            dtypes.put(en.name(), en.dtype());
        }
        return new Contents(StateDict.of(tensors), dtypes, metadata);
    }

    private static Map<String, String> metadata(Object value, String what) throws FormatException {
        if (!(value instanceof Map<?, ?> map)) {
            throw new FormatException("safetensors: " + METADATA + " in " + what + " is not an object");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw new FormatException("safetensors: " + METADATA + " entry '" + e.getKey() + "' in " + what
                        + " is not a string");
            }
            out.put((String) e.getKey(), s);
        }
        return out;
    }

    private static Entry entry(String name, Object value, long dataSize, String what) throws FormatException {
        String where = "safetensors: tensor '" + name + "' in " + what;
        if (name.isEmpty()) {
            throw new FormatException("safetensors: a tensor in " + what + " has an empty name");
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw new FormatException(where + " is not an object");
        }
        for (Object key : map.keySet()) {
            if (!key.equals("dtype") && !key.equals("shape") && !key.equals("data_offsets")) {
                throw new FormatException(where + " has an unknown key '" + key + "'");
            }
        }
        if (!(map.get("dtype") instanceof String dtypeName)) {
            throw new FormatException(where + " has no string \"dtype\"");
        }
        WeightType dtype = dtype(dtypeName, where);
        if (!(map.get("shape") instanceof List<?> dimList)) {
            throw new FormatException(where + " has no array \"shape\"");
        }
        int[] dims = new int[dimList.size()];
        long elements = 1;
        for (int i = 0; i < dims.length; i++) {
            long d = nonNegative(dimList.get(i), where + " shape[" + i + "]");
            if (d < 1 || d > Integer.MAX_VALUE) {
                throw new FormatException(where + " has dimension " + d + " at axis " + i
                        + "; attn4j tensors need every dimension in [1, " + Integer.MAX_VALUE + "]");
            }
            dims[i] = (int) d;
            elements *= d;
            if (elements > dataSize / dtype.blockBytes()) {
                throw new FormatException(where + " has shape " + dimList + ", more elements than the "
                        + dataSize + "-byte data section can hold");
            }
        }
        long rowBytes = elements * dtype.blockBytes() / (dims.length < 2 ? 1 : dims[0]);
        if (rowBytes > Integer.MAX_VALUE) {
            throw new FormatException(where + " has rows of " + rowBytes + " bytes along axis 0; a tensor is mapped"
                    + " in blocks of whole rows of at most " + Integer.MAX_VALUE + " bytes");
        }
        if (!(map.get("data_offsets") instanceof List<?> offsets) || offsets.size() != 2) {
            throw new FormatException(where + " has no \"data_offsets\" [begin, end]");
        }
        long begin = nonNegative(offsets.get(0), where + " data_offsets[0]");
        long end = nonNegative(offsets.get(1), where + " data_offsets[1]");
        if (begin > end || end > dataSize) {
            throw new FormatException(where + " has data_offsets [" + begin + ", " + end
                    + "] outside the data section of " + dataSize + " bytes");
        }
        if (end - begin != elements * dtype.blockBytes()) {
            throw new FormatException(where + " has shape " + dimList + " of dtype " + dtypeName + " ("
                    + elements * dtype.blockBytes() + " bytes) but data_offsets [" + begin + ", " + end + "] span "
                    + (end - begin) + " bytes");
        }
        return new Entry(name, dtype, Shape.of(dims), begin, end);
    }

    private static long nonNegative(Object v, String what) throws FormatException {
        if (!(v instanceof Long l) || l < 0) {
            throw new FormatException(what + " is " + v + "; a non-negative integer was expected");
        }
        return l;
    }

    private static WeightType dtype(String name, String where) throws FormatException {
        return switch (name) {
            case "F16" -> WeightType.F16;
            case "BF16" -> WeightType.BF16;
            case "F32" -> WeightType.F32;
            case "F64" -> WeightType.F64;
            default -> throw new FormatException(where + " has dtype " + name
                    + ", which attn4j does not load; only F16, BF16, F32 and F64 tensors are supported");
        };
    }

    /**
     * Writes tensors in the order of {@code tensors}, each contiguous after the previous one.
     *
     * @param file the file to create or replace
     * @param tensors the tensors; not modified
     * @param dtype F32 (values rounded to nearest) or F64
     * @param metadata strings for {@code __metadata__}, may be empty; not modified
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, StateDict tensors, DType dtype, Map<String, String> metadata)
            throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(toBytes(tensors, dtype, metadata));
        }
    }

    /**
     * @param tensors the tensors; not modified
     * @param dtype F32 (values rounded to nearest) or F64
     * @param metadata strings for {@code __metadata__}, may be empty; not modified
     * @return the whole file
     */
    public static byte[] toBytes(StateDict tensors, DType dtype, Map<String, String> metadata) {
        StringBuilder h = new StringBuilder("{");
        if (!metadata.isEmpty()) {
            h.append(StrictJson.quote(METADATA)).append(":{");
            int i = 0;
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                h.append(i++ > 0 ? "," : "").append(StrictJson.quote(e.getKey())).append(':')
                        .append(StrictJson.quote(e.getValue()));
            }
            h.append('}');
        }
        long offset = 0;
        for (Map.Entry<String, HostTensor> e : tensors.asMap().entrySet()) {
            if (e.getKey().equals(METADATA)) {
                throw new IllegalArgumentException("SafeTensors.write: a tensor may not be named " + METADATA);
            }
            long bytes = e.getValue().shape().size() * dtype.byteSize();
            h.append(h.length() > 1 ? "," : "").append(StrictJson.quote(e.getKey())).append(":{\"dtype\":\"")
                    .append(dtype.name()).append("\",\"shape\":[");
            int[] dims = e.getValue().shape().toArray();
            for (int i = 0; i < dims.length; i++) {
                h.append(i > 0 ? "," : "").append(dims[i]);
            }
            h.append("],\"data_offsets\":[").append(offset).append(',').append(offset + bytes).append("]}");
            offset += bytes;
        }
        h.append('}');
        int unpadded = h.toString().getBytes(StandardCharsets.UTF_8).length;
        h.append(" ".repeat((8 - unpadded % 8) % 8));
        byte[] header = h.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(8 + header.length + offset))
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(header.length).put(header);
        for (HostTensor t : tensors.asMap().values()) {
            for (int i = 0; i < t.shape().size(); i++) {
                if (dtype == DType.F64) {
                    buf.putDouble(t.get(i));
                } else {
                    buf.putFloat((float) t.get(i));
                }
            }
        }
        return buf.array();
    }
}
