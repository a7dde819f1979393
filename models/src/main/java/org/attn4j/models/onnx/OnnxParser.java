package org.attn4j.models.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the messages of {@code onnx.proto} that {@link OnnxModel} holds, by field number and wire type. Each
 * nested message is read inside a limit whose length is first checked against the bytes that remain, so a lying
 * length neither allocates nor reads past the input; sub-graphs are skipped, so nesting is bounded.
 */
final class OnnxParser {
    private static final int VARINT = WireFormat.WIRETYPE_VARINT;
    private static final int FIXED32 = WireFormat.WIRETYPE_FIXED32;
    private static final int LENGTH = WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int EXTERNAL = 1;

    private final CodedInputStream in;
    private final int size;
    private String where = "ModelProto";

    private OnnxParser(CodedInputStream in, int size) {
        this.in = in;
        this.size = size;
    }

    static OnnxModel parse(ByteBuffer bytes, String source) throws OnnxModel.FormatException {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        in.enableAliasing(true);
        OnnxParser parser = new OnnxParser(in, bytes.remaining());
        try {
            return parser.model();
        } catch (InvalidProtocolBufferException e) {
            throw new OnnxModel.FormatException(source + ": not a valid ONNX protobuf, in " + parser.where + ": "
                    + e.getMessage(), e);
        } catch (IOException | IllegalArgumentException e) {
            throw new OnnxModel.FormatException(source + ": in " + parser.where + ": " + e.getMessage(), e);
        }
    }

    private OnnxModel model() throws IOException {
        long irVersion = 0;
        String producer = "";
        long opset = -1;
        Graph graph = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> irVersion = varint(tag, "ir_version");
                case 2 -> producer = string(tag, "producer_name");
                case 7 -> {
                    if (graph != null) {
                        throw new OnnxModel.FormatException("ModelProto has two graphs (field 7)");
                    }
                    int limit = enter(tag, "ModelProto.graph");
                    graph = graph();
                    leave(limit, "ModelProto");
                }
                case 8 -> {
                    int limit = enter(tag, "ModelProto.opset_import");
                    long version = opsetImport();
                    if (version >= 0) {
                        opset = version;
                    }
                    leave(limit, "ModelProto");
                }
                default -> skip(tag);
            }
        }
        if (graph == null) {
            throw new OnnxModel.FormatException("ModelProto has no graph (field 7)");
        }
        return new OnnxModel(irVersion, producer, opset, graph.nodes, graph.initializers, graph.inputs,
                graph.outputs);
    }

    /** @return the version if this import is the default domain, else -1 */
    private long opsetImport() throws IOException {
        String domain = "";
        long version = -1;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> domain = string(tag, "domain");
                case 2 -> version = varint(tag, "version");
                default -> skip(tag);
            }
        }
        return domain.isEmpty() || domain.equals("ai.onnx") ? version : -1;
    }

    private record Graph(List<OnnxNode> nodes, Map<String, OnnxTensor> initializers, List<String> inputs,
                         List<String> outputs) {
    }

    private Graph graph() throws IOException {
        List<OnnxNode> nodes = new ArrayList<>();
        Map<String, OnnxTensor> initializers = new LinkedHashMap<>();
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> {
                    int limit = enter(tag, "GraphProto.node[" + nodes.size() + "]");
                    nodes.add(node());
                    leave(limit, "GraphProto");
                }
                case 5 -> {
                    int limit = enter(tag, "GraphProto.initializer[" + initializers.size() + "]");
                    OnnxTensor t = tensor();
                    if (initializers.put(t.name(), t) != null) {
                        throw new OnnxModel.FormatException("two initializers are named '" + t.name() + "'");
                    }
                    leave(limit, "GraphProto");
                }
                case 11, 12 -> {
                    boolean input = WireFormat.getTagFieldNumber(tag) == 11;
                    int limit = enter(tag, input ? "GraphProto.input" : "GraphProto.output");
                    (input ? inputs : outputs).add(valueName());
                    leave(limit, "GraphProto");
                }
                default -> skip(tag);
            }
        }
        return new Graph(nodes, initializers, inputs, outputs);
    }

    private String valueName() throws IOException {
        String name = "";
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == 1) {
                name = string(tag, "name");
            } else {
                skip(tag);
            }
        }
        return name;
    }

    private OnnxNode node() throws IOException {
        String name = "";
        String opType = "";
        String domain = "";
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        Map<String, Object> attributes = new HashMap<>();
        String here = where;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> inputs.add(string(tag, "input"));
                case 2 -> outputs.add(string(tag, "output"));
                case 3 -> name = string(tag, "name");
                case 4 -> opType = string(tag, "op_type");
                case 5 -> {
                    int limit = enter(tag, here + ".attribute");
                    attribute(attributes);
                    leave(limit, here);
                }
                case 7 -> domain = string(tag, "domain");
                default -> skip(tag);
            }
        }
        return new OnnxNode(name, opType, domain, inputs, outputs, attributes);
    }

    private void attribute(Map<String, Object> attributes) throws IOException {
        String name = null;
        int type = 0;
        Map<Integer, Object> values = new HashMap<>();
        Repeated floats = new Repeated();
        Repeated ints = new Repeated();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            int field = WireFormat.getTagFieldNumber(tag);
            switch (field) {
                case 1 -> name = string(tag, "name");
                case 2 -> {
                    expect(tag, FIXED32, "f");
                    values.put(field, in.readFloat());
                }
                case 3 -> values.put(field, varint(tag, "i"));
                case 4 -> {
                    expect(tag, LENGTH, "s");
                    values.put(field, in.readStringRequireUtf8());
                }
                case 5 -> {
                    String here = where;
                    int limit = enter(tag, here + ".t");
                    values.put(field, tensor());
                    leave(limit, here);
                }
                case 7 -> reals(tag, floats, false);
                case 8 -> longs(tag, ints);
                case 20 -> type = (int) varint(tag, "type");
                default -> skip(tag);
            }
        }
        if (name == null || name.isEmpty()) {
            throw new OnnxModel.FormatException("an attribute has no name");
        }
        if (floats.count > 0) {
            values.put(7, floats.floats());
        }
        if (ints.count > 0) {
            values.put(8, ints.longs());
        }
        int field = switch (type) {
            case 1 -> 2;
            case 2 -> 3;
            case 3 -> 4;
            case 4 -> 5;
            case 6 -> 7;
            case 7 -> 8;
            case 0 -> values.size() == 1 ? values.keySet().iterator().next() : -1;
            default -> -1;
        };
        Object value = values.get(field);
        if (value != null) {
            attributes.put(name, value);
        }
    }

    private OnnxTensor tensor() throws IOException {
        String name = "";
        int dataType = 0;
        Repeated dims = new Repeated();
        ByteBuffer raw = null;
        Repeated floats = null;
        Repeated int32s = null;
        Repeated int64s = null;
        Repeated uint64s = null;
        Repeated doubles = null;
        boolean external = false;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> longs(tag, dims);
                case 2 -> dataType = (int) varint(tag, "data_type");
                case 3 -> throw new OnnxModel.FormatException("tensor '" + name + "' is segmented (field 3)"
                        + ", which attn4j does not read");
                case 4 -> reals(tag, floats = floats == null ? new Repeated() : floats, false);
                case 5 -> longs(tag, int32s = int32s == null ? new Repeated() : int32s);
                case 7 -> longs(tag, int64s = int64s == null ? new Repeated() : int64s);
                case 8 -> name = string(tag, "name");
                case 9 -> {
                    expect(tag, LENGTH, "raw_data");
                    raw = in.readByteBuffer();
                }
                case 10 -> reals(tag, doubles = doubles == null ? new Repeated() : doubles, true);
                case 11 -> longs(tag, uint64s = uint64s == null ? new Repeated() : uint64s);
                case 13 -> {
                    external = true;
                    skip(tag);
                }
                case 14 -> external |= varint(tag, "data_location") == EXTERNAL;
                default -> skip(tag);
            }
        }
        where = where + " '" + name + "'";
        if (external) {
            throw new OnnxModel.FormatException("tensor '" + name + "' keeps its data in an external file "
                    + "(data_location EXTERNAL); attn4j reads only data inside the model: save it with "
                    + "onnx.save_model(model, path, save_as_external_data=False)");
        }
        if (dataType == 0) {
            throw new OnnxModel.FormatException("tensor '" + name + "' has no data_type");
        }
        OnnxDataType type = OnnxDataType.of(dataType);
        long[] shape = dims.longs();
        long elements = OnnxTensor.elementCount(name, shape);
        if (type.bytes() == 0) {
            return new OnnxTensor(name, type, shape, null);
        }
        if (raw != null) {
            return new OnnxTensor(name, type, shape, raw);
        }
        ByteBuffer data = switch (type) {
            case FLOAT -> floats == null ? null : fromFloats(floats.floats());
            case DOUBLE -> doubles == null ? null : fromDoubles(doubles.doubles());
            case INT64 -> int64s == null ? null : fromLongs(int64s.longs(), 8);
            case UINT32, UINT64 -> uint64s == null ? null : fromLongs(uint64s.longs(), type.bytes());
            default -> int32s == null ? null : fromLongs(int32s.longs(), type.bytes());
        };
        if (data == null) {
            if (elements != 0) {
                throw new OnnxModel.FormatException("tensor '" + name + "' of " + type + Arrays.toString(shape)
                        + " has no data in raw_data or in the typed field for its type");
            }
            data = ByteBuffer.allocate(0);
        }
        return new OnnxTensor(name, type, shape, data);
    }

    private static ByteBuffer fromFloats(float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return b;
    }

    private static ByteBuffer fromDoubles(double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.asDoubleBuffer().put(values);
        return b;
    }

    private static ByteBuffer fromLongs(long[] values, int bytes) {
        ByteBuffer b = ByteBuffer.allocate(values.length * bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            switch (bytes) {
                case 1 -> b.put((byte) v);
                case 2 -> b.putShort((short) v);
                case 4 -> b.putInt((int) v);
                default -> b.putLong(v);
            }
        }
        return b.flip();
    }

    /** Reads a length-delimited field's length, checks it against what remains, and limits reading to it. */
    private int enter(int tag, String message) throws IOException {
        expect(tag, LENGTH, message);
        where = message;
        return in.pushLimit(length());
    }

    private void leave(int oldLimit, String message) {
        in.popLimit(oldLimit);
        where = message;
    }

    private int length() throws IOException {
        int length = in.readRawVarint32();
        long remaining = (long) size - in.getTotalBytesRead();
        if (length < 0 || length > remaining) {
            throw new OnnxModel.FormatException("a length of " + length + " bytes where " + remaining + " remain");
        }
        return length;
    }

    private void expect(int tag, int wireType, String field) throws OnnxModel.FormatException {
        if (WireFormat.getTagWireType(tag) != wireType) {
            throw new OnnxModel.FormatException("field " + field + " (" + WireFormat.getTagFieldNumber(tag)
                    + ") has wire type " + WireFormat.getTagWireType(tag) + ", expected " + wireType);
        }
    }

    private long varint(int tag, String field) throws IOException {
        expect(tag, VARINT, field);
        return in.readInt64();
    }

    private String string(int tag, String field) throws IOException {
        expect(tag, LENGTH, field);
        return in.readStringRequireUtf8();
    }

    private void skip(int tag) throws IOException {
        if (!in.skipField(tag)) {
            throw new OnnxModel.FormatException("an end-group tag (field " + WireFormat.getTagFieldNumber(tag)
                    + ") without a start");
        }
    }

    /** A repeated int64, int32 or uint64 field, packed or not, appended to {@code into}. */
    private void longs(int tag, Repeated into) throws IOException {
        if (WireFormat.getTagWireType(tag) == VARINT) {
            into.add(in.readInt64());
            return;
        }
        expect(tag, LENGTH, "repeated varint " + WireFormat.getTagFieldNumber(tag));
        int limit = in.pushLimit(length());
        while (in.getBytesUntilLimit() > 0) {
            into.add(in.readInt64());
        }
        in.popLimit(limit);
    }

    /** A repeated float or double field, packed or not, appended to {@code into} as bit patterns. */
    private void reals(int tag, Repeated into, boolean doubles) throws IOException {
        int single = doubles ? WireFormat.WIRETYPE_FIXED64 : FIXED32;
        if (WireFormat.getTagWireType(tag) == single) {
            into.add(doubles ? in.readRawLittleEndian64() : in.readRawLittleEndian32());
            return;
        }
        expect(tag, LENGTH, "repeated " + (doubles ? "double " : "float ") + WireFormat.getTagFieldNumber(tag));
        int width = doubles ? 8 : 4;
        int length = length();
        if (length % width != 0) {
            throw new OnnxModel.FormatException("packed values of " + length + " bytes, not a multiple of " + width);
        }
        for (int i = 0; i < length / width; i++) {
            into.add(doubles ? in.readRawLittleEndian64() : in.readRawLittleEndian32());
        }
    }

    /** The values of one repeated numeric field in a doubling array: integers, or float/double bit patterns. */
    private static final class Repeated {
        private long[] values = new long[8];
        private int count;

        void add(long v) {
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = v;
        }

        long[] longs() {
            return Arrays.copyOf(values, count);
        }

        float[] floats() {
            float[] out = new float[count];
            for (int i = 0; i < count; i++) {
                out[i] = Float.intBitsToFloat((int) values[i]);
            }
            return out;
        }

        double[] doubles() {
            double[] out = new double[count];
            for (int i = 0; i < count; i++) {
                out[i] = Double.longBitsToDouble(values[i]);
            }
            return out;
        }
    }
}
