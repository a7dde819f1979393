package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.GatedFeedForward;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.layers.RotarySelfAttention;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * NomicBERT ({@code modeling_hf_nomic_bert.py}'s {@code NomicBertModel}: nomic-embed-text-v1 and v1.5), BERT's
 * post-norm encoder with rotary positions, a fused projection and a gated MLP:
 * <pre>
 *   x = emb_ln(word_embeddings[input_ids] + token_type_embeddings[token_type_ids])          [B, L, d]
 *   for each encoder.layers.&lt;i&gt;:
 *     q, k, v = split(x·Wqkvᵀ), q and k turned by rotary over their first d/H · rotary_emb_fraction features
 *     x = norm1(x + out_proj(softmax(q·kᵀ/√(d/H), key padding)·v))
 *     x = norm2(x + fc2(fc11(x) ⊙ act(fc12(x))))                           act: SiLU (swiglu) or GELU (geglu)
 * </pre>
 * Names as the checkpoints store them: {@code embeddings.word_embeddings.weight} (rows padded to
 * {@code pad_vocab_size_multiple}), {@code embeddings.token_type_embeddings.weight}, {@code emb_ln.*},
 * {@code encoder.layers.<i>.attn.Wqkv.weight}, {@code attn.out_proj.weight}, {@code mlp.fc11.weight},
 * {@code mlp.fc12.weight}, {@code mlp.fc2.weight}, {@code norm1.*}, {@code norm2.*}; biases where the config's
 * {@code qkv_proj_bias}, {@code mlp_fc1_bias}, {@code mlp_fc2_bias} say.
 *
 * <p>nomic-embed-text expects a task prefix before each text ({@code "search_query: "}, {@code "search_document: "},
 * {@code "classification: "}, {@code "clustering: "}, the {@code prompts} of its
 * {@code config_sentence_transformers.json}); the caller writes it into the text.
 */
public final class NomicBertModel implements Encoder {
    private final NomicBertConfig config;
    private final PostNormStack stack;

    private NomicBertModel(NomicBertConfig config, PostNormStack stack) {
        this.config = config;
        this.stack = stack;
    }

    /**
     * @param params the checkpoint's names
     * @param config the hyper-parameters
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    public static NomicBertModel load(StateDict params, NomicBertConfig config) {
        return params.load("NomicBertModel", p -> build(p, config));
    }

    private static NomicBertModel build(StateDict p, NomicBertConfig c) {
        int d = c.hiddenSize();
        int inner = c.innerSize();
        List<PostNormLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            StateDict l = p.select("encoder.layers." + i + ".");
            RotarySelfAttention attention = new RotarySelfAttention(
                    Linear.load(l.select("attn.Wqkv."), d, 3 * d, c.qkvBias()),
                    Linear.load(l.select("attn.out_proj."), d, d, c.qkvBias()), c.numAttentionHeads(), c.rotary());
            GatedFeedForward mlp = GatedFeedForward.of(Linear.load(l.select("mlp.fc12."), d, inner, c.fc1Bias()),
                    Linear.load(l.select("mlp.fc11."), d, inner, c.fc1Bias()),
                    Linear.load(l.select("mlp.fc2."), inner, d, c.fc2Bias()), c.activation());
            layers.add(new PostNormLayer(attention, LayerNorm.load(l.select("norm1."), d, c.layerNormEps(), true),
                    mlp, LayerNorm.load(l.select("norm2."), d, c.layerNormEps(), true)));
        }
        return new NomicBertModel(c, new PostNormStack("NomicBertModel", "n_positions", c.maxPositions(),
                Embedding.load(p.select("embeddings.word_embeddings."), c.vocabSize(), d),
                c.typeVocabSize() > 0
                        ? Embedding.load(p.select("embeddings.token_type_embeddings."), c.typeVocabSize(), d) : null,
                LayerNorm.load(p.select("emb_ln."), d, c.layerNormEps(), true), layers));
    }

    @Override
    public NomicBertModel bind(Parameters parameters) {
        return new NomicBertModel(config, stack.bind(parameters));
    }

    /** @return the hyper-parameters */
    public NomicBertConfig config() {
        return config;
    }

    public StateDict stateDict() {
        StateDict sd = stack.embeddings("embeddings.word_embeddings.", "embeddings.token_type_embeddings.",
                "emb_ln.");
        List<PostNormLayer> layers = stack.layers();
        for (int i = 0; i < layers.size(); i++) {
            PostNormLayer l = layers.get(i);
            String p = "encoder.layers." + i + ".";
            sd = sd.plus(l.attention().qkv().stateDict().prefixed(p + "attn.Wqkv."))
                    .plus(l.attention().out().stateDict().prefixed(p + "attn.out_proj."))
                    .plus(l.mlp().gate().prefixed(p + "mlp.fc12."))
                    .plus(l.mlp().up().prefixed(p + "mlp.fc11."))
                    .plus(l.mlp().down().stateDict().prefixed(p + "mlp.fc2."))
                    .plus(l.attentionNorm().stateDict().prefixed(p + "norm1."))
                    .plus(l.mlpNorm().stateDict().prefixed(p + "norm2."));
        }
        return sd;
    }

    @Override
    public Tensor forward(Scope scope, BertInput input, DType dtype) {
        return stack.forward(scope, input, dtype);
    }

    @Override
    public Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer) {
        return stack.attentionWeights(scope, input, dtype, layer);
    }
}
