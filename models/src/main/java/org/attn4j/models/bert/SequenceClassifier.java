package org.attn4j.models.bert;

import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;

/**
 * An encoder with a classification head on its first token, Hugging Face's {@code *ForSequenceClassification}
 * ({@link BertForSequenceClassification}, {@link XlmRobertaForSequenceClassification}): the shape of cross-encoders.
 */
public interface SequenceClassifier {
    /** @return the encoder's hyper-parameters */
    EncoderConfig config();

    /** @return {@code num_labels} */
    int numLabels();

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this model reading its parameters from {@code parameters}
     */
    SequenceClassifier bind(Parameters parameters);

    /**
     * @param scope receives the result
     * @param input a padded batch of texts or pairs
     * @param dtype the compute dtype (the bound dtype, for a bound model)
     * @return the logits {@code [B, num_labels]}
     */
    Tensor logits(Scope scope, BertInput input, DType dtype);
}
