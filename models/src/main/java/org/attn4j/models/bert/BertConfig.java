package org.attn4j.models.bert;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.attn4j.api.Activation;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of a BERT encoder, the fields of a Hugging Face {@code config.json} with
 * {@code "model_type": "bert"}.
 *
 * @param vocabSize {@code vocab_size}: rows of the word embedding table
 * @param hiddenSize {@code hidden_size}: the width {@code d}
 * @param numHiddenLayers {@code num_hidden_layers}
 * @param numAttentionHeads {@code num_attention_heads}, dividing {@code d}
 * @param intermediateSize {@code intermediate_size}: the feed-forward hidden width
 * @param hiddenAct {@code hidden_act}: {@code gelu} (exact erf), {@code gelu_new} / {@code gelu_pytorch_tanh}
 *     (tanh approximation) or {@code relu}
 * @param layerNormEps {@code layer_norm_eps}
 * @param maxPositionEmbeddings {@code max_position_embeddings}: the longest input
 * @param typeVocabSize {@code type_vocab_size}: rows of the token-type table
 */
public record BertConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads,
                         int intermediateSize, Activation hiddenAct, double layerNormEps, int maxPositionEmbeddings,
                         int typeVocabSize) implements EncoderConfig {
    /** Refuses a configuration that cannot run. */
    public BertConfig {
        if (vocabSize < 1 || hiddenSize < 1 || numHiddenLayers < 1 || numAttentionHeads < 1 || intermediateSize < 1
                || maxPositionEmbeddings < 1 || typeVocabSize < 1) {
            throw new IllegalArgumentException("BertConfig: every size must be at least 1: vocab_size " + vocabSize
                    + ", hidden_size " + hiddenSize + ", num_hidden_layers " + numHiddenLayers
                    + ", num_attention_heads " + numAttentionHeads + ", intermediate_size " + intermediateSize
                    + ", max_position_embeddings " + maxPositionEmbeddings + ", type_vocab_size " + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0) {
            throw new IllegalArgumentException("BertConfig: num_attention_heads " + numAttentionHeads
                    + " does not divide hidden_size " + hiddenSize);
        }
        if (hiddenAct == null) {
            throw new IllegalArgumentException("BertConfig: argument hiddenAct is null");
        }
        if (!(layerNormEps >= 0) || Double.isInfinite(layerNormEps)) {
            throw new IllegalArgumentException("BertConfig: layer_norm_eps " + layerNormEps
                    + " must be finite and at least 0");
        }
    }

    @Override
    public String modelType() {
        return "bert";
    }

    /** @return {@code max_position_embeddings} */
    @Override
    public int maxLength() {
        return maxPositionEmbeddings;
    }

    @Override
    public BertModel loadEncoder(StateDict params) {
        return BertModel.load(params, this);
    }

    /** @return true: attn4j reads this family's {@code *ForSequenceClassification} */
    @Override
    public boolean hasClassifier() {
        return true;
    }

    @Override
    public BertForSequenceClassification loadClassifier(StateDict params, int numLabels) {
        return BertForSequenceClassification.load(params, this, numLabels);
    }

    /** @return {@code classifier.weight} */
    @Override
    public String classifierOutputWeight() {
        return "classifier.weight";
    }

    /** @return {@code hidden_size / num_attention_heads} */
    public int headDim() {
        return hiddenSize / numAttentionHeads;
    }

    /**
     * @param file a Hugging Face {@code config.json}
     * @return its BERT hyper-parameters ({@code layer_norm_eps} defaults to {@code 1e-12}, {@code type_vocab_size} to
     *     2, {@code hidden_act} to {@code gelu}, as in {@code transformers.BertConfig})
     * @throws IOException if it cannot be read, is not JSON, is not {@code model_type} bert, lacks a size, or sets
     *     a key that changes the numbers in a way attn4j does not implement
     */
    public static BertConfig read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString(), null, "no config.json");
        }
        JsonNode root;
        try (InputStream in = Files.newInputStream(file)) {
            root = new ObjectMapper().readTree(in);
        }
        return of(root, file.toString());
    }

    /**
     * @param root a parsed {@code config.json}
     * @param source where it came from, for messages
     * @return its BERT hyper-parameters, as {@link #read(Path)}
     * @throws IOException as {@link #read(Path)}
     */
    public static BertConfig of(JsonNode root, String source) throws IOException {
        if (root == null || !root.isObject()) {
            throw new IOException(source + ": not a JSON object");
        }
        String type = root.path("model_type").asText("");
        if (!type.equals("bert")) {
            throw new IOException(source + ": model_type '" + type + "' is not supported; attn4j loads model_type"
                    + " 'bert' encoders");
        }
        String positions = root.path("position_embedding_type").asText("absolute");
        if (!positions.equals("absolute")) {
            throw new IOException(source + ": position_embedding_type '" + positions + "' is not supported (only "
                    + "absolute position embeddings are)");
        }
        for (String flag : new String[] {"is_decoder", "add_cross_attention"}) {
            if (root.path(flag).asBoolean(false)) {
                throw new IOException(source + ": " + flag + " is true; attn4j runs BERT as an encoder only");
            }
        }
        return new BertConfig(size(root, "vocab_size", source, -1), size(root, "hidden_size", source, -1),
                size(root, "num_hidden_layers", source, -1), size(root, "num_attention_heads", source, -1),
                size(root, "intermediate_size", source, -1),
                activation(root.path("hidden_act").asText("gelu"), source),
                root.path("layer_norm_eps").asDouble(1e-12), size(root, "max_position_embeddings", source, 512),
                size(root, "type_vocab_size", source, 2));
    }

    private static int size(JsonNode root, String field, String file, int orElse) throws IOException {
        JsonNode n = root.get(field);
        if (n == null && orElse >= 0) {
            return orElse;
        }
        if (n == null || !n.canConvertToInt()) {
            throw new IOException(file + ": field " + field + " is " + (n == null ? "missing" : n)
                    + "; an integer was expected");
        }
        return n.intValue();
    }

    /**
     * @param name a {@code hidden_act} value
     * @param file the file for the message
     * @return the activation
     * @throws IOException if attn4j does not know it
     */
    static Activation activation(String name, String file) throws IOException {
        return switch (name) {
            case "gelu" -> Activation.GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
            case "relu" -> Activation.RELU;
            default -> throw new IOException(file + ": hidden_act '" + name + "' is not supported (gelu, gelu_new,"
                    + " gelu_pytorch_tanh, relu)");
        };
    }
}
