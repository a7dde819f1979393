package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of a ModernBERT encoder ({@code model_type} {@code modernbert}), the keys of its
 * {@code config.json} as transformers' {@code ModernBertConfig} reads them.
 *
 * @param vocabSize {@code vocab_size}
 * @param hiddenSize {@code hidden_size}: the width {@code d}
 * @param intermediateSize {@code intermediate_size}: the GeGLU's width ({@code mlp.Wi} is {@code [2·inner, d]})
 * @param numHiddenLayers {@code num_hidden_layers}
 * @param numAttentionHeads {@code num_attention_heads}, dividing {@code d}
 * @param activation {@code hidden_activation}, applied to the first half of {@code Wi}'s output
 * @param normEps {@code norm_eps}
 * @param normBias {@code norm_bias}: whether the layer norms have biases
 * @param attentionBias {@code attention_bias}: biases on {@code Wqkv} and {@code attn.Wo}
 * @param mlpBias {@code mlp_bias}: biases on {@code Wi} and {@code mlp.Wo}
 * @param maxPositionEmbeddings {@code max_position_embeddings}: the longest input
 * @param globalRopeTheta {@code global_rope_theta}: the rotary base of the global layers
 * @param localRopeTheta {@code local_rope_theta}: the rotary base of the local layers
 * @param layerTypes each layer's {@code full_attention} (global) or {@code sliding_attention} (local): the
 *     {@code layer_types} of transformers 5, else layer {@code i} is local when
 *     {@code i % global_attn_every_n_layers != 0}
 * @param localAttention {@code local_attention}: a local layer's query {@code i} sees the keys {@code j} with
 *     {@code |i − j| <= local_attention / 2}
 */
public record ModernBertConfig(int vocabSize, int hiddenSize, int intermediateSize, int numHiddenLayers,
                               int numAttentionHeads, Activation activation, double normEps, boolean normBias,
                               boolean attentionBias, boolean mlpBias, int maxPositionEmbeddings,
                               double globalRopeTheta, double localRopeTheta, List<String> layerTypes,
                               int localAttention) implements EncoderConfig {
    /** The {@code model_type} this reads. */
    public static final String MODEL_TYPE = "modernbert";
    /** A global layer's type in {@code layer_types} and {@code rope_parameters}. */
    public static final String GLOBAL = "full_attention";
    /** A local layer's type in {@code layer_types} and {@code rope_parameters}. */
    public static final String LOCAL = "sliding_attention";

    @Override
    public String modelType() {
        return MODEL_TYPE;
    }

    @Override
    public int maxLength() {
        return maxPositionEmbeddings();
    }

    @Override
    public ModernBertModel loadEncoder(StateDict params) {
        return ModernBertModel.load(params, this);
    }

    /** Refuses a configuration that cannot run. */
    public ModernBertConfig {
        if (vocabSize < 1 || hiddenSize < 1 || intermediateSize < 1 || numHiddenLayers < 1 || numAttentionHeads < 1
                || maxPositionEmbeddings < 1 || localAttention < 0) {
            throw new IllegalArgumentException("ModernBertConfig: every size must be at least 1 (local_attention at"
                    + " least 0): vocab_size " + vocabSize + ", hidden_size " + hiddenSize + ", intermediate_size "
                    + intermediateSize + ", num_hidden_layers " + numHiddenLayers + ", num_attention_heads "
                    + numAttentionHeads + ", max_position_embeddings " + maxPositionEmbeddings
                    + ", local_attention " + localAttention);
        }
        if (layerTypes == null || layerTypes.size() != numHiddenLayers
                || !layerTypes.stream().allMatch(t -> GLOBAL.equals(t) || LOCAL.equals(t))) {
            throw new IllegalArgumentException("ModernBertConfig: layer_types " + layerTypes + " must name "
                    + numHiddenLayers + " layers, each " + GLOBAL + " or " + LOCAL);
        }
        layerTypes = List.copyOf(layerTypes);
        if (hiddenSize % numAttentionHeads != 0 || (hiddenSize / numAttentionHeads) % 2 != 0) {
            throw new IllegalArgumentException("ModernBertConfig: num_attention_heads " + numAttentionHeads
                    + " must divide hidden_size " + hiddenSize + " into heads of an even size");
        }
        if (activation == null) {
            throw new IllegalArgumentException("ModernBertConfig: argument activation is null");
        }
        if (!(globalRopeTheta > 0) || !(localRopeTheta > 0) || Double.isInfinite(globalRopeTheta)
                || Double.isInfinite(localRopeTheta) || !(normEps >= 0) || Double.isInfinite(normEps)) {
            throw new IllegalArgumentException("ModernBertConfig: global_rope_theta " + globalRopeTheta
                    + " and local_rope_theta " + localRopeTheta + " must be positive, norm_eps " + normEps
                    + " at least 0, all finite");
        }
    }

    /** @return {@code hidden_size / num_attention_heads} */
    public int headDim() {
        return hiddenSize / numAttentionHeads;
    }

    /**
     * @param layer {@code 0 .. num_hidden_layers - 1}
     * @return whether it attends through the sliding window
     */
    public boolean isLocal(int layer) {
        return layerTypes.get(layer).equals(LOCAL);
    }

    /**
     * @param layer {@code 0 .. num_hidden_layers - 1}
     * @return {@code ω_i = θ^(-2i/head_dim)} over the whole head, {@code θ} the layer's global or local base
     */
    public RotaryEmbedding rotary(int layer) {
        return RotaryEmbedding.of(RopeLayout.HALF_SPLIT, isLocal(layer) ? localRopeTheta : globalRopeTheta,
                headDim());
    }

    /**
     * Reads a {@code config.json} strictly (defaults as transformers' {@code ModernBertConfig}), in the keys of
     * transformers 4.48 and later ({@code global_attn_every_n_layers}, {@code global_rope_theta},
     * {@code local_rope_theta}) or of transformers 5 ({@code layer_types}, {@code rope_parameters} with a
     * {@code default} {@code rope_theta} per layer type); where both are given they must agree. Every key that
     * changes the numbers is honoured or refused by name (another {@code rope_type}, {@code rope_scaling}), the
     * dropout, initialisation, head and kernel keys the encoder never reads are ignored, any other key is refused.
     *
     * @param root a parsed {@code config.json}
     * @param source where it came from, for messages
     * @return the hyper-parameters
     * @throws IOException naming every key and value attn4j does not implement
     */
    public static ModernBertConfig of(JsonNode root, String source) throws IOException {
        ConfigKeys k = ConfigKeys.of(root, source, MODEL_TYPE);
        k.ignore("initializer_cutoff_factor", "attention_dropout", "embedding_dropout", "mlp_dropout", "decoder_bias",
                "classifier_pooling", "classifier_bias", "classifier_activation", "deterministic_flash_attn",
                "sparse_prediction", "sparse_pred_ignore_index", "reference_compile", "repad_logits_with_grad",
                "tie_word_embeddings", "layer_norm_eps", "position_embedding_type");
        String act = k.text("hidden_activation", "gelu");
        Activation activation = switch (act) {
            case "gelu" -> Activation.GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
            case "silu", "swish" -> Activation.SILU;
            case "relu" -> Activation.RELU;
            default -> {
                k.problem("hidden_activation", "'" + act + "'", "not supported (gelu, gelu_new, gelu_pytorch_tanh,"
                        + " silu, swish, relu)");
                yield Activation.GELU;
            }
        };
        int layers = k.size("num_hidden_layers", 22);
        boolean everyN = k.has("global_attn_every_n_layers");
        int n = k.size("global_attn_every_n_layers", 3);
        List<String> derived = new ArrayList<>();
        for (int i = 0; i < layers; i++) {
            derived.add(i % n != 0 ? LOCAL : GLOBAL);
        }
        List<String> types = derived;
        JsonNode listed = k.node("layer_types");
        if (listed != null) {
            List<String> read = new ArrayList<>();
            listed.forEach(t -> read.add(t.asText("")));
            if (!listed.isArray() || read.size() != layers || !read.stream().allMatch(t -> t.equals(GLOBAL)
                    || t.equals(LOCAL))) {
                k.problem("layer_types", listed, "a list of " + layers + " entries, each " + GLOBAL + " or " + LOCAL
                        + ", was expected");
            } else if (everyN && !read.equals(derived)) {
                k.problem("layer_types", listed, "contradicts global_attn_every_n_layers " + n);
            } else {
                types = read;
            }
        }
        double global = theta(k, "global_rope_theta", GLOBAL, 160000);
        double local = theta(k, "local_rope_theta", LOCAL, 10000);
        JsonNode rope = k.node("rope_parameters");
        if (rope != null) {
            rope.fieldNames().forEachRemaining(f -> {
                if (!f.equals(GLOBAL) && !f.equals(LOCAL)) {
                    k.problem("rope_parameters." + f, rope.get(f), "only " + GLOBAL + " and " + LOCAL + " are read");
                }
            });
        }
        int vocab = k.size("vocab_size", 50368);
        int hidden = k.size("hidden_size", 768);
        int inner = k.size("intermediate_size", 1152);
        int heads = k.size("num_attention_heads", 12);
        double eps = k.number("norm_eps", 1e-5);
        boolean normBias = k.flag("norm_bias", false);
        boolean attentionBias = k.flag("attention_bias", false);
        boolean mlpBias = k.flag("mlp_bias", false);
        int positions = k.size("max_position_embeddings", 8192);
        int window = k.count("local_attention", 128);
        k.finish();
        return new ModernBertConfig(vocab, hidden, inner, layers, heads, activation, eps, normBias, attentionBias,
                mlpBias, positions, global, local, types, window);
    }

    /**
     * The base of one layer type: {@code rope_parameters.<type>.rope_theta} (with {@code rope_type} default), else
     * the older key, else the default; both given must agree.
     */
    private static double theta(ConfigKeys k, String key, String type, double orElse) {
        boolean old = k.has(key);
        double value = k.number(key, orElse);
        JsonNode rope = k.node("rope_parameters");
        JsonNode params = rope == null ? null : rope.get(type);
        if (params == null || params.isNull()) {
            return value;
        }
        String where = "rope_parameters." + type;
        List<String> names = new ArrayList<>();
        params.fieldNames().forEachRemaining(names::add);
        JsonNode theta = params.get("rope_theta");
        if (!params.path("rope_type").asText("default").equals("default") || theta == null || !theta.isNumber()
                || !names.stream().allMatch(f -> f.equals("rope_type") || f.equals("rope_theta"))) {
            k.problem(where, params, "attn4j runs {\"rope_type\": \"default\", \"rope_theta\": θ}");
            return value;
        }
        if (old && theta.doubleValue() != value) {
            k.problem(where, params, "contradicts " + key + " " + value);
        }
        return theta.doubleValue();
    }
}
