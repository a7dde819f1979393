package org.attn4j.models.tutorial;

import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.StateDict;

/**
 * Additive attention (Bahdanau, Cho and Bengio, 2015), the scoring the attention idea began with:
 * <pre>
 *   score[b, i, j] = v · tanh(W1·query[b, i] + b1 + W2·keys[b, j] + b2)      W1 [h, d_q], W2 [h, d_k], v [1, h]
 *   weights = softmax_j(score), -∞ for keys at or past a batch item's valid length
 *   context[b, i] = Σ_j weights[b, i, j] · values[b, j]
 * </pre>
 * State_dict names {@code W1.weight}, {@code W1.bias}, {@code W2.weight}, {@code W2.bias}, {@code v.weight}. The api
 * has no {@code tanh}, so it is composed as {@code tanh(z) = 1 - 2 / (e^{2z} + 1)}, exact at both infinities.
 */
public final class BahdanauAttention {
    private final Linear w1;
    private final Linear w2;
    private final Linear v;

    private BahdanauAttention(Linear w1, Linear w2, Linear v) {
        this.w1 = w1;
        this.w2 = w2;
        this.v = v;
    }

    /**
     * @param params the five entries named in the class comment
     * @param queryDim {@code d_q}
     * @param keyDim {@code d_k}
     * @param hiddenDim {@code h}
     * @return the layer
     */
    public static BahdanauAttention load(StateDict params, int queryDim, int keyDim, int hiddenDim) {
        return params.load("BahdanauAttention", p -> {
            return new BahdanauAttention(Linear.load(p.select("W1."), queryDim, hiddenDim, true),
                    Linear.load(p.select("W2."), keyDim, hiddenDim, true),
                    Linear.load(p.select("v."), hiddenDim, 1, false));
        });
    }

    /** @return the parameters */
    public StateDict stateDict() {
        return w1.stateDict().prefixed("W1.").plus(w2.stateDict().prefixed("W2.")).plus(v.stateDict().prefixed("v."));
    }

    /**
     * @param scope receives the results
     * @param query {@code [B, Lq, d_q]}
     * @param keys {@code [B, Lk, d_k]}
     * @param values {@code [B, Lk, d_v]}
     * @param validLengths per batch item, the number of real keys; or null when all are real
     * @return the context {@code [B, Lq, d_v]} and the weights {@code [B, Lq, Lk]}
     */
    public AttentionResult forward(Scope scope, Tensor query, Tensor keys, Tensor values, int[] validLengths) {
        if (query.shape().rank() != 3 || keys.shape().rank() != 3 || values.shape().rank() != 3
                || keys.shape().dim(0) != query.shape().dim(0) || values.shape().dim(0) != query.shape().dim(0)
                || values.shape().dim(1) != keys.shape().dim(1)) {
            throw new IllegalArgumentException("BahdanauAttention: arguments query " + query.shape() + ", keys "
                    + keys.shape() + " and values " + values.shape() + " must be [B, Lq, d_q], [B, Lk, d_k] and"
                    + " [B, Lk, d_v]");
        }
        int b = query.shape().dim(0);
        int lq = query.shape().dim(1);
        int lk = keys.shape().dim(1);
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            int h = w1.outFeatures();
            Tensor q = ops.reshape(w1.forward(work, query), b, lq, 1, h);
            Tensor k = ops.reshape(w2.forward(work, keys), b, 1, lk, h);
            Tensor hidden = tanh(work, ops.add(q, k));
            Tensor scores = ops.reshape(v.forward(work, hidden), b, lq, lk);
            if (validLengths != null) {
                if (validLengths.length != b) {
                    throw new IllegalArgumentException("BahdanauAttention: argument validLengths has "
                            + validLengths.length + " entries but the batch has " + b);
                }
                Mask m = Mask.keyPadding(validLengths, lk);
                scores = ops.add(scores, ops.additiveMask(Mask.of(Shape.of(b, 1, lk), m.toArray()), scores.dtype()));
            }
            Tensor weights = ops.softmax(scores, -1);
            Tensor context = ops.matmul(weights, values);
            return new AttentionResult(scope.adopt(context), scope.adopt(weights));
        }
    }

    /** {@code tanh(z) = 1 - 2 / (e^{2z} + 1)}. */
    private static Tensor tanh(Scope work, Tensor z) {
        Ops ops = work.ops();
        Tensor one = work.tensor(new double[] {1.0}, Shape.scalar(), z.dtype());
        Tensor denominator = ops.add(ops.exp(ops.scale(z, 2.0)), one);
        return ops.sub(one, ops.div(ops.scale(one, 2.0), denominator));
    }
}
