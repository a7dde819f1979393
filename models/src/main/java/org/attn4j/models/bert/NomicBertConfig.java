package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.attn4j.api.Activation;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of a NomicBERT encoder ({@code model_type} {@code nomic_bert}: nomic-embed-text-v1 and
 * v1.5), the GPT-2-style keys of its {@code config.json} as {@code modeling_hf_nomic_bert.py} reads them.
 *
 * @param vocabSize rows of the word table: {@code vocab_size} rounded up to a multiple of
 *     {@code pad_vocab_size_multiple}
 * @param hiddenSize {@code n_embd}: the width {@code d}
 * @param numHiddenLayers {@code n_layer}
 * @param numAttentionHeads {@code n_head}, dividing {@code d}
 * @param innerSize the gated MLP's width: {@code n_inner} (else {@code 8d/3}) rounded up to a multiple of 256
 * @param activation the gate's activation: SiLU for {@code swiglu}, GELU for {@code geglu}
 * @param layerNormEps {@code layer_norm_epsilon}
 * @param maxPositions {@code n_positions}: the longest input
 * @param typeVocabSize {@code type_vocab_size}, 0 for no token-type table
 * @param rotaryDimension {@code head_dim · rotary_emb_fraction}: how many features of each head are turned
 * @param rotaryBase {@code rotary_emb_base}
 * @param interleaved {@code rotary_emb_interleaved}: pairs {@code (2i, 2i+1)} instead of {@code (i, i + r/2)}
 * @param qkvBias {@code qkv_proj_bias}: biases on {@code Wqkv} and {@code out_proj}
 * @param fc1Bias {@code mlp_fc1_bias}: biases on {@code fc11} and {@code fc12}
 * @param fc2Bias {@code mlp_fc2_bias}: a bias on {@code fc2}
 */
public record NomicBertConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads,
                              int innerSize, Activation activation, double layerNormEps, int maxPositions,
                              int typeVocabSize, int rotaryDimension, double rotaryBase, boolean interleaved,
                              boolean qkvBias, boolean fc1Bias, boolean fc2Bias) implements EncoderConfig {
    /** The {@code model_type} this reads. */
    public static final String MODEL_TYPE = "nomic_bert";

    @Override
    public String modelType() {
        return MODEL_TYPE;
    }

    @Override
    public int maxLength() {
        return maxPositions();
    }

    @Override
    public NomicBertModel loadEncoder(StateDict params) {
        return NomicBertModel.load(params, this);
    }

    /** Refuses a configuration that cannot run. */
    public NomicBertConfig {
        if (vocabSize < 1 || hiddenSize < 1 || numHiddenLayers < 1 || numAttentionHeads < 1 || innerSize < 1
                || maxPositions < 1 || typeVocabSize < 0) {
            throw new IllegalArgumentException("NomicBertConfig: every size must be at least 1 (type_vocab_size at"
                    + " least 0): vocab_size " + vocabSize + ", n_embd " + hiddenSize + ", n_layer " + numHiddenLayers
                    + ", n_head " + numAttentionHeads + ", inner " + innerSize + ", n_positions " + maxPositions
                    + ", type_vocab_size " + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0) {
            throw new IllegalArgumentException("NomicBertConfig: n_head " + numAttentionHeads
                    + " does not divide n_embd " + hiddenSize);
        }
        if (rotaryDimension < 2 || rotaryDimension % 2 != 0 || rotaryDimension > hiddenSize / numAttentionHeads) {
            throw new IllegalArgumentException("NomicBertConfig: the rotary dimension " + rotaryDimension
                    + " must be even, at least 2 and at most the head size " + hiddenSize / numAttentionHeads);
        }
        if (activation == null) {
            throw new IllegalArgumentException("NomicBertConfig: argument activation is null");
        }
        if (!(rotaryBase > 0) || Double.isInfinite(rotaryBase) || !(layerNormEps >= 0)
                || Double.isInfinite(layerNormEps)) {
            throw new IllegalArgumentException("NomicBertConfig: rotary_emb_base " + rotaryBase
                    + " must be positive and layer_norm_epsilon " + layerNormEps + " at least 0, both finite");
        }
    }

    /** @return {@code n_embd / n_head} */
    public int headDim() {
        return hiddenSize / numAttentionHeads;
    }

    /** @return {@code ω_i = rotary_emb_base^(-2i/r)} over the first {@code r = rotaryDimension} features */
    public RotaryEmbedding rotary() {
        return RotaryEmbedding.of(interleaved ? RopeLayout.INTERLEAVED : RopeLayout.HALF_SPLIT, rotaryBase,
                rotaryDimension);
    }

    /**
     * Reads a {@code config.json} strictly: every key that changes the numbers is honoured or refused by name
     * ({@code prenorm}, {@code causal}, {@code use_rms_norm}, {@code parallel_block}, {@code rotary_emb_scale_base},
     * {@code rotary_scaling_factor}, {@code num_heads_kv} other than {@code n_head}, {@code rotary_head_dim},
     * an {@code activation_function} other than {@code swiglu} or {@code geglu}, {@code rotary_emb_fraction} 0),
     * the dropout, kernel and GPT-2 keys its model never reads are ignored, and any other key is refused.
     *
     * @param root a parsed {@code config.json}
     * @param source where it came from, for messages
     * @return the hyper-parameters
     * @throws IOException naming every key and value attn4j does not implement
     */
    public static NomicBertConfig of(JsonNode root, String source) throws IOException {
        ConfigKeys k = ConfigKeys.of(root, source, MODEL_TYPE);
        k.ignore("attn_pdrop", "embd_pdrop", "resid_pdrop", "summary_activation", "summary_first_dropout",
                "summary_proj_to_labels", "summary_type", "summary_use_proj", "dense_seq_output", "fused_bias_fc",
                "fused_dropout_add_ln", "use_flash_attn", "use_xentropy", "scale_attn_weights",
                "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "parallel_block_tied_norm",
                "max_trained_positions", "add_pooling_layer", "n_ctx");
        int d = k.size("n_embd", -1);
        int heads = k.size("n_head", -1);
        int layers = k.size("n_layer", -1);
        int multiple = k.size("pad_vocab_size_multiple", 1);
        int vocab = k.size("vocab_size", -1);
        vocab = (vocab + multiple - 1) / multiple * multiple;
        JsonNode innerNode = k.node("n_inner");
        int inner = innerNode == null ? 8 * d / 3 : innerNode.asInt(-1);
        if (innerNode != null && (!innerNode.isIntegralNumber() || inner < 1)) {
            k.problem("n_inner", innerNode, "a positive integer or null was expected");
            inner = 1;
        }
        inner = (inner + 255) / 256 * 256;
        String act = k.text("activation_function", "gelu_new");
        Activation activation = switch (act) {
            case "swiglu" -> Activation.SILU;
            case "geglu" -> Activation.GELU;
            default -> {
                k.problem("activation_function", "'" + act + "'", "attn4j runs the gated MLPs swiglu and geglu");
                yield Activation.SILU;
            }
        };
        double fraction = k.number("rotary_emb_fraction", 0);
        int rotary = (int) (d / heads * fraction);
        if (!(fraction > 0) || fraction > 1 || rotary % 2 != 0 || rotary < 2) {
            k.problem("rotary_emb_fraction", fraction, "attn4j runs rotary NomicBERT, turning an even number of"
                    + " features of each head (absolute positions, fraction 0, are not supported)");
            rotary = 2;
        }
        double base = k.number("rotary_emb_base", 10000);
        boolean interleaved = k.flag("rotary_emb_interleaved", false);
        k.require("prenorm", false, "attn4j runs NomicBERT post-norm");
        k.require("causal", false, "attn4j runs NomicBERT as a bidirectional encoder");
        k.require("use_rms_norm", false, "attn4j runs NomicBERT with LayerNorm");
        k.require("parallel_block", false, "attn4j runs the sequential block");
        k.require("rotary_head_dim", false, "the xformers layout is not supported");
        k.requireNull("rotary_emb_scale_base", "the xPos scaling is not supported");
        k.requireNull("rotary_scaling_factor", "the dynamic NTK scaling is not supported");
        JsonNode kv = k.node("num_heads_kv");
        if (kv != null && kv.asInt(-1) != heads) {
            k.problem("num_heads_kv", kv, "attn4j runs NomicBERT with as many key/value heads as heads (n_head "
                    + heads + ")");
        }
        int positions = k.count("n_positions", 2048);
        double eps = k.number("layer_norm_epsilon", 1e-5);
        int types = k.count("type_vocab_size", 2);
        boolean qkvBias = k.flag("qkv_proj_bias", true);
        boolean fc1Bias = k.flag("mlp_fc1_bias", true);
        boolean fc2Bias = k.flag("mlp_fc2_bias", true);
        k.finish();
        return new NomicBertConfig(vocab, d, layers, heads, inner, activation, eps, positions <= 0 ? 2048 : positions,
                types, rotary, base, interleaved, qkvBias, fc1Bias, fc2Bias);
    }
}
