package org.attn4j.models.embed;

import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.Scope;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;

/**
 * Qwen3-Embedding's network under a {@link SentenceEmbedder}: a Qwen3 decoder whose final norm's hidden states are
 * the token embeddings, batched with left padding as the model card's {@code padding_side='left'} tokenizer does:
 * <pre>
 *   ids    [B][L]   row b = (L − n_b) fillers, then its n_b tokens (the tokenizer's post-processor appends
 *                   &lt;|endoftext|&gt;, the token Qwen3-Embedding pools)
 *   mask   [B, L]   0 on the fillers, 1 on the tokens; the fillers are hidden from every token ({@link KvCache}'s
 *                   left padding) and positions count from each row's first token
 *   hidden [B, L, E] = finalNorm(blocks(embed(ids)))
 * </pre>
 * A row's hidden states are those it has alone, up to the order in which attention sums the same terms; the
 * fillers' own rows mean nothing and no pooling reads them.
 */
final class Qwen3Embedding implements AutoCloseable {
    /** The id the fillers carry; attention never reads them, so any id in the vocabulary serves. */
    private static final int FILLER = 0;

    /**
     * A padded batch's hidden states and mask.
     *
     * @param hidden {@code [B, L, E]} row-major
     * @param mask {@code [B, L]}, 1 on real tokens
     * @param length {@code L}
     */
    record Hidden(float[] hidden, int[] mask, int length) {
    }

    private final CausalLM model;
    private final long weightBytes;
    private volatile boolean open = true;

    /**
     * @param model the decoder; closed with this
     * @param weightBytes the bytes of its weights
     */
    Qwen3Embedding(CausalLM model, long weightBytes) {
        this.model = model;
        this.weightBytes = weightBytes;
    }

    /** @return the bytes of the weights */
    long weightBytes() {
        return weightBytes;
    }

    /**
     * @param batch the rows' token ids, each at least one token and at most the model's positions
     * @return their left-padded hidden states
     */
    Hidden hidden(List<int[]> batch) {
        int b = batch.size();
        int l = 0;
        for (int r = 0; r < b; r++) {
            if (batch.get(r).length == 0) {
                throw new IllegalArgumentException("SentenceEmbedder.embed: a text has no tokens (the tokenizer's "
                        + "post-processor appends none), so it has no last token to pool");
            }
            l = Math.max(l, batch.get(r).length);
        }
        int[][] ids = new int[b][l];
        int[] padding = new int[b];
        int[] mask = new int[b * l];
        for (int r = 0; r < b; r++) {
            int[] row = batch.get(r);
            padding[r] = l - row.length;
            java.util.Arrays.fill(ids[r], 0, padding[r], FILLER);
            System.arraycopy(row, 0, ids[r], padding[r], row.length);
            java.util.Arrays.fill(mask, r * l + padding[r], (r + 1) * l, 1);
        }
        try (KvCache cache = model.newCache(b, l); Scope scope = model.backend().newScope()) {
            cache.setPadding(padding);
            return new Hidden(model.hidden(scope, ids, cache).toFloatArray(), mask, l);
        }
    }

    /** @return {@code E}, the width of every hidden state */
    int dimension() {
        return model.config().hidden();
    }

    /** @return the decoder's number of blocks */
    int layers() {
        return model.config().layers();
    }

    /** @return {@code max_position_embeddings} */
    int maxPositions() {
        return model.config().maxPositions();
    }

    /** @return the backend holding the weights */
    Backend backend() {
        return model.backend();
    }

    /** @return whether {@link #close()} has not been called */
    boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        model.close();
    }
}
