package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Hugging Face's {@code BertModel}: the encoder of BERT, MiniLM and the other {@code model_type: bert} checkpoints.
 * <pre>
 *   x = embeddings.LayerNorm(word[input_ids] + position[0..L-1] + token_type[token_type_ids])     [B, L, d]
 *   x = encoder.layer.&lt;i&gt;(x, key padding from attention_mask)    for i = 0 .. N-1 (post-norm, see the layer)
 *   pooled = tanh(pooler.dense(x[:, 0]))                                                            [B, d]
 * </pre>
 * State_dict names as Hugging Face's ({@code embeddings.word_embeddings.weight},
 * {@code encoder.layer.3.attention.self.query.weight}, …), with or without the {@code bert.} prefix of the
 * pre-training checkpoints (whose {@code cls.*} heads are then ignored); the pooler is optional. Loading is strict:
 * every other problem comes in one {@link org.attn4j.models.parameters.StateDictException}.
 *
 * <p>A loaded model holds its parameters on the host; {@link #bind(Parameters)} gives the same model with every
 * parameter uploaded once to a backend, which is how it should run: a forward call then allocates only activations.
 * Padding positions ({@code attention_mask} 0) are hidden from every query as keys; their own outputs are computed
 * but meaningless, as in Hugging Face. Projections over {@link org.attn4j.api.WeightType#I8} weights (the int8 ONNX
 * encoders) quantize their input one text at a time over its real tokens only, as ONNX Runtime does on that text
 * alone, so that a text's result does not depend on the other texts of a batch (only, through attention's rounding
 * over more masked keys, a little on the batch's padded length).
 */
public final class BertModel implements Encoder {
    private final BertConfig config;
    private final Embedding words;
    private final Embedding positions;
    private final Embedding tokenTypes;
    private final LayerNorm embeddingNorm;
    private final List<BertLayer> layers;
    private final Linear pooler;

    private BertModel(BertConfig config, Embedding words, Embedding positions, Embedding tokenTypes,
                      LayerNorm embeddingNorm, List<BertLayer> layers, Linear pooler) {
        this.config = config;
        this.words = words;
        this.positions = positions;
        this.tokenTypes = tokenTypes;
        this.embeddingNorm = embeddingNorm;
        this.layers = List.copyOf(layers);
        this.pooler = pooler;
    }

    /**
     * @param params Hugging Face names, optionally under {@code bert.}
     * @param config the hyper-parameters
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or non-finite
     *     parameter
     */
    public static BertModel load(StateDict params, BertConfig config) {
        return params.base("BertModel", "bert.", "cls.").load("BertModel", p -> build(p, config));
    }

    static BertModel build(StateDict p, BertConfig c) {
        int d = c.hiddenSize();
        StateDict e = p.select("embeddings.");
        List<BertLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            layers.add(BertLayer.load(p.select("encoder.layer." + i + "."), c));
        }
        Linear pooler = BertLayer.pooler(p, d);
        return new BertModel(c,
                Embedding.load(e.select("word_embeddings."), c.vocabSize(), d),
                Embedding.load(e.select("position_embeddings."), c.maxPositionEmbeddings(), d),
                Embedding.load(e.select("token_type_embeddings."), c.typeVocabSize(), d),
                LayerNorm.load(e.select("LayerNorm."), d, c.layerNormEps(), true), layers, pooler);
    }

    /**
     * @param parameters where every parameter is uploaded, once
     * @return this model reading its parameters from {@code parameters}
     */
    @Override
    public BertModel bind(Parameters parameters) {
        return new BertModel(config, words.bind(parameters), positions.bind(parameters),
                tokenTypes.bind(parameters), embeddingNorm.bind(parameters), BertLayer.bind(layers, parameters),
                pooler == null ? null : pooler.bind(parameters));
    }

    /** @return the hyper-parameters */
    @Override
    public BertConfig config() {
        return config;
    }

    /** @return whether the checkpoint has a pooler */
    public boolean hasPooler() {
        return pooler != null;
    }

    /** @return the parameters under Hugging Face's names, without the {@code bert.} prefix */
    public StateDict stateDict() {
        StateDict sd = words.stateDict().prefixed("embeddings.word_embeddings.")
                .plus(positions.stateDict().prefixed("embeddings.position_embeddings."))
                .plus(tokenTypes.stateDict().prefixed("embeddings.token_type_embeddings."))
                .plus(embeddingNorm.stateDict().prefixed("embeddings.LayerNorm."));
        for (int i = 0; i < layers.size(); i++) {
            sd = sd.plus(layers.get(i).stateDict().prefixed("encoder.layer." + i + "."));
        }
        return pooler == null ? sd : sd.plus(pooler.stateDict().prefixed("pooler.dense."));
    }

    @Override
    public boolean takesInt8Projections() {
        return true;
    }

    /**
     * The last hidden state, Hugging Face's {@code last_hidden_state}.
     *
     * @param scope receives the result
     * @param input a padded batch; {@code L} at most {@code max_position_embeddings}, ids inside the tables
     * @param dtype the compute dtype (the bound dtype, for a bound model)
     * @return {@code [B, L, d]}
     */
    @Override
    public Tensor forward(Scope scope, BertInput input, DType dtype) {
        return run(scope, input, dtype, -1).output();
    }

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
    @Override
    public Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer) {
        BertLayer.checkLayer("BertModel", layer, layers.size());
        return run(scope, input, dtype, layer).weights();
    }

    private AttentionResult run(Scope scope, BertInput input, DType dtype, int weightsOf) {
        int batch = input.batch();
        int length = input.length();
        if (length > config.maxPositionEmbeddings()) {
            throw new IllegalArgumentException("BertModel.forward: input length " + length + " exceeds"
                    + " max_position_embeddings " + config.maxPositionEmbeddings() + "; truncate the input");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Shape ids = Shape.of(batch, length);
            int[] position = new int[length];
            for (int i = 0; i < length; i++) {
                position[i] = i;
            }
            Tensor x = ops.add(words.forward(work, input.inputIds(), ids, dtype),
                    tokenTypes.forward(work, input.tokenTypeIds(), ids, dtype));
            x = embeddingNorm.forward(work, ops.add(x, positions.forward(work, position, Shape.of(length), dtype)));
            return BertLayer.stack(scope, work, layers, x, input, weightsOf);
        }
    }

    /**
     * Hugging Face's {@code pooler_output}: {@code tanh(pooler.dense(hidden[:, 0]))}, computed as
     * {@code 1 - 2 / (exp(2y) + 1)} so that large {@code |y|} gives ±1. The pooler takes each text's first row as a
     * sequence of its own ({@code [B, 1, d]}), so that over an I8 weight each text is quantized alone.
     *
     * @param scope receives the result
     * @param hidden {@code [B, L, d]} from {@link #forward}
     * @return {@code [B, d]}
     * @throws IllegalStateException if the checkpoint has no pooler
     */
    public Tensor pool(Scope scope, Tensor hidden) {
        return BertLayer.pool("BertModel", pooler, scope, hidden);
    }
}
