package org.attn4j.tck;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One case of the golden manifest ({@code tck/src/golden/README.md} describes every op's params, inputs and
 * outputs).
 *
 * @param group {@code ops}, {@code attention} or {@code models}
 * @param name unique over all groups
 * @param op the api op (or, in group {@code models}, the layer)
 * @param params the op's arguments as parsed JSON: {@link Long}, {@link Double}, {@link Boolean}, {@link String},
 *     {@link List} or null
 * @param inputs tensor names {@code <case>/<role>}, in call order
 * @param outputs tensor names {@code <case>/<role>}, in result order
 * @param parameters tensor names {@code <case>/param/<state_dict name>} of a model's parameters (group
 *     {@code models}); empty for an op
 * @param file the safetensors file holding the tensors
 */
public record GoldenCase(String group, String name, String op, Map<String, Object> params, List<String> inputs,
                         List<String> outputs, List<String> parameters, String file) {

    /** Copies the collections. */
    public GoldenCase {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        parameters = List.copyOf(parameters);
    }

    /**
     * A case without model parameters.
     *
     * @param group {@code ops}, {@code attention} or {@code models}
     * @param name unique over all groups
     * @param op the api op
     * @param params the op's arguments
     * @param inputs input tensor names
     * @param outputs output tensor names
     * @param file the safetensors file holding the tensors
     */
    public GoldenCase(String group, String name, String op, Map<String, Object> params, List<String> inputs,
                      List<String> outputs, String file) {
        this(group, name, op, params, inputs, outputs, List.of(), file);
    }

    /**
     * @param tensorName {@code <case>/<role>}
     * @return the role, the part after {@code <case>/}
     */
    public static String role(String tensorName) {
        return tensorName.substring(tensorName.indexOf('/') + 1);
    }

    /**
     * @param role an input role such as {@code "mask"}
     * @return whether the case has that input
     */
    public boolean hasInput(String role) {
        return inputs.contains(name + "/" + role);
    }

    boolean hasParam(String key) {
        return params.containsKey(key);
    }

    Object param(String key) {
        if (!params.containsKey(key)) {
            throw new IllegalArgumentException("golden case " + name + " (" + op + ") has no param '" + key
                    + "'; params: " + params.keySet());
        }
        return params.get(key);
    }

    boolean bool(String key) {
        return (Boolean) param(key);
    }

    int integer(String key) {
        return Math.toIntExact((Long) param(key));
    }

    long longValue(String key) {
        return (Long) param(key);
    }

    double number(String key) {
        return ((Number) param(key)).doubleValue();
    }

    String string(String key) {
        return (String) param(key);
    }

    int[] integers(String key) {
        List<?> list = (List<?>) param(key);
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.toIntExact((Long) list.get(i));
        }
        return out;
    }
}
