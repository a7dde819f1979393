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
 * Hugging Face's {@code XLMRobertaModel}: BERT's layers with RoBERTa's positions and a single token type.
 * <pre>
 *   c[b, i]  = number of real tokens (attention_mask 1, id ≠ pad_token_id) in row b up to and including i
 *   pos[b,i] = pad_token_id + c[b, i] on real tokens, pad_token_id elsewhere  (create_position_ids_from_input_ids)
 *   x = embeddings.LayerNorm(word[input_ids] + position[pos] + token_type[0])                       [B, L, d]
 *   x = encoder.layer.&lt;i&gt;(x, key padding from attention_mask)   for i = 0 .. N-1  (BERT's post-norm layer)
 *   pooled = tanh(pooler.dense(x[:, 0]))                                                             [B, d]
 * </pre>
 * Token type ids are ignored: XLM-R's tokenizers return none and {@code transformers} then uses type 0 everywhere,
 * even for pairs. State_dict names as BERT's ({@code embeddings.word_embeddings.weight},
 * {@code encoder.layer.3.attention.self.query.weight}, …), with or without the {@code roberta.} prefix (a masked
 * language model's {@code lm_head.*} is then ignored); the pooler is optional. Loading is strict.
 */
public final class XlmRobertaModel implements Encoder {
    private final XlmRobertaConfig config;
    private final Embedding words;
    private final Embedding positions;
    private final Embedding tokenTypes;
    private final LayerNorm embeddingNorm;
    private final List<BertLayer> layers;
    private final Linear pooler;

    private XlmRobertaModel(XlmRobertaConfig config, Embedding words, Embedding positions, Embedding tokenTypes,
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
     * @param params Hugging Face names, optionally under {@code roberta.}
     * @param config the hyper-parameters
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    public static XlmRobertaModel load(StateDict params, XlmRobertaConfig config) {
        return params.base("XLMRobertaModel", "roberta.", "lm_head.")
                .load("XLMRobertaModel", p -> build(p, config));
    }

    static XlmRobertaModel build(StateDict p, XlmRobertaConfig c) {
        BertConfig b = c.encoder();
        int d = b.hiddenSize();
        StateDict e = p.select("embeddings.");
        List<BertLayer> layers = new ArrayList<>();
        for (int i = 0; i < b.numHiddenLayers(); i++) {
            layers.add(BertLayer.load(p.select("encoder.layer." + i + "."), b));
        }
        Linear pooler = BertLayer.pooler(p, d);
        return new XlmRobertaModel(c,
                Embedding.load(e.select("word_embeddings."), b.vocabSize(), d),
                Embedding.load(e.select("position_embeddings."), b.maxPositionEmbeddings(), d),
                Embedding.load(e.select("token_type_embeddings."), b.typeVocabSize(), d),
                LayerNorm.load(e.select("LayerNorm."), d, b.layerNormEps(), true), layers, pooler);
    }

    @Override
    public XlmRobertaModel bind(Parameters parameters) {
        return new XlmRobertaModel(config, words.bind(parameters), positions.bind(parameters),
                tokenTypes.bind(parameters), embeddingNorm.bind(parameters), BertLayer.bind(layers, parameters),
                pooler == null ? null : pooler.bind(parameters));
    }

    @Override
    public XlmRobertaConfig config() {
        return config;
    }

    /** @return whether the checkpoint has a pooler */
    public boolean hasPooler() {
        return pooler != null;
    }

    /**
     * RoBERTa's position ids, {@code create_position_ids_from_input_ids} with padding where the mask is 0.
     *
     * @param input a padded batch
     * @param padTokenId {@code pad_token_id}
     * @return {@code [B, L]} row-major
     */
    static int[] positionIds(BertInput input, int padTokenId) {
        int[] ids = input.inputIds();
        int[] mask = input.attentionMask();
        int[] out = new int[ids.length];
        for (int b = 0; b < input.batch(); b++) {
            int count = 0;
            for (int i = b * input.length(); i < (b + 1) * input.length(); i++) {
                boolean real = mask[i] == 1 && ids[i] != padTokenId;
                count += real ? 1 : 0;
                out[i] = real ? padTokenId + count : padTokenId;
            }
        }
        return out;
    }

    @Override
    public boolean takesInt8Projections() {
        return true;
    }

    @Override
    public Tensor forward(Scope scope, BertInput input, DType dtype) {
        return run(scope, input, dtype, -1).output();
    }

    @Override
    public Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer) {
        BertLayer.checkLayer("XlmRobertaModel", layer, layers.size());
        return run(scope, input, dtype, layer).weights();
    }

    private AttentionResult run(Scope scope, BertInput input, DType dtype, int weightsOf) {
        int length = input.length();
        if (length > config.maxLength()) {
            throw new IllegalArgumentException("XlmRobertaModel.forward: input length " + length + " exceeds "
                    + config.maxLength() + " (max_position_embeddings " + config.encoder().maxPositionEmbeddings()
                    + " less pad_token_id " + config.padTokenId() + " + 1); truncate the input");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Shape ids = Shape.of(input.batch(), length);
            Tensor x = ops.add(words.forward(work, input.inputIds(), ids, dtype),
                    positions.forward(work, positionIds(input, config.padTokenId()), ids, dtype));
            x = embeddingNorm.forward(work, ops.add(x, tokenTypes.forward(work, new int[] {0}, Shape.of(1), dtype)));
            return BertLayer.stack(scope, work, layers, x, input, weightsOf);
        }
    }

    /**
     * Hugging Face's {@code pooler_output}: {@code tanh(pooler.dense(hidden[:, 0]))}.
     *
     * @param scope receives the result
     * @param hidden {@code [B, L, d]} from {@link #forward}
     * @return {@code [B, d]}
     * @throws IllegalStateException if the checkpoint has no pooler
     */
    public Tensor pool(Scope scope, Tensor hidden) {
        return BertLayer.pool("XlmRobertaModel", pooler, scope, hidden);
    }
}
