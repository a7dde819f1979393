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
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * GTE (Alibaba-NLP's {@code NewModel}, {@code model_type} {@code new}: gte-base-en-v1.5, gte-multilingual-base),
 * BERT's post-norm encoder with rotary positions (NTK-scaled where the config says) and a GLU:
 * <pre>
 *   x = embeddings.LayerNorm(word_embeddings[input_ids] + token_type_embeddings[token_type_ids])     [B, L, d]
 *   for each encoder.layer.&lt;i&gt;:
 *     q, k, v = split(x·qkv_projᵀ + b), q and k turned by rotary
 *     x = attn_ln(x + o_proj(softmax(q·kᵀ/√(d/H), key padding)·v))
 *     [u, g] = x·up_gate_projᵀ;  x = mlp_ln(x + down_proj(u ⊙ act(g)))
 * </pre>
 * Its "unpadded" attention runs each text alone, which is the padded computation with the padding masked: the same
 * numbers for the real tokens. Names as the checkpoints store them: {@code embeddings.word_embeddings.weight},
 * {@code embeddings.token_type_embeddings.weight} (when {@code type_vocab_size > 0}), {@code embeddings.LayerNorm.*},
 * {@code encoder.layer.<i>.attention.qkv_proj.*}, {@code attention.o_proj.*}, {@code mlp.up_gate_proj.weight},
 * {@code mlp.down_proj.*}, {@code attn_ln.*}, {@code mlp_ln.*}.
 */
public final class GteModel implements Encoder {
    private final GteConfig config;
    private final PostNormStack stack;

    private GteModel(GteConfig config, PostNormStack stack) {
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
    public static GteModel load(StateDict params, GteConfig config) {
        return params.load("GteModel", p -> build(p, config));
    }

    private static GteModel build(StateDict p, GteConfig c) {
        int d = c.hiddenSize();
        int inner = c.intermediateSize();
        double eps = c.layerNormEps();
        List<PostNormLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            StateDict l = p.select("encoder.layer." + i + ".");
            RotarySelfAttention attention = new RotarySelfAttention(
                    Linear.load(l.select("attention.qkv_proj."), d, 3 * d, true),
                    Linear.load(l.select("attention.o_proj."), d, d, true), c.numAttentionHeads(), c.rotary());
            Linear upGate = Linear.load(l.select("mlp.up_gate_proj."), d, 2 * inner, false);
            StateDict halves = upGate.stateDict();
            GatedFeedForward mlp = GatedFeedForward.of(
                    new Linear(halves.get("weight").rows(inner, 2 * inner), null),
                    new Linear(halves.get("weight").rows(0, inner), null),
                    Linear.load(l.select("mlp.down_proj."), inner, d, true), c.activation());
            layers.add(new PostNormLayer(attention, LayerNorm.load(l.select("attn_ln."), d, eps, true), mlp,
                    LayerNorm.load(l.select("mlp_ln."), d, eps, true)));
        }
        return new GteModel(c, new PostNormStack("GteModel", "max_position_embeddings", c.maxPositionEmbeddings(),
                Embedding.load(p.select("embeddings.word_embeddings."), c.vocabSize(), d),
                c.typeVocabSize() > 0
                        ? Embedding.load(p.select("embeddings.token_type_embeddings."), c.typeVocabSize(), d) : null,
                LayerNorm.load(p.select("embeddings.LayerNorm."), d, eps, true), layers));
    }

    @Override
    public GteModel bind(Parameters parameters) {
        return new GteModel(config, stack.bind(parameters));
    }

    /** @return the hyper-parameters */
    public GteConfig config() {
        return config;
    }

    public StateDict stateDict() {
        StateDict sd = stack.embeddings("embeddings.word_embeddings.", "embeddings.token_type_embeddings.",
                "embeddings.LayerNorm.");
        List<PostNormLayer> layers = stack.layers();
        for (int i = 0; i < layers.size(); i++) {
            PostNormLayer l = layers.get(i);
            String p = "encoder.layer." + i + ".";
            sd = sd.plus(l.attention().qkv().stateDict().prefixed(p + "attention.qkv_proj."))
                    .plus(l.attention().out().stateDict().prefixed(p + "attention.o_proj."))
                    .with(p + "mlp.up_gate_proj.weight", HostTensor.concatRows(
                            List.of(l.mlp().up().get("weight"), l.mlp().gate().get("weight"))))
                    .plus(l.mlp().down().stateDict().prefixed(p + "mlp.down_proj."))
                    .plus(l.attentionNorm().stateDict().prefixed(p + "attn_ln."))
                    .plus(l.mlpNorm().stateDict().prefixed(p + "mlp_ln."));
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
