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
 * Hugging Face's {@code MPNetModel} (all-mpnet-base-v2): RoBERTa's positions, no token types, and one relative
 * position bias computed once per forward and added to the logits of every layer.
 * <pre>
 *   pos[b, i] = pad_token_id + the number of real tokens of row b up to i (pad_token_id on padding), as RoBERTa
 *   x = embeddings.LayerNorm(word[input_ids] + position[pos])                                     [B, L, d]
 *   bucket(r) for r = j − i, n = −r:   T5's bidirectional buckets with 32 buckets and max distance 128:
 *       16 if n &lt; 0 else 0,  plus  |n| if |n| &lt; 8
 *                             else min(15, 8 + ⌊log(|n| / 8) / log(16) · 8⌋)   (in float32, as transformers)
 *   bias[h, i, j] = encoder.relative_attention_bias.weight[bucket(j − i), h]                       [1, H, L, L]
 *   x = encoder.layer.&lt;k&gt;(x, key padding, bias)   for k = 0 .. N-1  (BERT's post-norm layer, bias on the logits)
 *   pooled = tanh(pooler.dense(x[:, 0]))                                                           [B, d]
 * </pre>
 * State_dict names {@code embeddings.word_embeddings.weight}, {@code embeddings.position_embeddings.weight},
 * {@code embeddings.LayerNorm.*}, {@code encoder.relative_attention_bias.weight [32, H]},
 * {@code encoder.layer.<k>.attention.attn.{q,k,v,o}.*}, {@code encoder.layer.<k>.attention.LayerNorm.*},
 * {@code encoder.layer.<k>.intermediate.dense.*}, {@code encoder.layer.<k>.output.dense.*},
 * {@code encoder.layer.<k>.output.LayerNorm.*}, {@code pooler.dense.*} (optional), with or without the
 * {@code mpnet.} prefix (a masked language model's {@code lm_head.*} is then ignored). Loading is strict.
 */
public final class MpnetModel implements Encoder {
    private static final int MAX_DISTANCE = 128;

    private final MpnetConfig config;
    private final Embedding words;
    private final Embedding positions;
    private final LayerNorm embeddingNorm;
    private final Embedding relativeBias;
    private final List<BertLayer> layers;
    private final Linear pooler;

    private MpnetModel(MpnetConfig config, Embedding words, Embedding positions, LayerNorm embeddingNorm,
                       Embedding relativeBias, List<BertLayer> layers, Linear pooler) {
        this.config = config;
        this.words = words;
        this.positions = positions;
        this.embeddingNorm = embeddingNorm;
        this.relativeBias = relativeBias;
        this.layers = List.copyOf(layers);
        this.pooler = pooler;
    }

    /**
     * @param params Hugging Face names, optionally under {@code mpnet.}
     * @param config the hyper-parameters
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    public static MpnetModel load(StateDict params, MpnetConfig config) {
        return params.base("MPNetModel", "mpnet.", "lm_head.").load("MPNetModel", p -> build(p, config));
    }

    private static MpnetModel build(StateDict p, MpnetConfig c) {
        BertConfig b = c.layers();
        int d = c.hiddenSize();
        StateDict e = p.select("embeddings.");
        List<BertLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            layers.add(BertLayer.loadMpnet(p.select("encoder.layer." + i + "."), b));
        }
        Linear pooler = BertLayer.pooler(p, d);
        return new MpnetModel(c,
                Embedding.load(e.select("word_embeddings."), c.vocabSize(), d),
                Embedding.load(e.select("position_embeddings."), c.maxPositionEmbeddings(), d),
                LayerNorm.load(e.select("LayerNorm."), d, c.layerNormEps(), true),
                Embedding.load(p.select("encoder.relative_attention_bias."), c.relativeAttentionNumBuckets(),
                        c.numAttentionHeads()),
                layers, pooler);
    }

    @Override
    public MpnetModel bind(Parameters parameters) {
        return new MpnetModel(config, words.bind(parameters), positions.bind(parameters),
                embeddingNorm.bind(parameters), relativeBias.bind(parameters), BertLayer.bind(layers, parameters),
                pooler == null ? null : pooler.bind(parameters));
    }

    @Override
    public MpnetConfig config() {
        return config;
    }

    /**
     * transformers' {@code MPNetEncoder.relative_position_bucket} with 32 buckets and max distance 128, its
     * logarithm in float32 as there.
     *
     * @param relative {@code j − i}: key position less query position
     * @return the bucket, {@code 0 .. 31}
     */
    static int bucket(int relative) {
        int half = MpnetConfig.BUCKETS / 2;
        int n = -relative;
        int ret = n < 0 ? half : 0;
        n = Math.abs(n);
        int exact = half / 2;
        if (n < exact) {
            return ret + n;
        }
        float scaled = (float) Math.log((float) n / exact) / (float) Math.log((double) MAX_DISTANCE / exact)
                * (half - exact);
        return ret + Math.min(exact + (int) scaled, half - 1);
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
        BertLayer.checkLayer("MpnetModel", layer, layers.size());
        return run(scope, input, dtype, layer).weights();
    }

    private AttentionResult run(Scope scope, BertInput input, DType dtype, int weightsOf) {
        int length = input.length();
        if (length > config.maxLength()) {
            throw new IllegalArgumentException("MpnetModel.forward: input length " + length + " exceeds "
                    + config.maxLength() + " (max_position_embeddings " + config.maxPositionEmbeddings()
                    + " less pad_token_id " + config.padTokenId() + " + 1); truncate the input");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Shape ids = Shape.of(input.batch(), length);
            Tensor x = ops.add(words.forward(work, input.inputIds(), ids, dtype), positions.forward(work,
                    XlmRobertaModel.positionIds(input, config.padTokenId()), ids, dtype));
            x = embeddingNorm.forward(work, x);
            int[] buckets = new int[length * length];
            for (int i = 0; i < length; i++) {
                for (int j = 0; j < length; j++) {
                    buckets[i * length + j] = bucket(j - i);
                }
            }
            Tensor bias = ops.permute(relativeBias.forward(work, buckets, Shape.of(length, length), dtype), 2, 0, 1);
            bias = ops.reshape(bias, 1, config.numAttentionHeads(), length, length);
            return BertLayer.stack(scope, work, layers, x, input, bias, weightsOf);
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
        return BertLayer.pool("MpnetModel", pooler, scope, hidden);
    }
}
