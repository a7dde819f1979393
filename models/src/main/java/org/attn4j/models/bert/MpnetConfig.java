package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.attn4j.api.Activation;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of an MPNet encoder ({@code model_type: mpnet}: all-mpnet-base-v2, multi-qa-mpnet-base).
 *
 * @param vocabSize {@code vocab_size}
 * @param hiddenSize {@code hidden_size}: the width {@code d}
 * @param numHiddenLayers {@code num_hidden_layers}
 * @param numAttentionHeads {@code num_attention_heads}, dividing {@code d}
 * @param intermediateSize {@code intermediate_size}
 * @param hiddenAct {@code hidden_act}
 * @param layerNormEps {@code layer_norm_eps}
 * @param maxPositionEmbeddings {@code max_position_embeddings}
 * @param padTokenId {@code pad_token_id}: position ids count from {@code pad_token_id + 1}, as RoBERTa's
 * @param relativeAttentionNumBuckets {@code relative_attention_num_buckets}: rows of the relative position bias
 */
public record MpnetConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads,
                          int intermediateSize, Activation hiddenAct, double layerNormEps, int maxPositionEmbeddings,
                          int padTokenId, int relativeAttentionNumBuckets) implements EncoderConfig {
    /** The buckets transformers' {@code MPNetEncoder.compute_position_bias} uses, whatever the configuration says. */
    public static final int BUCKETS = 32;

    /** Refuses a configuration that cannot run. */
    public MpnetConfig {
        layers(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct, layerNormEps,
                maxPositionEmbeddings);
        if (padTokenId < 0 || padTokenId + 1 >= maxPositionEmbeddings || padTokenId >= vocabSize) {
            throw new IllegalArgumentException("MpnetConfig: pad_token_id " + padTokenId + " must be below vocab_size "
                    + vocabSize + " and leave positions in max_position_embeddings " + maxPositionEmbeddings);
        }
        if (relativeAttentionNumBuckets != BUCKETS) {
            throw new IllegalArgumentException("MpnetConfig: relative_attention_num_buckets "
                    + relativeAttentionNumBuckets + " is not supported: transformers' MPNet computes " + BUCKETS
                    + " buckets whatever the configuration says");
        }
    }

    private static BertConfig layers(int vocab, int d, int layers, int heads, int intermediate, Activation act,
                                     double eps, int positions) {
        return new BertConfig(vocab, d, layers, heads, intermediate, act, eps, positions, 1);
    }

    /** @return the hyper-parameters of the BERT layers MPNet's are (token types unused) */
    BertConfig layers() {
        return layers(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
                layerNormEps, maxPositionEmbeddings);
    }

    /**
     * Reads a {@code config.json} strictly. Honoured: {@code vocab_size}, {@code hidden_size},
     * {@code num_hidden_layers}, {@code num_attention_heads}, {@code intermediate_size}, {@code hidden_act}
     * ({@code gelu}), {@code layer_norm_eps} (1e-12), {@code max_position_embeddings} (512), {@code pad_token_id}
     * (1), {@code relative_attention_num_buckets} (32, the only value transformers computes), defaults as
     * {@code transformers.MPNetConfig}. {@link ConfigKeys#METADATA} change nothing; any other key is refused by name.
     *
     * @param root a parsed {@code config.json} with {@code model_type} mpnet
     * @param source where it came from, for messages
     * @return the hyper-parameters
     * @throws IOException naming every key and value that attn4j does not implement
     */
    public static MpnetConfig of(JsonNode root, String source) throws IOException {
        ConfigKeys json = ConfigKeys.of(root, source, "mpnet");
        json.require("is_decoder", false, "attn4j runs MPNet as an encoder");
        json.require("add_cross_attention", false, "attn4j runs MPNet as an encoder");
        json.require("chunk_size_feed_forward", 0, "chunking changes no number, but only 0 is tested");
        json.require("pruned_heads", null, "pruned heads change the shapes of the projections");
        int vocab = json.size("vocab_size", -1);
        int hidden = json.size("hidden_size", -1);
        int layers = json.size("num_hidden_layers", -1);
        int heads = json.size("num_attention_heads", -1);
        int intermediate = json.size("intermediate_size", -1);
        String act = json.text("hidden_act", "gelu");
        double eps = json.number("layer_norm_eps", 1e-12);
        int positions = json.size("max_position_embeddings", 512);
        int pad = json.count("pad_token_id", 1);
        int buckets = json.size("relative_attention_num_buckets", BUCKETS);
        Activation activation = null;
        try {
            activation = BertConfig.activation(act, source);
        } catch (IOException e) {
            json.problem("hidden_act '" + act + "' is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu)");
        }
        json.finish();
        try {
            return new MpnetConfig(vocab, hidden, layers, heads, intermediate, activation, eps, positions, pad,
                    buckets);
        } catch (IllegalArgumentException e) {
            throw new IOException(source + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String modelType() {
        return "mpnet";
    }

    /** @return {@code max_position_embeddings - pad_token_id - 1}: 512 for the usual 514 positions and padding 1 */
    @Override
    public int maxLength() {
        return maxPositionEmbeddings - padTokenId - 1;
    }

    @Override
    public MpnetModel loadEncoder(StateDict params) {
        return MpnetModel.load(params, this);
    }
}
