package org.attn4j.models.onnx;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Writes protobuf messages field by field with protobuf-java's wire-format writer, to build test models. */
final class Proto {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CodedOutputStream out = CodedOutputStream.newInstance(bytes);

    Proto varint(int field, long value) {
        return write(() -> out.writeInt64(field, value));
    }

    Proto string(int field, String value) {
        return write(() -> out.writeString(field, value));
    }

    Proto bytes(int field, byte[] value) {
        return write(() -> out.writeByteArray(field, value));
    }

    Proto message(int field, Proto value) {
        return bytes(field, value.toByteArray());
    }

    Proto fixed32(int field, float value) {
        return write(() -> out.writeFloat(field, value));
    }

    Proto packedVarints(int field, long... values) {
        Proto p = new Proto();
        for (long v : values) {
            p.write(() -> p.out.writeInt64NoTag(v));
        }
        return bytes(field, p.toByteArray());
    }

    Proto packedFloats(int field, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return bytes(field, b.array());
    }

    byte[] toByteArray() {
        write(out::flush);
        return bytes.toByteArray();
    }

    private Proto write(IoAction action) {
        try {
            action.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** TensorProto: dims 1, data_type 2, name 8, raw_data 9. */
    static Proto floatTensor(String name, long[] dims, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return new Proto().packedVarints(1, dims).varint(2, 1).string(8, name).bytes(9, b.array());
    }

    /** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. */
    static Proto node(String name, String opType, String... inputs) {
        Proto p = new Proto();
        for (String in : inputs) {
            p.string(1, in);
        }
        return p.string(2, name + "_output_0").string(3, name).string(4, opType);
    }

    /** AttributeProto with an int: name 1, i 3, type 20 = INT. */
    static Proto intAttribute(String name, long value) {
        return new Proto().string(1, name).varint(3, value).varint(20, 2);
    }

    /** ModelProto (ir_version 1, producer 2, graph 7, opset_import 8) around a GraphProto (node 1, initializer 5). */
    static byte[] model(Proto[] nodes, Proto... initializers) {
        Proto graph = new Proto();
        for (Proto n : nodes) {
            graph.message(1, n);
        }
        graph.string(2, "test");
        for (Proto t : initializers) {
            graph.message(5, t);
        }
        graph.message(11, new Proto().string(1, "x")).message(12, new Proto().string(1, "y"));
        return new Proto().varint(1, 8).string(2, "pytorch").message(7, graph)
                .message(8, new Proto().string(1, "").varint(2, 17)).toByteArray();
    }
}
