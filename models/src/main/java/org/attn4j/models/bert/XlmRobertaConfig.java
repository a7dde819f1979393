package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.attn4j.api.Activation;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of an XLM-RoBERTa encoder ({@code model_type: xlm-roberta}: bge-m3, multilingual-e5,
 * paraphrase-multilingual-MiniLM-L12-v2, bge-reranker-v2-m3): BERT's, plus the padding id from which position ids
 * count.
 *
 * @param encoder the BERT hyper-parameters of the same names
 * @param padTokenId {@code pad_token_id}: the padding token, and the position id of padding; real tokens take
 *     positions {@code pad_token_id + 1, pad_token_id + 2, …}
 */
public record XlmRobertaConfig(BertConfig encoder, int padTokenId) implements EncoderConfig {
    /** Refuses a configuration that cannot run. */
    public XlmRobertaConfig {
        if (encoder == null) {
            throw new IllegalArgumentException("XlmRobertaConfig: argument encoder is null");
        }
        if (padTokenId < 0 || padTokenId + 1 >= encoder.maxPositionEmbeddings()) {
            throw new IllegalArgumentException("XlmRobertaConfig: pad_token_id " + padTokenId + " leaves no position"
                    + " in max_position_embeddings " + encoder.maxPositionEmbeddings()
                    + " (real tokens start at pad_token_id + 1)");
        }
        if (padTokenId >= encoder.vocabSize()) {
            throw new IllegalArgumentException("XlmRobertaConfig: pad_token_id " + padTokenId + " is not below"
                    + " vocab_size " + encoder.vocabSize());
        }
    }

    /**
     * Reads a {@code config.json} strictly. Honoured: {@code vocab_size}, {@code hidden_size},
     * {@code num_hidden_layers}, {@code num_attention_heads}, {@code intermediate_size}, {@code hidden_act}
     * ({@code gelu}), {@code layer_norm_eps} (1e-12), {@code max_position_embeddings} (512),
     * {@code type_vocab_size} (2), {@code pad_token_id} (1), defaults as {@code transformers.XLMRobertaConfig}.
     * Accepted only at the value attn4j implements: {@code position_embedding_type} absolute,
     * {@code is_decoder} and {@code add_cross_attention} false, {@code chunk_size_feed_forward} 0,
     * {@code pruned_heads} empty. {@link ConfigKeys#METADATA} change nothing; any other key is refused by name.
     *
     * @param root a parsed {@code config.json} with {@code model_type} xlm-roberta
     * @param source where it came from, for messages
     * @return the hyper-parameters
     * @throws IOException naming every key and value that attn4j does not implement
     */
    public static XlmRobertaConfig of(JsonNode root, String source) throws IOException {
        ConfigKeys json = ConfigKeys.of(root, source, "xlm-roberta");
        json.require("position_embedding_type", "absolute", "relative_key and relative_key_query add learned"
                + " relative-distance terms to the logits");
        json.require("is_decoder", false, "attn4j runs XLM-RoBERTa as an encoder");
        json.require("add_cross_attention", false, "attn4j runs XLM-RoBERTa as an encoder");
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
        int types = json.size("type_vocab_size", 2);
        int pad = json.count("pad_token_id", 1);
        Activation activation = null;
        try {
            activation = BertConfig.activation(act, source);
        } catch (IOException e) {
            json.problem("hidden_act '" + act + "' is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu)");
        }
        json.finish();
        try {
            return new XlmRobertaConfig(new BertConfig(vocab, hidden, layers, heads, intermediate, activation, eps,
                    positions, types), pad);
        } catch (IllegalArgumentException e) {
            throw new IOException(source + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String modelType() {
        return "xlm-roberta";
    }

    @Override
    public int hiddenSize() {
        return encoder.hiddenSize();
    }

    @Override
    public int numHiddenLayers() {
        return encoder.numHiddenLayers();
    }

    @Override
    public int numAttentionHeads() {
        return encoder.numAttentionHeads();
    }

    /** @return {@code max_position_embeddings - pad_token_id - 1}: 512 for the usual 514 positions and padding 1 */
    @Override
    public int maxLength() {
        return encoder.maxPositionEmbeddings() - padTokenId - 1;
    }

    @Override
    public XlmRobertaModel loadEncoder(StateDict params) {
        return XlmRobertaModel.load(params, this);
    }

    /** @return true: attn4j reads this family's {@code *ForSequenceClassification} */
    @Override
    public boolean hasClassifier() {
        return true;
    }

    @Override
    public XlmRobertaForSequenceClassification loadClassifier(StateDict params, int numLabels) {
        return XlmRobertaForSequenceClassification.load(params, this, numLabels);
    }

    /** @return {@code classifier.out_proj.weight} */
    @Override
    public String classifierOutputWeight() {
        return "classifier.out_proj.weight";
    }
}
