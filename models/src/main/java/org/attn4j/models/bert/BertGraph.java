package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.Activation;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxNode;
import org.attn4j.models.onnx.OnnxTensor;

/**
 * What a PyTorch-exported BERT encoder's ONNX graph says about its hyper-parameters, so that an {@code .onnx} file
 * loads without a {@code config.json} and a {@code config.json} beside one is checked against it.
 *
 * <p>The sizes come from the weights (under their Hugging Face names, {@code bert.} prefix allowed):
 * <pre>
 *   vocab_size, hidden_size     embeddings.word_embeddings.weight   [V, d]
 *   max_position_embeddings     embeddings.position_embeddings.weight [P, d]
 *   type_vocab_size             embeddings.token_type_embeddings.weight [T, d]
 *   num_hidden_layers           the encoder.layer.N. indices, 0 .. N-1 without a gap
 *   intermediate_size           encoder.layer.0.intermediate.dense.weight [I, d]
 * </pre>
 * The rest cannot be read from weight shapes: any divisor of {@code d} is a shape-consistent head count, so a wrong
 * {@code num_attention_heads} runs silently with wrong numbers. The graph states them in its operators:
 * <ul>
 *   <li>{@code num_attention_heads}: Hugging Face's {@code transpose_for_scores} reshapes each query, key and value
 *   projection to {@code [batch, length, H, d/H]}; the export keeps {@code H} and {@code d/H} as constants of the
 *   {@code Reshape}'s shape (a {@code Constant}, an initializer, or a {@code Concat} of the dynamic batch and length
 *   with constants). Every such reshape under {@code /encoder/layer.N/attention/self/} must give the same
 *   {@code H} with {@code H·(d/H) = d}. Without them, the attention scores' divisor {@code sqrt(d/H)} (a
 *   {@code Div} by a constant, or a {@code Mul} by its inverse) gives {@code d/H}.</li>
 *   <li>{@code hidden_act}: the operators of {@code /encoder/layer.0/intermediate/}: {@code Erf} is exact GELU
 *   ({@code gelu}), {@code Tanh} the tanh approximation ({@code gelu_new}), {@code Relu} ReLU, a {@code Gelu} node
 *   its {@code approximate} attribute.</li>
 *   <li>{@code layer_norm_eps}: the constant added to the variance in {@code /embeddings/LayerNorm/} (a
 *   {@code LayerNormalization} node's {@code epsilon}, or the scalar of the decomposed norm's {@code Add}).</li>
 * </ul>
 * What the graph does not state is empty, never guessed.
 */
public final class BertGraph {
    private static final Pattern LAYER = Pattern.compile("^(?:bert\\.)?encoder\\.layer\\.(\\d+)\\.");
    private static final Pattern SELF_ATTENTION = Pattern.compile("/encoder/layer\\.(\\d+)/attention/self/");
    private static final long DYNAMIC = Long.MIN_VALUE;

    private final OnnxModel graph;
    private final Map<String, OnnxNode> producers = new HashMap<>();
    private final Map<String, long[]> weights;
    private final String prefix;

    private BertGraph(OnnxModel graph, Map<String, long[]> weightShapes) {
        this.graph = graph;
        for (OnnxNode n : graph.nodes()) {
            for (String o : n.outputs()) {
                producers.put(o, n);
            }
        }
        this.weights = weightShapes;
        this.prefix = weightShapes.containsKey("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    }

    /**
     * @param graph a PyTorch-exported BERT encoder
     * @param weightShapes the dims of its parameters under Hugging Face names (as {@code OnnxStateDict.map} gives
     *     them)
     * @return what the graph says
     */
    public static BertGraph of(OnnxModel graph, Map<String, long[]> weightShapes) {
        return new BertGraph(graph, Map.copyOf(weightShapes));
    }

    /**
     * @return the configuration the graph states in full
     * @throws IllegalArgumentException naming every hyper-parameter it does not state (a {@code config.json} must
     *     then give them)
     */
    public BertConfig config() {
        List<String> missing = new ArrayList<>();
        long[] words = weight("embeddings.word_embeddings.weight", missing);
        long[] positions = weight("embeddings.position_embeddings.weight", missing);
        long[] types = weight("embeddings.token_type_embeddings.weight", missing);
        long[] intermediate = weight("encoder.layer.0.intermediate.dense.weight", missing);
        OptionalInt layers = layers();
        OptionalInt heads = heads();
        Optional<Activation> act = activation();
        Optional<Double> eps = layerNormEps();
        if (layers.isEmpty()) {
            missing.add("num_hidden_layers (no encoder.layer.N weights)");
        }
        if (heads.isEmpty()) {
            missing.add("num_attention_heads (no attention reshape or score scale with constant sizes)");
        }
        if (act.isEmpty()) {
            missing.add("hidden_act (no Erf, Tanh, Relu or Gelu in /encoder/layer.0/intermediate/)");
        }
        if (eps.isEmpty()) {
            missing.add("layer_norm_eps (no constant in /embeddings/LayerNorm/)");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the ONNX graph does not state " + String.join(", ", missing)
                    + "; put the model's config.json beside it");
        }
        return new BertConfig((int) words[0], (int) words[1], layers.getAsInt(), heads.getAsInt(),
                (int) intermediate[0], act.get(), eps.get(), (int) positions[0], (int) types[0]);
    }

    /**
     * Compares a configuration (from a {@code config.json}) with everything the graph states.
     *
     * @param declared the configuration to check
     * @return one line per hyper-parameter on which they differ, empty when they agree
     */
    public List<String> contradictions(BertConfig declared) {
        List<String> out = new ArrayList<>();
        List<String> ignored = new ArrayList<>();
        long[] words = weight("embeddings.word_embeddings.weight", ignored);
        if (words != null) {
            differ(out, "vocab_size", declared.vocabSize(), words[0], "embeddings.word_embeddings.weight rows");
            differ(out, "hidden_size", declared.hiddenSize(), words[1], "embeddings.word_embeddings.weight columns");
        }
        long[] positions = weight("embeddings.position_embeddings.weight", ignored);
        if (positions != null) {
            differ(out, "max_position_embeddings", declared.maxPositionEmbeddings(), positions[0],
                    "embeddings.position_embeddings.weight rows");
        }
        long[] types = weight("embeddings.token_type_embeddings.weight", ignored);
        if (types != null) {
            differ(out, "type_vocab_size", declared.typeVocabSize(), types[0],
                    "embeddings.token_type_embeddings.weight rows");
        }
        long[] intermediate = weight("encoder.layer.0.intermediate.dense.weight", ignored);
        if (intermediate != null) {
            differ(out, "intermediate_size", declared.intermediateSize(), intermediate[0],
                    "encoder.layer.0.intermediate.dense.weight rows");
        }
        layers().ifPresent(n -> differ(out, "num_hidden_layers", declared.numHiddenLayers(), n,
                "encoder.layer.N weights"));
        Optional<long[]> reshape = headReshape();
        if (reshape.isPresent()) {
            long[] hd = reshape.get();
            differ(out, "num_attention_heads", declared.numAttentionHeads(), hd[0], "the graph",
                    "the attention reshapes to [batch, length, " + hd[0] + ", " + hd[1] + "]");
        } else {
            scaledHeadDim().ifPresent(dh -> {
                if (declared.hiddenSize() % dh == 0) {
                    differ(out, "num_attention_heads", declared.numAttentionHeads(), declared.hiddenSize() / dh,
                            "the graph", "the attention scores are divided by sqrt(" + dh + ")");
                }
            });
        }
        activation().ifPresent(a -> {
            if (a != declared.hiddenAct()) {
                out.add("hidden_act " + name(declared.hiddenAct()) + " in the config, " + name(a) + " in the graph ("
                        + "the operators of /encoder/layer.0/intermediate/)");
            }
        });
        layerNormEps().ifPresent(e -> {
            if (Math.abs(e - declared.layerNormEps()) > 1e-6 * Math.max(Math.abs(e), 1e-30)) {
                out.add("layer_norm_eps " + declared.layerNormEps() + " in the config, " + e + " in the graph "
                        + "(/embeddings/LayerNorm/)");
            }
        });
        return out;
    }

    /** @return {@code num_attention_heads} as the graph states it */
    public OptionalInt heads() {
        Optional<long[]> reshape = headReshape();
        if (reshape.isPresent()) {
            return OptionalInt.of((int) reshape.get()[0]);
        }
        long[] words = weights.get(prefix + "embeddings.word_embeddings.weight");
        OptionalInt dh = scaledHeadDim();
        if (words != null && dh.isPresent() && words[1] % dh.getAsInt() == 0) {
            return OptionalInt.of((int) (words[1] / dh.getAsInt()));
        }
        return OptionalInt.empty();
    }

    private static void differ(List<String> out, String field, long declared, long actual, String where) {
        differ(out, field, declared, actual, "the weights", where);
    }

    private static void differ(List<String> out, String field, long declared, long actual, String source,
                               String where) {
        if (declared != actual) {
            out.add(field + " " + declared + " in the config, " + actual + " in " + source + " (" + where + ")");
        }
    }

    private long[] weight(String name, List<String> missing) {
        long[] d = weights.get(prefix + name);
        if (d == null || d.length != 2) {
            missing.add(prefix + name + (d == null ? " is missing" : " is not a matrix"));
            return null;
        }
        return d;
    }

    private OptionalInt layers() {
        TreeSet<Integer> found = new TreeSet<>();
        for (String name : weights.keySet()) {
            Matcher m = LAYER.matcher(name);
            if (m.find()) {
                found.add(Integer.parseInt(m.group(1)));
            }
        }
        if (found.isEmpty() || found.first() != 0 || found.last() != found.size() - 1) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(found.size());
    }

    /** @return {@code [H, d/H]} from the attention reshapes, empty if none has constant head sizes */
    private Optional<long[]> headReshape() {
        long[] words = weights.get(prefix + "embeddings.word_embeddings.weight");
        if (words == null) {
            return Optional.empty();
        }
        long d = words[1];
        List<long[]> found = new ArrayList<>();
        for (OnnxNode n : graph.nodes()) {
            if (!n.opType().equals("Reshape") || !SELF_ATTENTION.matcher(n.name()).find() || n.inputs().size() < 2) {
                continue;
            }
            long[] shape = constantVector(n.inputs().get(1), 0);
            if (shape == null || shape.length != 4) {
                continue;
            }
            long h = shape[2];
            long dh = shape[3];
            if (h > 0 && dh > 0 && h * dh == d) {
                found.add(new long[] {h, dh});
            }
        }
        if (found.isEmpty()) {
            return Optional.empty();
        }
        long[] first = found.get(0);
        for (long[] f : found) {
            if (f[0] != first[0]) {
                throw new IllegalArgumentException("the ONNX graph's attention reshapes disagree on the head count: "
                        + first[0] + " and " + f[0]);
            }
        }
        return Optional.of(first);
    }

    /** @return {@code d/H} from the divisor of the attention scores in layer 0, if it is a constant */
    private OptionalInt scaledHeadDim() {
        for (OnnxNode n : graph.nodes()) {
            Matcher m = SELF_ATTENTION.matcher(n.name());
            if (!m.find() || !m.group(1).equals("0") || n.inputs().size() != 2) {
                continue;
            }
            boolean div = n.opType().equals("Div");
            if (!div && !n.opType().equals("Mul")) {
                continue;
            }
            for (String input : n.inputs()) {
                double c = scalar(input);
                if (Double.isNaN(c) || c <= 0) {
                    continue;
                }
                double dh = div ? c * c : 1 / (c * c);
                long rounded = Math.round(dh);
                if (rounded > 1 && Math.abs(dh - rounded) < 1e-3 * rounded) {
                    return OptionalInt.of((int) rounded);
                }
            }
        }
        return OptionalInt.empty();
    }

    private Optional<Activation> activation() {
        boolean erf = false;
        boolean tanh = false;
        boolean relu = false;
        Activation gelu = null;
        for (OnnxNode n : graph.nodes()) {
            if (!n.name().contains("/encoder/layer.0/intermediate/")) {
                continue;
            }
            switch (n.opType()) {
                case "Erf" -> erf = true;
                case "Tanh" -> tanh = true;
                case "Relu" -> relu = true;
                case "Gelu", "FastGelu", "BiasGelu" -> gelu = n.opType().equals("FastGelu")
                        || "tanh".equals(n.attributes().get("approximate")) ? Activation.GELU_TANH : Activation.GELU;
                default -> {
                }
            }
        }
        int kinds = (erf ? 1 : 0) + (tanh ? 1 : 0) + (relu ? 1 : 0) + (gelu != null ? 1 : 0);
        if (kinds != 1) {
            return Optional.empty();
        }
        return Optional.of(erf ? Activation.GELU : tanh ? Activation.GELU_TANH : relu ? Activation.RELU : gelu);
    }

    private Optional<Double> layerNormEps() {
        for (OnnxNode n : graph.nodes()) {
            if (!n.name().contains("/embeddings/LayerNorm/")) {
                continue;
            }
            if (n.opType().equals("LayerNormalization")) {
                return Optional.of(Double.parseDouble(Float.toString(n.floatAttribute("epsilon", 1e-5f))));
            }
            if (n.opType().equals("Add")) {
                for (String input : n.inputs()) {
                    double c = scalar(input);
                    if (!Double.isNaN(c) && c > 0 && c < 1e-2) {
                        return Optional.of(c);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static String name(Activation a) {
        return switch (a) {
            case GELU -> "gelu";
            case GELU_TANH -> "gelu_new";
            case RELU -> "relu";
            case SILU -> "silu";
            case IDENTITY -> "identity";
        };
    }

    /**
     * @return a one-element floating-point constant's value, NaN if the value is not one; a float32 constant as the
     *     shortest decimal that rounds to it (the {@code 1e-12} of a config, not its float32 neighbour)
     */
    private double scalar(String value) {
        OnnxTensor t = constant(value);
        if (t == null || t.elementCount() != 1 || !t.dataType().isFloatingPoint()) {
            return Double.NaN;
        }
        return Double.parseDouble(Float.toString(t.toFloatArray()[0]));
    }

    /**
     * @return the integer vector a value holds when it is computed from constants only, with {@link #DYNAMIC}
     *     for the elements that come from the input's shape; null when it cannot be told
     */
    private long[] constantVector(String value, int depth) {
        if (depth > 8) {
            return null;
        }
        OnnxTensor t = constant(value);
        if (t != null) {
            return t.dataType().isInteger() ? t.toLongArray() : null;
        }
        OnnxNode p = producers.get(value);
        if (p == null) {
            return null;
        }
        if (p.opType().equals("Constant")) {
            Object ints = p.attributes().get("value_ints");
            Object one = p.attributes().get("value_int");
            return ints instanceof long[] v ? v.clone() : one instanceof Long v ? new long[] {v} : null;
        }
        switch (p.opType()) {
            case "Concat" -> {
                List<Long> out = new ArrayList<>();
                for (String input : p.inputs()) {
                    long[] part = constantVector(input, depth + 1);
                    if (part == null) {
                        return null;
                    }
                    for (long v : part) {
                        out.add(v);
                    }
                }
                return out.stream().mapToLong(Long::longValue).toArray();
            }
            case "Unsqueeze" -> {
                long[] inner = constantVector(p.inputs().get(0), depth + 1);
                return inner == null ? new long[] {DYNAMIC} : inner;
            }
            case "Cast", "Identity" -> {
                return constantVector(p.inputs().get(0), depth + 1);
            }
            default -> {
                return null;
            }
        }
    }

    /** @return the tensor a value holds if it is an initializer or a {@code Constant} node's output */
    private OnnxTensor constant(String value) {
        OnnxTensor init = graph.initializers().get(value);
        if (init != null) {
            return init;
        }
        OnnxNode p = producers.get(value);
        if (p != null && p.opType().equals("Constant")) {
            return p.tensorAttribute("value").orElse(null);
        }
        return null;
    }
}
