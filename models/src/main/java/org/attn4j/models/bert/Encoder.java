package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * A text encoder of any family this package loads, as the models of {@code embed} run it: token ids in, one hidden
 * state per token out. {@link #load} chooses the family by {@code config.json}'s {@code model_type}:
 * <pre>
 *   bert         {@link BertModel}        absolute positions, post-norm, GELU MLP
 *   nomic_bert   {@link NomicBertModel}   rotary, post-norm, SwiGLU, fused Wqkv          (nomic-embed-text)
 *   modernbert   {@link ModernBertModel}  rotary, pre-norm, GeGLU, global and local layers (ModernBERT)
 *   new          {@link GteModel}         rotary with NTK scaling, post-norm, GLU          (gte-*-v1.5, gte-multilingual)
 * </pre>
 * A loaded encoder holds its parameters on the host; {@link #bind(Parameters)} uploads them once.
 */
public interface Encoder {
    /** The {@code model_type}s of the rotary families, which {@link #load} reads beside {@code bert}. */
    List<String> ROTARY_MODEL_TYPES = List.of(NomicBertConfig.MODEL_TYPE, ModernBertConfig.MODEL_TYPE,
            GteConfig.MODEL_TYPE);

    /**
     * @param configJson a parsed {@code config.json}
     * @param source where it came from, for messages
     * @param weights the parameters under the family's names
     * @return the family's encoder on the host
     * @throws IOException if {@code model_type} is none of {@code bert}, {@link #ROTARY_MODEL_TYPES}, or the
     *     configuration sets a key the family reader refuses
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    static Encoder load(JsonNode configJson, String source, StateDict weights) throws IOException {
        String type = configJson == null ? "" : configJson.path("model_type").asText("");
        return switch (type) {
            case "bert" -> BertModel.load(weights, BertConfig.of(configJson, source));
            case NomicBertConfig.MODEL_TYPE -> NomicBertModel.load(weights, NomicBertConfig.of(configJson, source));
            case ModernBertConfig.MODEL_TYPE -> ModernBertModel.load(weights, ModernBertConfig.of(configJson, source));
            case GteConfig.MODEL_TYPE -> GteModel.load(weights, GteConfig.of(configJson, source));
            default -> throw new IOException(source + ": model_type '" + type + "' is not supported; attn4j loads the"
                    + " encoders bert, " + String.join(", ", ROTARY_MODEL_TYPES));
        };
    }

    /**
     * The last hidden state, Hugging Face's {@code last_hidden_state}.
     *
     * @param scope receives the result
     * @param input a padded batch ({@code token_type_ids} are read by the families that have a token-type table)
     * @param dtype the compute dtype (the bound dtype, for a bound encoder)
     * @return {@code [B, L, d]}; rows of padding positions are computed but meaningless
     */
    Tensor forward(Scope scope, BertInput input, DType dtype);

    /**
     * @param scope receives the result
     * @param input a padded batch
     * @param dtype the compute dtype
     * @param layer {@code 0 .. layers() - 1}
     * @return {@code [B, H, L, L]}: the softmax weights of that layer (zero on the keys a query may not see)
     */
    Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer);

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this encoder reading its parameters from {@code parameters}
     */
    Encoder bind(Parameters parameters);

    /** @return the parameters under the family's names (a load of them gives this encoder back) */
    StateDict stateDict();

    /** @return {@code d}, the width of each token's hidden state */
    int hiddenSize();

    /** @return the number of layers */
    int layers();

    /** @return the number of attention heads of each layer */
    int heads();

    /** @return the longest input the encoder accepts, in tokens */
    int maxLength();
}
