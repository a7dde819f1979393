package org.attn4j.models.onnx;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An ONNX model as far as loading weights needs it: the header, the main graph's nodes, initializers, inputs and
 * outputs. Read with protobuf-java's wire-format reader ({@link CodedInputStream}) straight from the field numbers
 * of {@code onnx.proto} ({@code ModelProto.graph = 7}, {@code GraphProto.node = 1}, {@code initializer = 5}, …);
 * no generated classes. Fields attn4j does not use are skipped, sub-graphs of control-flow nodes included.
 *
 * <p>Initializer values are not copied: a file is memory-mapped and each tensor is a view of its bytes
 * ({@link OnnxTensor#floatBuffer()}). Tensors stored outside the file ({@code data_location = EXTERNAL}) are
 * refused. Every malformed input ends in a {@link FormatException} naming the message and field where reading
 * stopped, or, for a well-formed file whose tensors contradict their dims, in one naming the tensor.
 *
 * @param irVersion {@code ModelProto.ir_version}
 * @param producerName {@code ModelProto.producer_name} ({@code pytorch} for a torch export)
 * @param opsetVersion the version of the default operator set, -1 if the file imports none
 * @param nodes the main graph's nodes in file order (topological in a valid model)
 * @param initializers the main graph's initializers by name, in file order
 * @param inputs the main graph's input names
 * @param outputs the main graph's output names
 */
public record OnnxModel(long irVersion, String producerName, long opsetVersion, List<OnnxNode> nodes,
                        Map<String, OnnxTensor> initializers, List<String> inputs, List<String> outputs) {

    /** Copies the lists; the map keeps its order. */
    public OnnxModel {
        nodes = List.copyOf(nodes);
        initializers = Collections.unmodifiableMap(new LinkedHashMap<>(initializers));
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }

    /** A byte sequence that is not an ONNX model attn4j can read. */
    public static final class FormatException extends IOException {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }

        FormatException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @param file an {@code .onnx} file, at most 2 GiB (protobuf's limit)
     * @return the model, its tensors views of the memory-mapped file
     * @throws FormatException if the file is not a readable ONNX model
     * @throws IOException if it cannot be read
     */
    public static OnnxModel read(Path file) throws IOException {
        Objects.requireNonNull(file, "OnnxModel.read: argument file is null");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new FormatException("ONNX: " + file + " has " + size
                        + " bytes; a protobuf message holds at most 2 GiB (larger models keep external data)");
            }
            return OnnxParser.parse(channel.map(FileChannel.MapMode.READ_ONLY, 0, size), file.toString());
        }
    }

    /**
     * @param in a stream holding one ONNX model, read to its end (not closed)
     * @return the model
     * @throws FormatException if the bytes are not a readable ONNX model
     * @throws IOException if the stream fails
     */
    public static OnnxModel read(InputStream in) throws IOException {
        Objects.requireNonNull(in, "OnnxModel.read: argument in is null");
        return read(in.readAllBytes());
    }

    /**
     * @param bytes one ONNX model; not modified, and not copied: the tensors are views of it
     * @return the model
     * @throws FormatException if the bytes are not a readable ONNX model
     */
    public static OnnxModel read(byte[] bytes) throws FormatException {
        Objects.requireNonNull(bytes, "OnnxModel.read: argument bytes is null");
        return OnnxParser.parse(ByteBuffer.wrap(bytes), "ONNX bytes");
    }

    /**
     * @param name an initializer's name
     * @return it
     * @throws IllegalArgumentException if the graph has no initializer by that name
     */
    public OnnxTensor initializer(String name) {
        OnnxTensor t = initializers.get(name);
        if (t == null) {
            throw new IllegalArgumentException("ONNX: no initializer '" + name + "' among " + initializers.size());
        }
        return t;
    }
}
