package org.attn4j.models.bert;

import java.util.List;
import java.util.stream.Stream;
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
 * One post-norm BERT layer ({@code encoder.layer.<i>.}):
 * <pre>
 *   q, k, v = x·W_qᵀ + b_q, x·W_kᵀ + b_k, x·W_vᵀ + b_v        (one fused [3d, d] projection)
 *   a = attention.output.LayerNorm(x + attention.output.dense(attention(q, k, v, key padding)))
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
        return forward(scope, x, keyPadding, realTokens, false).output();
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]}
     * @param keyPadding {@code [B, 1, 1, L]}, true on real tokens, or null when nothing is padded
     * @param realTokens {@code [B, L, 1]}, 1 on real tokens and 0 on padding, or null when nothing is padded
     * @param needWeights whether to return the attention weights {@code [B, H, L, L]} too
     * @return the layer's output {@code [B, L, d]} and, if asked, its attention weights
     */
    AttentionResult forward(Scope scope, Tensor x, Mask keyPadding, Tensor realTokens, boolean needWeights) {
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            int h = config.numAttentionHeads();
            AttentionResult attended = ops.packedAttention(qkv.forward(work, input(ops, qkv, x, realTokens)), h, h,
                    AttentionOptions.defaults().withMask(keyPadding).withWeights(needWeights));
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
     * @return {@code x} with its padding rows zeroed when {@code projection} quantizes its input, so that each text's
     *     quantization range is its real tokens' alone (zeros move no range), as ONNX Runtime's on that text alone;
     *     else {@code x}
     */
    private static Tensor input(Ops ops, Linear projection, Tensor x, Tensor realTokens) {
        return realTokens != null && projection.weightType() == WeightType.I8 ? ops.mul(x, realTokens) : x;
    }
}
