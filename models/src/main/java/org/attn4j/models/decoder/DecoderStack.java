package org.attn4j.models.decoder;

import java.util.IdentityHashMap;
import java.util.Map;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

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
 * Each block's rotary embedding is computed once per forward from its {@link RopeScaling} at the forward's
 * sequence length (which only dynamic NTK and LongRoPE depend on). Without a post-norm, the skip connection is
 * added by the output projection and the down projection in their own pass.
 */
final class DecoderStack implements Architecture {

    /**
     * One block's pieces.
     *
     * @param inputNorm the norm before attention
     * @param attention the self-attention
     * @param postAttentionNorm the norm of the attention's output before the residual add, or {@link Norm#NONE}
     * @param preMlpNorm the norm before the MLP
     * @param mlp the MLP
     * @param postMlpNorm the norm of the MLP's output before the residual add, or {@link Norm#NONE}
     * @param rope the rotary schedule, or null for none
     */
    record Block(Norm inputNorm, DecoderAttention attention, Norm postAttentionNorm, Norm preMlpNorm, FeedForward mlp,
                 Norm postMlpNorm, RopeScaling rope) {
    }

    private final TokenTable embedding;
    private final TokenTable positions;
    private final double embeddingScale;
    private final Block[] blocks;
    private final Norm finalNorm;
    private final Projection head;
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
    DecoderStack(TokenTable embedding, TokenTable positions, double embeddingScale, Block[] blocks, Norm finalNorm,
            Projection head, double finalSoftcap) {
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
        Shape shape = Shape.of(b, l);
        Tensor x = embedding.rows(t, flat, shape);
        if (positions != null) {
            int[] at = new int[b * l];
            for (int r = 0; r < b; r++) {
                for (int s = 0; s < l; s++) {
                    at[r * l + s] = Math.max(0, cache.position(r, s));
                }
            }
            x = t.add(x, positions.rows(t, at, shape));
        }
        if (embeddingScale != 1.0) {
            x = t.scale(x, embeddingScale);
        }
        Map<RopeScaling, RotaryEmbedding> rotary = new IdentityHashMap<>();
        int sequenceLength = cache.sequenceEnd(l);
        for (int layer = 0; layer < blocks.length; layer++) {
            Block p = blocks[layer];
            RotaryEmbedding rope = p.rope() == null ? null
                    : rotary.computeIfAbsent(p.rope(), r -> r.at(sequenceLength));
            boolean fuse = p.postAttentionNorm() == Norm.NONE;
            Tensor a = p.attention().forward(t, p.inputNorm().apply(t, x), layer, cache, rope, fuse ? x : null);
            x = fuse ? a : t.add(x, p.postAttentionNorm().apply(t, a));
            fuse = p.postMlpNorm() == Norm.NONE;
            Tensor m = p.mlp().forward(t, p.preMlpNorm().apply(t, x), fuse ? x : null);
            x = fuse ? m : t.add(x, p.postMlpNorm().apply(t, m));
        }
        return finalNorm.apply(t, x);
    }

    @Override
    public Tensor logits(Ops t, Tensor hidden) {
        Tensor logits = head.apply(t, hidden);
        return finalSoftcap > 0 ? t.softcap(logits, finalSoftcap) : logits;
    }
}
