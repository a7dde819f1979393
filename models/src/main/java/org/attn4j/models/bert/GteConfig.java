package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.attn4j.api.Activation;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of a GTE encoder ({@code model_type} {@code new}: Alibaba-NLP's gte-base-en-v1.5,
 * gte-large-en-v1.5, gte-multilingual-base), the keys of its {@code config.json} as Alibaba's {@code NewConfig}
 * reads them.
 *
 * @param vocabSize {@code vocab_size}
 * @param hiddenSize {@code hidden_size}: the width {@code d}
 * @param numHiddenLayers {@code num_hidden_layers}
 * @param numAttentionHeads {@code num_attention_heads}, dividing {@code d} into heads of an even size
 * @param intermediateSize {@code intermediate_size}: the GLU's width ({@code up_gate_proj} is {@code [2·inner, d]})
 * @param activation {@code hidden_act}, applied to the gate (the second half of {@code up_gate_proj})
 * @param layerNormEps {@code layer_norm_eps}
 * @param maxPositionEmbeddings {@code max_position_embeddings}: the longest input
 * @param typeVocabSize {@code type_vocab_size}, 0 for no token-type table
 * @param ropeTheta {@code rope_theta}
 * @param ntkFactor {@code rope_scaling.factor} of {@code type} {@code ntk}, 1 without scaling
 */
public record GteConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads,
                        int intermediateSize, Activation activation, double layerNormEps, int maxPositionEmbeddings,
                        int typeVocabSize, double ropeTheta, double ntkFactor) implements EncoderConfig {
    /** The {@code model_type} this reads. */
    public static final String MODEL_TYPE = "new";

    @Override
    public String modelType() {
        return MODEL_TYPE;
    }

    @Override
    public int maxLength() {
        return maxPositionEmbeddings();
    }

    @Override
    public GteModel loadEncoder(StateDict params) {
        return GteModel.load(params, this);
    }

    /** Refuses a configuration that cannot run. */
    public GteConfig {
        if (vocabSize < 1 || hiddenSize < 1 || numHiddenLayers < 1 || numAttentionHeads < 1 || intermediateSize < 1
                || maxPositionEmbeddings < 1 || typeVocabSize < 0) {
            throw new IllegalArgumentException("GteConfig: every size must be at least 1 (type_vocab_size at least"
                    + " 0): vocab_size " + vocabSize + ", hidden_size " + hiddenSize + ", num_hidden_layers "
                    + numHiddenLayers + ", num_attention_heads " + numAttentionHeads + ", intermediate_size "
                    + intermediateSize + ", max_position_embeddings " + maxPositionEmbeddings + ", type_vocab_size "
                    + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0 || (hiddenSize / numAttentionHeads) % 2 != 0) {
            throw new IllegalArgumentException("GteConfig: num_attention_heads " + numAttentionHeads
                    + " must divide hidden_size " + hiddenSize + " into heads of an even size");
        }
        if (activation == null) {
            throw new IllegalArgumentException("GteConfig: argument activation is null");
        }
        if (!(ropeTheta > 0) || Double.isInfinite(ropeTheta) || !(ntkFactor > 0) || Double.isInfinite(ntkFactor)
                || !(layerNormEps >= 0) || Double.isInfinite(layerNormEps)) {
            throw new IllegalArgumentException("GteConfig: rope_theta " + ropeTheta + " and the NTK factor "
                    + ntkFactor + " must be positive, layer_norm_eps " + layerNormEps + " at least 0, all finite");
        }
    }

    /** @return {@code hidden_size / num_attention_heads} */
    public int headDim() {
        return hiddenSize / numAttentionHeads;
    }

    /**
     * The rotary embedding over the whole head ({@code h = head_dim}). Without scaling, or with a factor
     * {@code f <= 1}, {@code ω_i = θ^(-2i/h)}; with NTK scaling and {@code f > 1} (the model builds its tables for
     * {@code f · max_position_embeddings} positions, past the trained length, so the scaled frequencies hold at
     * every position) {@code ω_i = (θ·f)^(-2i/h) / f^(2/h)}.
     *
     * @return the frequencies, half-split pairs
     */
    public RotaryEmbedding rotary() {
        int h = headDim();
        double[] frequencies = new double[h / 2];
        for (int i = 0; i < frequencies.length; i++) {
            frequencies[i] = ntkFactor > 1 ? Math.pow(ropeTheta * ntkFactor, -2.0 * i / h) / Math.pow(ntkFactor, 2.0 / h)
                    : Math.pow(ropeTheta, -2.0 * i / h);
        }
        return RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, frequencies);
    }

    /**
     * Reads a {@code config.json} strictly: every key that changes the numbers is honoured or refused by name
     * ({@code position_embedding_type} other than {@code rope}, a {@code rope_scaling} other than {@code ntk}
     * or with {@code mixed_b}, {@code layer_norm_type} other than {@code layer_norm}, {@code logn_attention_scale},
     * {@code pack_qkv} false, an unknown {@code hidden_act}); the dropout keys and {@code unpad_inputs} and
     * {@code use_memory_efficient_attention} (which give the padded computation's numbers for the real tokens) are
     * ignored, and any other key is refused.
     *
     * @param root a parsed {@code config.json}
     * @param source where it came from, for messages
     * @return the hyper-parameters
     * @throws IOException naming every key and value attn4j does not implement
     */
    public static GteConfig of(JsonNode root, String source) throws IOException {
        ConfigKeys k = ConfigKeys.of(root, source, MODEL_TYPE);
        k.ignore("unpad_inputs", "use_memory_efficient_attention", "logn_attention_clip1");
        String act = k.text("hidden_act", "gelu");
        Activation activation = switch (act) {
            case "gelu" -> Activation.GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
            case "silu", "swish" -> Activation.SILU;
            case "relu" -> Activation.RELU;
            default -> {
                k.problem("hidden_act", "'" + act + "'", "not supported (gelu, gelu_new, gelu_pytorch_tanh, silu,"
                        + " swish, relu)");
                yield Activation.GELU;
            }
        };
        k.require("position_embedding_type", "rope", "attn4j runs GTE with rotary positions");
        k.require("layer_norm_type", "layer_norm", "attn4j runs GTE with LayerNorm");
        k.require("logn_attention_scale", false, "the log-n query scaling is not supported");
        k.require("pack_qkv", true, "attn4j reads the fused qkv_proj");
        double factor = 1;
        JsonNode scaling = k.node("rope_scaling");
        if (scaling != null) {
            String type = scaling.path("type").asText("");
            JsonNode f = scaling.get("factor");
            JsonNode mixed = scaling.get("mixed_b");
            if (!type.equals("ntk") || f == null || !f.isNumber() || !(f.doubleValue() > 0)
                    || mixed != null && !mixed.isNull() || scaling.size() != (scaling.has("mixed_b") ? 3 : 2)) {
                k.problem("rope_scaling", scaling, "attn4j runs {\"type\": \"ntk\", \"factor\": f} (without mixed_b)");
            } else {
                factor = f.doubleValue();
            }
        }
        int vocab = k.size("vocab_size", -1);
        int hidden = k.size("hidden_size", -1);
        int layers = k.size("num_hidden_layers", -1);
        int heads = k.size("num_attention_heads", -1);
        int inner = k.size("intermediate_size", -1);
        double eps = k.number("layer_norm_eps", 1e-12);
        int positions = k.size("max_position_embeddings", 2048);
        int types = k.count("type_vocab_size", 1);
        double theta = k.number("rope_theta", 10000);
        k.finish();
        return new GteConfig(vocab, hidden, layers, heads, inner, activation, eps, positions, types, theta, factor);
    }
}
