package org.attn4j.models.bert;

import java.io.IOException;
import com.fasterxml.jackson.databind.JsonNode;
import org.attn4j.models.parameters.StateDict;

/**
 * The hyper-parameters of an encoder family, read from a Hugging Face {@code config.json} by its {@code model_type}:
 * {@code bert} ({@link BertConfig}), {@code xlm-roberta} ({@link XlmRobertaConfig}), {@code mpnet}
 * ({@link MpnetConfig}), {@code nomic_bert} ({@link NomicBertConfig}), {@code modernbert} ({@link ModernBertConfig}),
 * {@code new} ({@link GteConfig}). Each family loads its own
 * {@link Encoder} and, where it has one, its classification head.
 */
public sealed interface EncoderConfig permits BertConfig, XlmRobertaConfig, MpnetConfig,
        NomicBertConfig, ModernBertConfig, GteConfig {
    /** @return transformers' {@code model_type} */
    String modelType();

    /** @return {@code hidden_size}: the width {@code d} of every token vector */
    int hiddenSize();

    /** @return {@code num_hidden_layers} */
    int numHiddenLayers();

    /** @return {@code num_attention_heads} */
    int numAttentionHeads();

    /** @return the longest input the position table allows, special tokens included */
    int maxLength();

    /**
     * @param params the checkpoint's parameters under Hugging Face names
     * @return the family's encoder on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    Encoder loadEncoder(StateDict params);

    /**
     * @return whether {@link #loadClassifier} reads a sequence-classification head of this family: true for
     *     {@code bert} and {@code xlm-roberta}, whose {@code *ForSequenceClassification} attn4j reads
     */
    default boolean hasClassifier() {
        return false;
    }

    /**
     * @param params the checkpoint's parameters under Hugging Face names
     * @param numLabels the classifier's outputs, at least 1
     * @return the family's {@code *ForSequenceClassification} on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     * @throws IllegalArgumentException naming the family, where {@link #hasClassifier} is false
     */
    default SequenceClassifier loadClassifier(StateDict params, int numLabels) {
        throw noClassifier();
    }

    /**
     * @return the name of the classifier's last weight, {@code [num_labels, ·]}, whose rows count the labels
     * @throws IllegalArgumentException naming the family, where {@link #hasClassifier} is false
     */
    default String classifierOutputWeight() {
        throw noClassifier();
    }

    private IllegalArgumentException noClassifier() {
        return new IllegalArgumentException("model_type " + modelType() + ": attn4j loads it as an encoder only;"
                + " its sequence-classification cross-encoder is not supported (bert's and xlm-roberta's are)");
    }

    /**
     * @param root a parsed {@code config.json}
     * @param source where it came from, for messages
     * @return the hyper-parameters of the family its {@code model_type} names
     * @throws IOException if it is no JSON object, names a {@code model_type} attn4j does not load, or the
     *     family's reader refuses it
     */
    static EncoderConfig of(JsonNode root, String source) throws IOException {
        if (root == null || !root.isObject()) {
            throw new IOException(source + ": not a JSON object");
        }
        String type = root.path("model_type").asText("");
        return switch (type) {
            case "bert" -> BertConfig.of(root, source);
            case "xlm-roberta" -> XlmRobertaConfig.of(root, source);
            case "mpnet" -> MpnetConfig.of(root, source);
            case NomicBertConfig.MODEL_TYPE -> NomicBertConfig.of(root, source);
            case ModernBertConfig.MODEL_TYPE -> ModernBertConfig.of(root, source);
            case GteConfig.MODEL_TYPE -> GteConfig.of(root, source);
            default -> throw new IOException(source + ": model_type '" + type + "' is not supported; attn4j loads"
                    + " the encoder families bert, xlm-roberta, mpnet, " + NomicBertConfig.MODEL_TYPE + ", "
                    + ModernBertConfig.MODEL_TYPE + ", " + GteConfig.MODEL_TYPE);
        };
    }
}
