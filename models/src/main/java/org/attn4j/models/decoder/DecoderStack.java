package org.attn4j.models.decoder;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.layers.Norm;

/**
 * The forward pass every family shares, over weights already on the backend; each family's reader decides the
 * pieces ({@link Llama#bind}, {@link Gemma2#bind}, {@link Gemma3#bind}, {@link Gpt2#bind}):
 * <pre>
 *   x = embed(ids) (+ wpe(positions), GPT-2) (· sqrt(E) rounded to the dtype, Gemma)
 *   per block:
 *     x += postAttentionNorm(attention(inputNorm(x)))      postAttentionNorm: Gemma 2's and 3's, else none
 *     x += postMlpNorm(mlp(preMlpNorm(x)))                 postMlpNorm: Gemma 2's and 3's, else none
 *   logits = cap(head(finalNorm(x)))                       cap: Gemma 2's final soft-cap (3's if set), else none
 * </pre>
 * Each block's rotary embedding is computed once per forward and sequence from its {@link RopeScaling} at that
 * sequence's length (which only dynamic NTK and LongRoPE depend on). Without a post-norm, the skip connection is
 * added by the output projection and the down projection in their own pass.
 *
 * <p>A forward runs either one cache of {@code B} rows ({@code [B, L]} ids, every row as long) or several sequences,
 * each with a cache of one row and any number of new tokens: their tokens are laid one after the other into one
 * {@code [1, N, E]} activation, so that every product, norm and activation runs once over all {@code N} rows and
 * reads the weights once, and only attention (with each sequence's rotary positions and cache) runs per sequence.
 */
final class DecoderStack implements Architecture {

    /**
     * One sequence's share of a forward.
     *
     * @param cache its cache, holding its earlier positions
     * @param count how many of the forward's new tokens are its own
     */
    record Part(KvCache cache, int count) {
    }

    /**
     * One block's pieces.
     *
     * @param inputNorm the norm before attention
     * @param attention the self-attention
     * @param postAttentionNorm the norm of the attention's output before the residual add, or null for none
     * @param preMlpNorm the norm before the MLP
     * @param mlp the MLP
     * @param postMlpNorm the norm of the MLP's output before the residual add, or null for none
     * @param rope the rotary schedule, or null for none
     */
    record Block(Norm inputNorm, DecoderAttention attention, Norm postAttentionNorm, Norm preMlpNorm, FeedForward mlp,
                 Norm postMlpNorm, RopeScaling rope) {
    }

    /**
     * From this many rows on ({@code B·N}), each block's intermediates live in a scope of their own, closed once the
     * next block has read its output: a long prompt or a batch of texts holds one block's activations at a time,
     * not every block's. Fewer rows (a decoding step) keep the one scope of the call.
     */
    static final int RELEASED_ROWS = 32;

    private final Embedding embedding;
    private final Embedding positions;
    private final double embeddingScale;
    private final Block[] blocks;
    private final Norm finalNorm;
    private final Linear head;
    private final double finalSoftcap;

    /**
     * @param embedding the token table
     * @param positions GPT-2's learned position table, or null
     * @param embeddingScale the factor of the embeddings (1 but for Gemma)
     * @param blocks the blocks
     * @param finalNorm the last norm
     * @param head the LM head
     * @param finalSoftcap the soft-cap of the logits, 0 for none
     */
    DecoderStack(Embedding embedding, Embedding positions, double embeddingScale, Block[] blocks, Norm finalNorm,
            Linear head, double finalSoftcap) {
        this.embedding = embedding;
        this.positions = positions;
        this.embeddingScale = embeddingScale;
        this.blocks = blocks.clone();
        this.finalNorm = finalNorm;
        this.head = head;
        this.finalSoftcap = finalSoftcap;
    }

    /**
     * Gemma's embedding normaliser as transformers forms it: {@code sqrt(hidden_size)} as a tensor of the
     * activations' dtype, so rounded to float in F32.
     *
     * @param hidden {@code E}
     * @param dtype the activations' dtype
     * @return the factor
     */
    static double sqrtHidden(int hidden, DType dtype) {
        double s = Math.sqrt(hidden);
        return dtype == DType.F32 ? (float) s : s;
    }

    @Override
    public Tensor hidden(Ops t, int[][] ids, KvCache cache) {
        int b = ids.length;
        int l = ids[0].length;
        int[] flat = new int[b * l];
        for (int r = 0; r < b; r++) {
            System.arraycopy(ids[r], 0, flat, r * l, l);
        }
        return forward(t, flat, Shape.of(b, l), new Part[] {new Part(cache, l)});
    }

    @Override
    public Tensor hidden(Ops t, int[][] ids, KvCache[] caches) {
        Part[] parts = new Part[ids.length];
        int n = 0;
        for (int r = 0; r < ids.length; r++) {
            parts[r] = new Part(caches[r], ids[r].length);
            n += ids[r].length;
        }
        int[] flat = new int[n];
        int at = 0;
        for (int[] row : ids) {
            System.arraycopy(row, 0, flat, at, row.length);
            at += row.length;
        }
        return forward(t, flat, Shape.of(1, n), parts);
    }

    /**
     * @param flat the new ids of {@code shape}, row-major
     * @param shape {@code [B, N]}: one part of {@code N} tokens over a cache of batch {@code B}, or {@code B = 1}
     *     and the parts' tokens one after the other along {@code N}, each over a cache of batch 1
     * @param parts each sequence's cache and how many of the tokens are its own
     * @return {@code [B, N, E]}
     */
    private Tensor forward(Ops t, int[] flat, Shape shape, Part[] parts) {
        int b = shape.dim(0);
        int n = shape.dim(1);
        Tensor x = embedding.apply(t, flat, shape);
        if (positions != null) {
            int[] at = new int[b * n];
            for (int r = 0; r < b; r++) {
                int offset = 0;
                for (Part p : parts) {
                    for (int s = 0; s < p.count(); s++) {
                        at[r * n + offset + s] = Math.max(0, p.cache().position(r, s));
                    }
                    offset += p.count();
                }
            }
            x = t.add(x, positions.apply(t, at, shape));
        }
        if (embeddingScale != 1.0) {
            x = t.scale(x, embeddingScale);
        }
        Map<RopeScaling, Map<Integer, RotaryEmbedding>> rotary = new IdentityHashMap<>();
        RotaryEmbedding[] ropes = new RotaryEmbedding[parts.length];
        boolean release = (long) b * n >= RELEASED_ROWS;
        Scope held = null;
        try {
            for (int layer = 0; layer < blocks.length; layer++) {
                Block p = blocks[layer];
                for (int i = 0; i < parts.length; i++) {
                    int sequenceLength = parts[i].cache().sequenceEnd(parts[i].count());
                    ropes[i] = p.rope() == null ? null : rotary.computeIfAbsent(p.rope(), r -> new HashMap<>())
                            .computeIfAbsent(sequenceLength, p.rope()::at);
                }
                Scope own = release ? x.backend().newScope() : null;
                Tensor before = x;
                try {
                    x = block(own == null ? t : own.ops(), p, x, layer, parts, ropes);
                } catch (RuntimeException | Error e) {
                    if (own != null) {
                        own.close();
                    }
                    throw e;
                }
                if (own != null && x != before) {
                    if (held != null) {
                        held.close();
                    }
                    held = own;
                } else if (own != null) {
                    own.close();
                }
            }
            return finalNorm.apply(t, x);
        } finally {
            if (held != null) {
                held.close();
            }
        }
    }

    /**
     * One block: {@code x + attention(norm(x))}, then {@code x + mlp(norm(x))}, with the post-norms of the families
     * that have them.
     *
     * @return {@code [B, N, E]}, owned by {@code t}'s scope
     */
    private static Tensor block(Ops t, Block p, Tensor x, int layer, Part[] parts, RotaryEmbedding[] ropes) {
        boolean fuse = p.postAttentionNorm() == null;
        Tensor a = p.attention().forward(t, p.inputNorm().apply(t, x), layer, parts, ropes, fuse ? x : null);
        Tensor h = fuse ? a : t.add(x, p.postAttentionNorm().apply(t, a));
        fuse = p.postMlpNorm() == null;
        Tensor m = p.mlp().forward(t, p.preMlpNorm().apply(t, h), fuse ? h : null);
        return fuse ? m : t.add(h, p.postMlpNorm().apply(t, m));
    }

    @Override
    public Tensor logits(Ops t, Tensor hidden) {
        Tensor logits = head.apply(t, hidden);
        return finalSoftcap > 0 ? t.softcap(logits, finalSoftcap) : logits;
    }
}
