package org.attn4j.models.tutorial;

import java.util.List;
import java.util.OptionalDouble;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;

/**
 * The computation every multi-head layout shares:
 * <pre>
 *   Q = query·Wqᵀ + bq   [B, L, H·d_k] → [B, H, L, d_k]      (likewise K from key, V from value with d_v)
 *   O_h = attention(Q_h, K_h, V_h)                           [B, H, L, d_v]
 *   out = concat_h(O_h)·Woᵀ + bo                             [B, L, d_out]  (no projection: [B, L, H·d_v])
 * </pre>
 * Head {@code h} uses rows {@code h·d_k .. (h+1)·d_k} of {@code Wq} and {@code Wk} and rows
 * {@code h·d_v .. (h+1)·d_v} of {@code Wv}. Unbatched inputs {@code [L, d]} give {@code [L, d_out]} and weights
 * {@code [H, L, S]}.
 */
final class HeadedAttention {
    private final Linear wq;
    private final Linear wk;
    private final Linear wv;
    private final Linear wo;
    private final int heads;
    private final OptionalDouble scale;
    private final double dropout;

    HeadedAttention(Linear wq, Linear wk, Linear wv, Linear wo, int heads, OptionalDouble scale, double dropout) {
        if (heads < 1 || wq.outFeatures() % heads != 0 || wv.outFeatures() % heads != 0
                || wq.outFeatures() != wk.outFeatures()) {
            throw new IllegalArgumentException("attention: projections q " + wq.outFeatures() + "×" + wq.inFeatures()
                    + ", k " + wk.outFeatures() + "×" + wk.inFeatures() + ", v " + wv.outFeatures() + "×"
                    + wv.inFeatures() + " do not split into " + heads + " heads (q and k rows must be equal and q and v"
                    + " rows divisible by the head count)");
        }
        if (wo != null && wo.inFeatures() != wv.outFeatures()) {
            throw new IllegalArgumentException("attention: the output projection takes " + wo.inFeatures()
                    + " features but the heads give " + wv.outFeatures());
        }
        if (!(dropout >= 0 && dropout <= 1)) {
            throw new IllegalArgumentException("attention: argument dropout is " + dropout + "; it must lie in [0, 1]");
        }
        this.wq = wq;
        this.wk = wk;
        this.wv = wv;
        this.wo = wo;
        this.heads = heads;
        this.scale = scale;
        this.dropout = dropout;
    }

    int heads() {
        return heads;
    }

    int keyDim() {
        return wq.outFeatures() / heads;
    }

    int valueDim() {
        return wv.outFeatures() / heads;
    }

    OptionalDouble scale() {
        return scale;
    }

    double dropout() {
        return dropout;
    }

    /**
     * @param parameters where the projections' weights and biases are uploaded, once
     * @return this computation reading its projections from {@code parameters}
     */
    HeadedAttention bind(Parameters parameters) {
        return new HeadedAttention(wq.bind(parameters), wk.bind(parameters), wv.bind(parameters),
                wo == null ? null : wo.bind(parameters), heads, scale, dropout);
    }

    HeadedAttention with(OptionalDouble newScale, double newDropout) {
        return new HeadedAttention(wq, wk, wv, wo, heads, newScale, newDropout);
    }

    /**
     * @param scope receives the results
     * @param query {@code [B, L, d_q]} or {@code [L, d_q]}
     * @param key {@code [B, S, d_kv]} or {@code [S, d_kv]}
     * @param value like {@code key}
     * @param masks masks in the api's convention
     * @param needWeights whether to return the weights {@code [B, H, L, S]}
     * @param mode dropout on the weights in training, with {@code mode.seedFor(0)}
     * @return the output and, if asked, the per-head weights
     */
    AttentionResult forward(Scope scope, Tensor query, Tensor key, Tensor value, AttentionMasks masks,
                            boolean needWeights, RunMode mode) {
        int rank = query.shape().rank();
        if ((rank != 2 && rank != 3) || key.shape().rank() != rank || value.shape().rank() != rank) {
            throw new IllegalArgumentException("attention: arguments query " + query.shape() + ", key "
                    + key.shape() + " and value " + value.shape() + " must all be [B, L, d] or all [L, d]");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            boolean batched = rank == 3;
            int batch = batched ? query.shape().dim(0) : 1;
            Tensor q = split(work, wq.forward(work, batched ? query : unsqueeze(ops, query)));
            Tensor k = split(work, wk.forward(work, batched ? key : unsqueeze(ops, key)));
            Tensor v = split(work, wv.forward(work, batched ? value : unsqueeze(ops, value)));
            AttentionOptions options = AttentionOptions.defaults().withWeights(needWeights);
            if (scale.isPresent()) {
                options = options.withScale(scale.getAsDouble());
            }
            if (mode.drops(dropout)) {
                options = options.withDropout(dropout, mode.seedFor(0));
            }
            options = masks.applyTo(options, batch, k.shape().dim(2));
            AttentionResult r = ops.attention(q, k, v, options);
            int queries = q.shape().dim(2);
            Tensor out = ops.reshape(ops.permute(r.output(), 0, 2, 1, 3), batch, queries, wv.outFeatures());
            if (wo != null) {
                out = wo.forward(work, out);
            }
            Tensor weights = r.weights();
            if (!batched) {
                out = ops.reshape(out, queries, out.shape().dim(-1));
                weights = weights == null ? null : ops.reshape(weights, heads, queries, weights.shape().dim(-1));
            }
            return new AttentionResult(scope.adopt(out), weights == null ? null : scope.adopt(weights));
        }
    }

    private static Tensor unsqueeze(Ops ops, Tensor x) {
        return ops.reshape(x, 1, x.shape().dim(0), x.shape().dim(1));
    }

    private Tensor split(Scope work, Tensor x) {
        Ops ops = work.ops();
        Tensor r = ops.reshape(x, x.shape().dim(0), x.shape().dim(1), heads, x.shape().dim(2) / heads);
        return ops.permute(r, 0, 2, 1, 3);
    }

    /**
     * @param rows the rows of a projection, for example one per head
     * @return a projection without bias stacking them in order
     */
    static Linear stack(List<HostTensor> rows) {
        return new Linear(HostTensor.concatRows(rows), null);
    }
}
