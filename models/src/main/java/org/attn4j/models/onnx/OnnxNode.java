package org.attn4j.models.onnx;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node of an ONNX graph: its name, operator, input and output value names (an empty name is an omitted
 * optional input), and its attributes of the kinds attn4j reads: int, float, string, ints, floats and tensor.
 * Attributes of other kinds (graphs, sparse tensors, type protos) are skipped when the file is read. Immutable.
 *
 * @param name the node's name ({@code /encoder/layer.0/attention/self/query/MatMul} in a PyTorch export)
 * @param opType the operator ({@code MatMul}, {@code Gemm}, …)
 * @param domain the operator set domain, empty for the default {@code ai.onnx}
 * @param inputs the input value names in order
 * @param outputs the output value names in order
 * @param attributes by name: {@code Long}, {@code Float}, {@code String}, {@code long[]}, {@code float[]} or
 *     {@link OnnxTensor}
 */
public record OnnxNode(String name, String opType, String domain, List<String> inputs, List<String> outputs,
                       Map<String, Object> attributes) {

    /** Copies the lists and the map. */
    public OnnxNode {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        attributes = Map.copyOf(attributes);
    }

    /**
     * @param attribute an attribute name
     * @param orElse the value when the node has no such int attribute
     * @return the attribute's value
     */
    public long intAttribute(String attribute, long orElse) {
        return attributes.get(attribute) instanceof Long l ? l : orElse;
    }

    /**
     * @param attribute an attribute name
     * @param orElse the value when the node has no such float attribute
     * @return the attribute's value
     */
    public float floatAttribute(String attribute, float orElse) {
        return attributes.get(attribute) instanceof Float f ? f : orElse;
    }

    /**
     * @param attribute an attribute name ({@code value} of a {@code Constant} node)
     * @return the tensor attribute, if there is one by that name
     */
    public Optional<OnnxTensor> tensorAttribute(String attribute) {
        return attributes.get(attribute) instanceof OnnxTensor t ? Optional.of(t) : Optional.empty();
    }
}
