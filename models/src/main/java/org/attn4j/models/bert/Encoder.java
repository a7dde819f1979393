package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * A bidirectional text encoder of any family this package loads, as the models of {@code embed} run it: a padded
 * batch of token ids in, one vector per token out; sentence embeddings pool these vectors. {@link EncoderConfig#of}
 * chooses the family by {@code config.json}'s {@code model_type}:
 * <pre>
 *   bert         {@link BertModel}        absolute positions, post-norm, GELU MLP
 *   xlm-roberta  {@link XlmRobertaModel}  BERT's layers, RoBERTa's position ids, one token type
 *   mpnet        {@link MpnetModel}       BERT's layers, one relative position bias shared by every layer
 *   nomic_bert   {@link NomicBertModel}   rotary, post-norm, SwiGLU, fused Wqkv          (nomic-embed-text)
 *   modernbert   {@link ModernBertModel}  rotary, pre-norm, GeGLU, global and local layers (ModernBERT)
 *   new          {@link GteModel}         rotary with NTK scaling, post-norm, GLU          (gte-*-v1.5, gte-multilingual)
 * </pre>
 * A loaded encoder holds its parameters on the host; {@link #bind(Parameters)} uploads them once.
 */
public interface Encoder {
    /**
     * @param configJson a parsed {@code config.json}
     * @param source where it came from, for messages
     * @param weights the parameters under the family's names
     * @return the family's encoder on the host
     * @throws IOException if {@code model_type} names no family of this package, or the family's reader refuses a
     *     key of the configuration
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    static Encoder load(JsonNode configJson, String source, StateDict weights) throws IOException {
        return EncoderConfig.of(configJson, source).loadEncoder(weights);
    }

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
     *     ({@code token_type_ids} are read by the families that have a token-type table)
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
     *     attention over the keys (zero on the keys it may not see; rows sum to 1)
     */
    Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer);

    /** @return {@code d}, the width of each token's hidden state */
    default int hiddenSize() {
        return config().hiddenSize();
    }

    /** @return the number of layers */
    default int layers() {
        return config().numHiddenLayers();
    }

    /** @return the number of attention heads of each layer */
    default int heads() {
        return config().numAttentionHeads();
    }

    /**
     * @return whether its projections may be bound as {@link org.attn4j.api.WeightType#I8} weights
     *     ({@link Parameters#withInt8Projections}): true for the families whose layers quantize each projection's
     *     input one text at a time over its real tokens only, as ONNX Runtime does on that text alone, so that a
     *     text's vector does not depend on the other texts of a batch (bert, xlm-roberta, mpnet)
     */
    default boolean takesInt8Projections() {
        return false;
    }

    /** @return the longest input the encoder accepts, in tokens */
    default int maxLength() {
        return config().maxLength();
    }
}
