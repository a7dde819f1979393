package org.attn4j.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes the one-node ONNX models of ONNX Runtime's fused attention peer, without Python or protobuf
 * libraries: a hand-written encoder of the few ONNX protobuf messages needed.
 *
 * <p>The model (IR version 8, opsets {@code ai.onnx} 17 and {@code com.microsoft} 1) has one node,
 * {@code com.microsoft.MultiHeadAttention} with attribute {@code num_heads} and, when causal, {@code
 * unidirectional = 1}; its scale is the default {@code 1/sqrt(head_size)}. Inputs {@code query [batch,
 * query_length, hidden]}, {@code key [batch, key_length, hidden]}, {@code value [batch, key_length,
 * v_hidden]}, float32, where {@code hidden = num_heads·d}; output {@code output [batch, query_length, v_hidden]}.
 * Every dimension but the rank is symbolic, so one model serves every length and head size.
 *
 * <p>Run {@code main} with a directory to (re)write the committed models:
 * {@code java -cp bench/target/classes org.attn4j.bench.OnnxModels bench/src/test/resources/onnx}.
 */
public final class OnnxModels {
    /** The head counts of the committed models: the benchmark shape and the toy shape. */
    public static final List<Integer> COMMITTED_HEADS = List.of(12, 1);

    private static final int IR_VERSION = 8;
    private static final int FLOAT = 1;
    private static final int INT32 = 6;
    private static final int ATTRIBUTE_INT = 2;

    private OnnxModels() {
    }

    /**
     * Writes {@link #fileName} of every committed head count, causal and not, into a directory.
     *
     * @param args one argument: the directory
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("OnnxModels: expected one argument, the output directory");
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        for (int heads : COMMITTED_HEADS) {
            for (boolean causal : new boolean[] {false, true}) {
                Files.write(dir.resolve(fileName(heads, causal)), multiHeadAttention(heads, causal));
            }
        }
    }

    /**
     * @param numHeads the {@code num_heads} attribute
     * @param causal whether {@code unidirectional = 1} is set
     * @return for example {@code "mha-h12-causal.onnx"}
     */
    public static String fileName(int numHeads, boolean causal) {
        return "mha-h" + numHeads + (causal ? "-causal" : "") + ".onnx";
    }

    /**
     * @param numHeads the {@code num_heads} attribute, at least 1
     * @param causal whether to set {@code unidirectional = 1} (keys after the query are masked)
     * @return the serialized {@code ModelProto}
     */
    public static byte[] multiHeadAttention(int numHeads, boolean causal) {
        if (numHeads < 1) {
            throw new IllegalArgumentException("multiHeadAttention: argument numHeads is " + numHeads
                    + "; it must be at least 1");
        }
        Proto node = new Proto()
                .string(1, "query").string(1, "key").string(1, "value")
                .string(2, "output")
                .string(3, "attention")
                .string(4, "MultiHeadAttention")
                .string(7, "com.microsoft")
                .message(5, intAttribute("num_heads", numHeads));
        if (causal) {
            node.message(5, intAttribute("unidirectional", 1));
        }
        Proto graph = new Proto()
                .message(1, node)
                .string(2, "multi_head_attention")
                .message(11, floatInput("query", "batch", "query_length", "hidden"))
                .message(11, floatInput("key", "batch", "key_length", "hidden"))
                .message(11, floatInput("value", "batch", "key_length", "v_hidden"))
                .message(12, floatInput("output", "batch", "query_length", "v_hidden"));
        return model(graph);
    }

    /**
     * One {@code com.microsoft.GroupQueryAttention} node (attributes {@code num_heads}, {@code kv_num_heads}),
     * ONNX Runtime's fused decoding attention with a past key/value cache. Inputs {@code query [batch, seq,
     * num_heads·d]}, {@code key} and {@code value [batch, seq, kv_num_heads·d]}, {@code past_key} and
     * {@code past_value [batch, kv_num_heads, past, d]}, {@code seqlens_k [batch]} (int32: total length - 1) and
     * {@code total_sequence_length} (an int32 scalar); outputs {@code output}, {@code present_key},
     * {@code present_value}. Dimensions are symbolic.
     *
     * @param numHeads query heads
     * @param kvHeads key/value heads, dividing {@code numHeads}
     * @return the serialized {@code ModelProto}
     */
    public static byte[] groupQueryAttention(int numHeads, int kvHeads) {
        if (numHeads < 1 || kvHeads < 1 || numHeads % kvHeads != 0) {
            throw new IllegalArgumentException("groupQueryAttention: arguments numHeads " + numHeads + " and kvHeads "
                    + kvHeads + " must be positive, kvHeads dividing numHeads");
        }
        Proto node = new Proto()
                .string(1, "query").string(1, "key").string(1, "value").string(1, "past_key")
                .string(1, "past_value").string(1, "seqlens_k").string(1, "total_sequence_length")
                .string(2, "output").string(2, "present_key").string(2, "present_value")
                .string(3, "gqa")
                .string(4, "GroupQueryAttention")
                .string(7, "com.microsoft")
                .message(5, intAttribute("num_heads", numHeads))
                .message(5, intAttribute("kv_num_heads", kvHeads));
        Proto graph = new Proto()
                .message(1, node)
                .string(2, "group_query_attention")
                .message(11, floatInput("query", "batch", "seq", "hidden"))
                .message(11, floatInput("key", "batch", "seq", "kv_hidden"))
                .message(11, floatInput("value", "batch", "seq", "kv_hidden"))
                .message(11, floatInput("past_key", "batch", "kv_heads", "past", "head"))
                .message(11, floatInput("past_value", "batch", "kv_heads", "past", "head"))
                .message(11, input("seqlens_k", INT32, "batch"))
                .message(11, input("total_sequence_length", INT32))
                .message(12, floatInput("output", "batch", "seq", "hidden"))
                .message(12, floatInput("present_key", "batch", "kv_heads", "total", "head"))
                .message(12, floatInput("present_value", "batch", "kv_heads", "total", "head"));
        return model(graph);
    }

    /** {@code ModelProto} of one graph: IR version, producer, the graph, opsets {@code ai.onnx} 17 and {@code com.microsoft} 1. */
    private static byte[] model(Proto graph) {
        return new Proto()
                .varint(1, IR_VERSION)
                .string(2, "attn4j-bench")
                .message(7, graph)
                .message(8, new Proto().string(1, "").varint(2, 17))
                .message(8, new Proto().string(1, "com.microsoft").varint(2, 1))
                .bytes();
    }

    /** {@code AttributeProto}: name = 1, i = 3, type = 20. */
    private static Proto intAttribute(String name, long value) {
        return new Proto().string(1, name).varint(3, value).varint(20, ATTRIBUTE_INT);
    }

    /** {@code ValueInfoProto} (name = 1, type = 2) of a float tensor whose dimensions are all symbolic. */
    private static Proto floatInput(String name, String... dims) {
        return input(name, FLOAT, dims);
    }

    /** {@code ValueInfoProto} of a tensor of element type {@code type} whose dimensions are all symbolic. */
    private static Proto input(String name, int type, String... dims) {
        Proto shape = new Proto();
        for (String d : dims) {
            shape.message(1, new Proto().string(2, d)); // TensorShapeProto.dim; Dimension.dim_param = 2
        }
        Proto tensorType = new Proto().varint(1, type).message(2, shape); // elem_type = 1, shape = 2
        return new Proto().string(1, name).message(2, new Proto().message(1, tensorType)); // TypeProto.tensor_type
    }

    /** The protobuf wire format's varint (type 0) and length-delimited (type 2) fields. */
    private static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Proto varint(int field, long value) {
            tag(field, 0);
            raw(value);
            return this;
        }

        Proto string(int field, String value) {
            return bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        Proto message(int field, Proto value) {
            return bytes(field, value.bytes());
        }

        private Proto bytes(int field, byte[] value) {
            tag(field, 2);
            raw(value.length);
            out.writeBytes(value);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        private void tag(int field, int wireType) {
            raw(((long) field << 3) | wireType);
        }

        private void raw(long value) {
            long v = value;
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }
    }
}
