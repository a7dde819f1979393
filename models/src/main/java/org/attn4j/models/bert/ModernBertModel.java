package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
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
 * ModernBERT (transformers' {@code ModernBertModel}), a pre-norm encoder with rotary positions, a GeGLU and
 * alternating global and sliding-window attention:
 * <pre>
 *   x = embeddings.norm(embeddings.tok_embeddings[input_ids])                                     [B, L, d]
 *   for each layers.&lt;i&gt;:                                (attn_norm is the identity in layer 0)
 *     q, k, v = split(attn_norm(x)·Wqkvᵀ), q and k turned by rotary with base θ_i
 *     x = x + attn.Wo(softmax(q·kᵀ/√(d/H), mask_i)·v)
 *     [a, g] = mlp_norm(x)·Wiᵀ;  x = x + mlp.Wo(act(a) ⊙ g)
 *   x = final_norm(x)
 * </pre>
 * A global layer ({@link ModernBertConfig#layerTypes()}: every {@code global_attn_every_n_layers}-th from layer 0)
 * turns with {@code θ_i = global_rope_theta} under the key padding mask; a local one with
 * {@code θ_i = local_rope_theta}, its mask also hiding the keys farther than {@code local_attention / 2} from the
 * query. Names as {@code ModernBertModel} stores them
 * ({@code embeddings.*}, {@code layers.<i>.attn.Wqkv.weight}, {@code layers.<i>.mlp.Wi.weight}, {@code final_norm.*}),
 * or under {@code model.} beside a masked-language head ({@code head.*}, {@code decoder.*}, then ignored); biases
 * where {@code norm_bias}, {@code attention_bias} and {@code mlp_bias} say.
 */
public final class ModernBertModel implements Encoder {
    private final ModernBertConfig config;
    private final Embedding words;
    private final LayerNorm embeddingNorm;
    private final List<LayerNorm> attentionNorms;
    private final List<RotarySelfAttention> attentions;
    private final List<LayerNorm> mlpNorms;
    private final List<GatedFeedForward> mlps;
    private final LayerNorm finalNorm;

    private ModernBertModel(ModernBertConfig config, Embedding words, LayerNorm embeddingNorm,
                            List<LayerNorm> attentionNorms, List<RotarySelfAttention> attentions,
                            List<LayerNorm> mlpNorms, List<GatedFeedForward> mlps, LayerNorm finalNorm) {
        this.config = config;
        this.words = words;
        this.embeddingNorm = embeddingNorm;
        this.attentionNorms = Collections.unmodifiableList(new ArrayList<>(attentionNorms));
        this.attentions = List.copyOf(attentions);
        this.mlpNorms = List.copyOf(mlpNorms);
        this.mlps = List.copyOf(mlps);
        this.finalNorm = finalNorm;
    }

    /**
     * @param params {@code ModernBertModel}'s names, or a masked-language checkpoint's ({@code model.*} with
     *     {@code head.*} and {@code decoder.*})
     * @param config the hyper-parameters
     * @return the model on the host
     * @throws org.attn4j.models.parameters.StateDictException listing every missing, unexpected, mis-shaped or
     *     non-finite parameter
     */
    public static ModernBertModel load(StateDict params, ModernBertConfig config) {
        return params.base("ModernBertModel", "model.", "head.", "decoder.")
                .load("ModernBertModel", p -> build(p, config));
    }

    private static LayerNorm norm(StateDict p, ModernBertConfig c) {
        Shape s = Shape.of(c.hiddenSize());
        HostTensor bias = c.normBias() ? p.get("bias", s) : null;
        return new LayerNorm(c.hiddenSize(), c.normEps(), p.get("weight", s), bias);
    }

    private static ModernBertModel build(StateDict p, ModernBertConfig c) {
        int d = c.hiddenSize();
        int inner = c.intermediateSize();
        List<LayerNorm> attentionNorms = new ArrayList<>();
        List<RotarySelfAttention> attentions = new ArrayList<>();
        List<LayerNorm> mlpNorms = new ArrayList<>();
        List<GatedFeedForward> mlps = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            StateDict l = p.select("layers." + i + ".");
            attentionNorms.add(i == 0 ? null : norm(l.select("attn_norm."), c));
            attentions.add(new RotarySelfAttention(Linear.load(l.select("attn.Wqkv."), d, 3 * d, c.attentionBias()),
                    Linear.load(l.select("attn.Wo."), d, d, c.attentionBias()), c.numAttentionHeads(), c.rotary(i)));
            mlpNorms.add(norm(l.select("mlp_norm."), c));
            mlps.add(new GatedFeedForward(Linear.load(l.select("mlp.Wi."), d, 2 * inner, c.mlpBias()),
                    Linear.load(l.select("mlp.Wo."), inner, d, c.mlpBias()), c.activation()));
        }
        return new ModernBertModel(c, Embedding.load(p.select("embeddings.tok_embeddings."), c.vocabSize(), d),
                norm(p.select("embeddings.norm."), c), attentionNorms, attentions, mlpNorms, mlps,
                norm(p.select("final_norm."), c));
    }

    @Override
    public ModernBertModel bind(Parameters parameters) {
        List<LayerNorm> attentionNormsBound = new ArrayList<>();
        List<RotarySelfAttention> attentionsBound = new ArrayList<>();
        List<LayerNorm> mlpNormsBound = new ArrayList<>();
        List<GatedFeedForward> mlpsBound = new ArrayList<>();
        for (int i = 0; i < attentions.size(); i++) {
            attentionNormsBound.add(attentionNorms.get(i) == null ? null : attentionNorms.get(i).bind(parameters));
            attentionsBound.add(attentions.get(i).bind(parameters));
            mlpNormsBound.add(mlpNorms.get(i).bind(parameters));
            mlpsBound.add(mlps.get(i).bind(parameters));
        }
        return new ModernBertModel(config, words.bind(parameters), embeddingNorm.bind(parameters),
                attentionNormsBound, attentionsBound, mlpNormsBound, mlpsBound, finalNorm.bind(parameters));
    }

    /** @return the hyper-parameters */
    public ModernBertConfig config() {
        return config;
    }

    /** @return the parameters under {@code ModernBertModel}'s names (without {@code model.}) */
    public StateDict stateDict() {
        StateDict sd = words.stateDict().prefixed("embeddings.tok_embeddings.")
                .plus(embeddingNorm.stateDict().prefixed("embeddings.norm."))
                .plus(finalNorm.stateDict().prefixed("final_norm."));
        for (int i = 0; i < attentions.size(); i++) {
            String p = "layers." + i + ".";
            if (attentionNorms.get(i) != null) {
                sd = sd.plus(attentionNorms.get(i).stateDict().prefixed(p + "attn_norm."));
            }
            sd = sd.plus(attentions.get(i).qkv().stateDict().prefixed(p + "attn.Wqkv."))
                    .plus(attentions.get(i).out().stateDict().prefixed(p + "attn.Wo."))
                    .plus(mlpNorms.get(i).stateDict().prefixed(p + "mlp_norm."))
                    .plus(mlps.get(i).gateUp().stateDict().prefixed(p + "mlp.Wi."))
                    .plus(mlps.get(i).down().stateDict().prefixed(p + "mlp.Wo."));
        }
        return sd;
    }

    @Override
    public Tensor forward(Scope scope, BertInput input, DType dtype) {
        return run(scope, input, dtype, -1).output();
    }

    @Override
    public Tensor attentionWeights(Scope scope, BertInput input, DType dtype, int layer) {
        if (layer < 0 || layer >= attentions.size()) {
            throw new IllegalArgumentException("ModernBertModel.attentionWeights: argument layer is " + layer
                    + "; the model has layers 0 to " + (attentions.size() - 1));
        }
        return run(scope, input, dtype, layer).weights();
    }

    private AttentionResult run(Scope scope, BertInput input, DType dtype, int weightsOf) {
        if (input.length() > config.maxPositionEmbeddings()) {
            throw new IllegalArgumentException("ModernBertModel.forward: input length " + input.length()
                    + " exceeds max_position_embeddings " + config.maxPositionEmbeddings() + "; truncate the input");
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor x = embeddingNorm.forward(work, words.forward(work, input.inputIds(),
                    Shape.of(input.batch(), input.length()), dtype));
            Mask global = input.keyPadding();
            Mask local = slidingWindow(input);
            for (int i = 0; i < attentions.size(); i++) {
                LayerNorm attentionNorm = attentionNorms.get(i);
                Tensor normed = attentionNorm == null ? x : attentionNorm.forward(work, x);
                AttentionResult a = attentions.get(i).forward(work, normed, config.isLocal(i) ? local : global, x,
                        i == weightsOf);
                if (i == weightsOf) {
                    return new AttentionResult(null, scope.adopt(a.weights()));
                }
                x = a.output();
                x = mlps.get(i).forward(work, mlpNorms.get(i).forward(work, x), x);
            }
            return new AttentionResult(scope.adopt(finalNorm.forward(work, x)), null);
        }
    }

    /** {@code [B, 1, L, L]}: key {@code j} is real and {@code |i − j| <= local_attention / 2}. */
    private Mask slidingWindow(BertInput input) {
        int batch = input.batch();
        int length = input.length();
        int half = config.localAttention() / 2;
        int[] real = input.attentionMask();
        boolean[] allowed = new boolean[batch * length * length];
        for (int b = 0; b < batch; b++) {
            for (int i = 0; i < length; i++) {
                for (int j = Math.max(0, i - half); j <= Math.min(length - 1, i + half); j++) {
                    allowed[(b * length + i) * length + j] = real[b * length + j] == 1;
                }
            }
        }
        return Mask.of(Shape.of(batch, 1, length, length), allowed);
    }
}
