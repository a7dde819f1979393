package org.attn4j.models.bert;

import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;

/**
 * A bidirectional text encoder of the BERT family ({@link BertModel}, {@link XlmRobertaModel},
 * {@link MpnetModel}):
 * a padded batch of token ids in, one vector per token out. Sentence embeddings pool these vectors.
 */
public interface Encoder {
    /** @return the hyper-parameters */
    EncoderConfig config();

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this encoder reading its parameters from {@code parameters}
     */
    Encoder bind(Parameters parameters);

    /**
     * The last hidden state, Hugging Face's {@code last_hidden_state}.
     *
     * @param scope receives the result
     * @param input a padded batch; {@code L} at most {@link EncoderConfig#maxLength()}, ids inside the tables
     * @param dtype the compute dtype (the bound dtype, for a bound encoder)
     * @return {@code [B, L, d]}; rows at padding positions are computed but meaningless
     */
    Tensor forward(Scope scope, BertInput input, DType dtype);

    /**
     * The attention weights of one layer, Hugging Face's {@code attentions[layer]}.
     *
     * @param scope receives the result
     * @param input a padded batch
     * @param dtype the compute dtype
     * @param layer which layer, {@code 0 .. num_hidden_layers-1}
     * @return {@code [B, H, L, L]}: row {@code i} of head {@code h} is how query token {@code i} spreads its
     *     attention over the keys (zero on padding keys; rows sum to 1)
     */
    Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer);
}
