package org.attn4j.models.bert;

import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Shape;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * One post-norm BERT layer ({@code encoder.layer.<i>.}; also XLM-RoBERTa's, and MPNet's under its own names with
 * a relative position bias added to the logits):
 * <pre>
 *   q, k, v = x·W_qᵀ + b_q, x·W_kᵀ + b_k, x·W_vᵀ + b_v        (one fused [3d, d] projection)
 *   a = attention.output.LayerNorm(x + attention.output.dense(attention(q, k, v, key padding [, bias])))
 *   y = output.LayerNorm(a + output.dense(act(intermediate.dense(a))))
 * </pre>
 * as five fused ops: the QKV projection, attention straight from it ({@code packedAttention}), each dense with its
 * residual add and norm ({@code layerNorm(x, residual, …)}), and the intermediate dense with its activation. A
 * projection over an {@link WeightType#I8} weight quantizes its input per text ({@code Ops.linear}); in a padded
 * batch the padding rows of its input are zeroed first, so that a text's range is its real tokens' alone and does
 * not depend on the other texts of the batch.
 */
final class BertLayer {
    private final Linear qkv;
    private final Linear attentionOut;
    private final LayerNorm attentionNorm;
    private final Linear intermediate;
    private final Linear output;
    private final LayerNorm outputNorm;
    private final BertConfig config;

    private BertLayer(Linear qkv, Linear attentionOut, LayerNorm attentionNorm, Linear intermediate, Linear output,
                      LayerNorm outputNorm, BertConfig config) {
        this.qkv = qkv;
        this.attentionOut = attentionOut;
        this.attentionNorm = attentionNorm;
        this.intermediate = intermediate;
        this.output = output;
        this.outputNorm = outputNorm;
        this.config = config;
    }

    static BertLayer load(StateDict p, BertConfig c) {
        int d = c.hiddenSize();
        Linear q = Linear.load(p.select("attention.self.query."), d, d, true);
        Linear k = Linear.load(p.select("attention.self.key."), d, d, true);
        Linear v = Linear.load(p.select("attention.self.value."), d, d, true);
        Linear fused = new Linear(
                HostTensor.concatRows(List.of(weight(q), weight(k), weight(v))),
                HostTensor.concatRows(List.of(bias(q), bias(k), bias(v))));
        return new BertLayer(fused,
                Linear.load(p.select("attention.output.dense."), d, d, true),
                LayerNorm.load(p.select("attention.output.LayerNorm."), d, c.layerNormEps(), true),
                Linear.load(p.select("intermediate.dense."), d, c.intermediateSize(), true),
                Linear.load(p.select("output.dense."), c.intermediateSize(), d, true),
                LayerNorm.load(p.select("output.LayerNorm."), d, c.layerNormEps(), true), c);
    }

    /**
     * MPNet's layer ({@code encoder.layer.<i>.} of an {@code MPNetModel}): the same computation under its own names,
     * {@code attention.attn.q/k/v/o}, {@code attention.LayerNorm}, {@code intermediate.dense}, {@code output.dense},
     * {@code output.LayerNorm}.
     */
    static BertLayer loadMpnet(StateDict p, BertConfig c) {
        int d = c.hiddenSize();
        Linear q = Linear.load(p.select("attention.attn.q."), d, d, true);
        Linear k = Linear.load(p.select("attention.attn.k."), d, d, true);
        Linear v = Linear.load(p.select("attention.attn.v."), d, d, true);
        Linear fused = new Linear(
                HostTensor.concatRows(List.of(weight(q), weight(k), weight(v))),
                HostTensor.concatRows(List.of(bias(q), bias(k), bias(v))));
        return new BertLayer(fused,
                Linear.load(p.select("attention.attn.o."), d, d, true),
                LayerNorm.load(p.select("attention.LayerNorm."), d, c.layerNormEps(), true),
                Linear.load(p.select("intermediate.dense."), d, c.intermediateSize(), true),
                Linear.load(p.select("output.dense."), c.intermediateSize(), d, true),
                LayerNorm.load(p.select("output.LayerNorm."), d, c.layerNormEps(), true), c);
    }

    private static HostTensor weight(Linear l) {
        return l.stateDict().get("weight");
    }

    private static HostTensor bias(Linear l) {
        return l.stateDict().get("bias");
    }

    BertLayer bind(Parameters p) {
        return new BertLayer(qkv.bind(p), attentionOut.bind(p), attentionNorm.bind(p), intermediate.bind(p),
                output.bind(p), outputNorm.bind(p), config);
    }

    StateDict stateDict() {
        int d = config.hiddenSize();
        HostTensor w = weight(qkv);
        HostTensor b = bias(qkv);
        StateDict sd = StateDict.empty();
        String[] names = {"query", "key", "value"};
        for (int i = 0; i < 3; i++) {
            sd = sd.with("attention.self." + names[i] + ".weight", w.rows(i * d, (i + 1) * d))
                    .with("attention.self." + names[i] + ".bias", b.rows(i * d, (i + 1) * d));
        }
        return sd.plus(attentionOut.stateDict().prefixed("attention.output.dense."))
                .plus(attentionNorm.stateDict().prefixed("attention.output.LayerNorm."))
                .plus(intermediate.stateDict().prefixed("intermediate.dense."))
                .plus(output.stateDict().prefixed("output.dense."))
                .plus(outputNorm.stateDict().prefixed("output.LayerNorm."));
    }

    /** @return whether one of its projections quantizes its input (an {@link WeightType#I8} weight) */
    boolean quantizesInputs() {
        return Stream.of(qkv, attentionOut, intermediate, output).anyMatch(l -> l.weightType() == WeightType.I8);
    }

    /**
     * @param scope receives the result
     * @param x {@code [B, L, d]}
     * @param keyPadding {@code [B, 1, 1, L]}, true on real tokens, or null when nothing is padded
     * @param realTokens {@code [B, L, 1]}, 1 on real tokens and 0 on padding, or null when nothing is padded
     * @return {@code [B, L, d]}
     */
    Tensor forward(Scope scope, Tensor x, Mask keyPadding, Tensor realTokens) {
        return forward(scope, x, keyPadding, null, realTokens, false).output();
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]}
     * @param keyPadding {@code [B, 1, 1, L]}, true on real tokens, or null when nothing is padded
     * @param bias added to the scaled logits, {@code [1, H, L, L]} (MPNet's relative position bias), or null
     * @param realTokens {@code [B, L, 1]}, 1 on real tokens and 0 on padding, or null when nothing is padded
     * @param needWeights whether to return the attention weights {@code [B, H, L, L]} too
     * @return the layer's output {@code [B, L, d]} and, if asked, its attention weights
     */
    AttentionResult forward(Scope scope, Tensor x, Mask keyPadding, Tensor bias, Tensor realTokens,
                            boolean needWeights) {
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            int h = config.numAttentionHeads();
            AttentionResult attended = ops.packedAttention(qkv.forward(work, input(ops, qkv, x, realTokens)), h, h,
                    AttentionOptions.defaults().withMask(keyPadding).withAdditiveMask(bias).withWeights(needWeights));
            Tensor a = attentionNorm.forward(work,
                    attentionOut.forward(work, input(ops, attentionOut, attended.output(), realTokens)), x);
            Tensor hidden = intermediate.forward(work, input(ops, intermediate, a, realTokens),
                    Epilogue.none().withActivation(config.hiddenAct()));
            Tensor y = scope.adopt(outputNorm.forward(work,
                    output.forward(work, input(ops, output, hidden, realTokens)), a));
            return new AttentionResult(y, needWeights ? scope.adopt(attended.weights()) : null);
        }
    }

    /**
     * Runs layers one after another, as every encoder of this package does after its embeddings.
     *
     * @param scope receives the result
     * @param work the caller's work scope
     * @param layers the layers, in order
     * @param x the embeddings {@code [B, L, d]}
     * @param input the padded batch: its padding is hidden from attention and, for layers that quantize their
     *     inputs, zeroed in each projection's input
     * @param weightsOf the layer whose attention weights to return instead of the output, or -1
     * @return the last layer's output, or the attention weights of layer {@code weightsOf}
     */
    static AttentionResult stack(Scope scope, Scope work, List<BertLayer> layers, Tensor x, BertInput input,
                                 int weightsOf) {
        return stack(scope, work, layers, x, input, null, weightsOf);
    }

    /**
     * As {@link #stack(Scope, Scope, List, Tensor, BertInput, int)}, with one additive bias shared by every layer.
     *
     * @param bias added to every layer's scaled logits, {@code [1, H, L, L]}, or null
     */
    static AttentionResult stack(Scope scope, Scope work, List<BertLayer> layers, Tensor x, BertInput input,
                                 Tensor bias, int weightsOf) {
        Mask keyPadding = input.keyPadding();
        Tensor realTokens = null;
        if (keyPadding != null && layers.stream().anyMatch(BertLayer::quantizesInputs)) {
            int[] m = input.attentionMask();
            double[] real = new double[m.length];
            for (int i = 0; i < m.length; i++) {
                real[i] = m[i] == 1 ? 1 : 0;
            }
            realTokens = work.tensor(real, Shape.of(input.batch(), input.length(), 1), x.dtype());
        }
        for (int i = 0; i < layers.size(); i++) {
            AttentionResult r = layers.get(i).forward(work, x, keyPadding, bias, realTokens, i == weightsOf);
            if (i == weightsOf) {
                return new AttentionResult(null, scope.adopt(r.weights()));
            }
            x = r.output();
        }
        return new AttentionResult(scope.adopt(x), null);
    }

    /**
     * @param layers layers on the host
     * @param p where every parameter is uploaded, once
     * @return each layer reading its parameters from {@code p}
     */
    static List<BertLayer> bind(List<BertLayer> layers, Parameters p) {
        return layers.stream().map(l -> l.bind(p)).toList();
    }

    /**
     * @param p a model's parameters
     * @param d the hidden size
     * @return its {@code pooler.dense} ({@code [d, d]} with a bias), or null where the checkpoint has none
     */
    static Linear pooler(StateDict p, int d) {
        return p.contains("pooler.dense.weight") ? Linear.load(p.select("pooler.dense."), d, d, true) : null;
    }

    /**
     * Hugging Face's {@code pooler_output}: {@code tanh(pooler.dense(hidden[:, 0]))}, {@link #tanh} as below. The
     * pooler takes each text's first row as a sequence of its own ({@code [B, 1, d]}), so that over an I8 weight each
     * text is quantized alone.
     *
     * @param owner the model, for the message
     * @param pooler its pooler, null where the checkpoint has none
     * @param scope receives the result
     * @param hidden {@code [B, L, d]}, the model's last hidden state
     * @return {@code [B, d]}
     * @throws IllegalStateException if the checkpoint has no pooler
     */
    static Tensor pool(String owner, Linear pooler, Scope scope, Tensor hidden) {
        if (pooler == null) {
            throw new IllegalStateException(owner + ".pool: the checkpoint has no pooler.dense weights");
        }
        try (Scope work = scope.backend().newScope()) {
            return scope.adopt(rows(work, tanh(work, pooler.forward(work, firstToken(work, hidden)))));
        }
    }

    /**
     * @param owner the model, for the message
     * @param layer a layer index asked for
     * @param layers how many layers there are
     */
    static void checkLayer(String owner, int layer, int layers) {
        if (layer < 0 || layer >= layers) {
            throw new IllegalArgumentException(owner + ".attentionWeights: argument layer is " + layer
                    + "; the model has layers 0 to " + (layers - 1));
        }
    }

    /**
     * @param work receives the result
     * @param hidden {@code [B, L, d]}
     * @return {@code hidden[:, 0]}, {@code [B, 1, d]}: the first token of each row, each row its own sequence, so
     *     that a projection over it quantizes each text alone
     */
    static Tensor firstToken(Scope work, Tensor hidden) {
        int length = hidden.shape().dim(1);
        return length == 1 ? hidden : work.ops().split(hidden, new int[] {1, length - 1}, 1).get(0);
    }

    /**
     * @param work receives the result
     * @param perText {@code [B, 1, n]}: one row per text
     * @return {@code [B, n]}
     */
    static Tensor rows(Scope work, Tensor perText) {
        return work.ops().reshape(perText, perText.shape().dim(0), perText.shape().dim(2));
    }

    /**
     * @param work receives the result
     * @param y any tensor
     * @return {@code tanh(y)}, computed as {@code 1 - 2 / (exp(2y) + 1)} so that large {@code |y|} gives ±1
     */
    static Tensor tanh(Scope work, Tensor y) {
        Ops ops = work.ops();
        Tensor one = work.tensor(new double[] {1}, Shape.of(1), y.dtype());
        Tensor denominator = ops.add(ops.exp(ops.scale(y, 2)), one);
        return ops.sub(one, ops.scale(ops.div(one, denominator), 2));

    }

    /**
     * @return {@code x} with its padding rows zeroed when {@code projection} quantizes its input, so that each text's
     *     quantization range is its real tokens' alone (zeros move no range), as ONNX Runtime's on that text alone;
     *     else {@code x}
     */
    private static Tensor input(Ops ops, Linear projection, Tensor x, Tensor realTokens) {
        return realTokens != null && projection.weightType() == WeightType.I8 ? ops.mul(x, realTokens) : x;
    }
}
