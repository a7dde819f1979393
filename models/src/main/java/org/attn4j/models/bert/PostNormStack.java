package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * The forward NomicBERT and GTE share, BERT's with rotary attention in its post-norm layers and no position table:
 * <pre>
 *   x = embeddingNorm(words[input_ids] (+ tokenTypes[token_type_ids], where the table exists))      [B, L, d]
 *   x = layer(x, key padding), for each layer in order                                              [B, L, d]
 * </pre>
 * Each family reads its pieces under its own names and writes them back so; this class runs, binds and checks them.
 */
final class PostNormStack {
    private final String model;
    private final String lengthKey;
    private final int maxLength;
    private final Embedding words;
    private final Embedding tokenTypes;
    private final LayerNorm embeddingNorm;
    private final List<PostNormLayer> layers;

    /**
     * @param model the family's class name, for messages
     * @param lengthKey the config key that bounds the input's length, for messages
     * @param maxLength the longest input, in tokens
     * @param words {@code [V, d]}
     * @param tokenTypes {@code [T, d]}, or null when the family has no token types
     * @param embeddingNorm the norm of the summed embeddings
     * @param layers the post-norm layers, in order
     */
    PostNormStack(String model, String lengthKey, int maxLength, Embedding words, Embedding tokenTypes,
                  LayerNorm embeddingNorm, List<PostNormLayer> layers) {
        this.model = model;
        this.lengthKey = lengthKey;
        this.maxLength = maxLength;
        this.words = words;
        this.tokenTypes = tokenTypes;
        this.embeddingNorm = embeddingNorm;
        this.layers = List.copyOf(layers);
    }

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this stack reading its parameters from {@code parameters}
     */
    PostNormStack bind(Parameters parameters) {
        List<PostNormLayer> bound = new ArrayList<>();
        for (PostNormLayer l : layers) {
            bound.add(l.bind(parameters));
        }
        return new PostNormStack(model, lengthKey, maxLength, words.bind(parameters),
                tokenTypes == null ? null : tokenTypes.bind(parameters), embeddingNorm.bind(parameters), bound);
    }

    /** @return the layers, in order */
    List<PostNormLayer> layers() {
        return layers;
    }

    /**
     * @param wordsPrefix the family's name of the word table, for example {@code embeddings.word_embeddings.}
     * @param tokenTypesPrefix the family's name of the token-type table
     * @param normPrefix the family's name of the embedding norm
     * @return the embeddings' parameters under those names
     */
    StateDict embeddings(String wordsPrefix, String tokenTypesPrefix, String normPrefix) {
        StateDict sd = words.stateDict().prefixed(wordsPrefix).plus(embeddingNorm.stateDict().prefixed(normPrefix));
        return tokenTypes == null ? sd : sd.plus(tokenTypes.stateDict().prefixed(tokenTypesPrefix));
    }

    /** See {@link Encoder#forward}. */
    Tensor forward(Scope scope, BertInput input, DType dtype) {
        return run(scope, input, dtype, -1).output();
    }

    /** See {@link Encoder#attentionWeights}. */
    Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer) {
        if (layer < 0 || layer >= layers.size()) {
            throw new IllegalArgumentException(model + ".attentionWeights: argument layer is " + layer
                    + "; the model has layers 0 to " + (layers.size() - 1));
        }
        return run(scope, input, dtype, layer).weights();
    }

    private AttentionResult run(Scope scope, BertInput input, DType dtype, int weightsOf) {
        if (input.length() > maxLength) {
            throw new IllegalArgumentException(model + ".forward: input length " + input.length() + " exceeds "
                    + lengthKey + " " + maxLength + "; truncate the input");
        }
        try (Scope work = scope.backend().newScope()) {
            Shape ids = Shape.of(input.batch(), input.length());
            Tensor x = words.forward(work, input.inputIds(), ids, dtype);
            if (tokenTypes != null) {
                x = work.ops().add(x, tokenTypes.forward(work, input.tokenTypeIds(), ids, dtype));
            }
            x = embeddingNorm.forward(work, x);
            Mask keyPadding = input.keyPadding();
            for (int i = 0; i < layers.size(); i++) {
                AttentionResult r = layers.get(i).forward(work, x, keyPadding, i == weightsOf);
                if (i == weightsOf) {
                    return new AttentionResult(null, scope.adopt(r.weights()));
                }
                x = r.output();
            }
            return new AttentionResult(scope.adopt(x), null);
        }
    }
}
