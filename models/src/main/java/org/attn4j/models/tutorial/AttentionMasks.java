package org.attn4j.models.tutorial;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The masks a multi-head layer takes, in the api's convention ({@code true} = may attend). PyTorch's boolean
 * {@code key_padding_mask} and {@code attn_mask} mean the opposite; {@link TorchMasks} converts them.
 *
 * @param keyPadding {@code [B, S]} or {@code [B, 1, 1, S]}: which keys of each batch item are real; or null
 * @param attnMask {@code [L, S]} or {@code [B, H, L, S]}: which key each query may attend to; or null
 * @param additive a float tensor broadcastable to {@code [B, H, L, S]} added to the logits (PyTorch's float
 *     {@code attn_mask}, for example {@code -∞} above the diagonal); or null
 * @param causal query {@code i} attends only to keys {@code j <= i}
 */
public record AttentionMasks(Mask keyPadding, Mask attnMask, Tensor additive, boolean causal) {
    /** No mask at all. */
    public static final AttentionMasks NONE = new AttentionMasks(null, null, null, false);

    /**
     * @param mask {@code [B, S]} or {@code [B, 1, 1, S]}, {@code true} = a real key
     * @return a copy with the key-padding mask set
     */
    public AttentionMasks withKeyPadding(Mask mask) {
        return new AttentionMasks(mask, attnMask, additive, causal);
    }

    /**
     * @param mask {@code [L, S]} or {@code [B, H, L, S]}, {@code true} = may attend
     * @return a copy with the attention mask set
     */
    public AttentionMasks withAttnMask(Mask mask) {
        return new AttentionMasks(keyPadding, mask, additive, causal);
    }

    /**
     * @param mask a float tensor added to the logits, or null
     * @return a copy with the additive mask set
     */
    public AttentionMasks withAdditive(Tensor mask) {
        return new AttentionMasks(keyPadding, attnMask, mask, causal);
    }

    /**
     * @param value whether attention is causal
     * @return a copy with {@code causal} set
     */
    public AttentionMasks withCausal(boolean value) {
        return new AttentionMasks(keyPadding, attnMask, additive, value);
    }

    /**
     * @param base options to extend (scale, dropout, weights)
     * @param batch {@code B}
     * @param keys {@code S}
     * @return {@code base} with the boolean masks combined by logical and, the additive mask and the causal flag
     */
    AttentionOptions applyTo(AttentionOptions base, int batch, int keys) {
        Mask combined = attnMask;
        if (keyPadding != null) {
            Shape s = keyPadding.shape();
            boolean flat = s.rank() == 2 && s.dim(0) == batch && s.dim(1) == keys;
            boolean expanded = s.equals(Shape.of(batch, 1, 1, keys));
            if (!flat && !expanded) {
                throw new IllegalArgumentException("attention: argument keyPadding has shape " + s + " but must be ["
                        + batch + ", " + keys + "] or [" + batch + ", 1, 1, " + keys + "]");
            }
            Mask kp = Mask.of(Shape.of(batch, 1, 1, keys), keyPadding.toArray());
            combined = combined == null ? kp : and(combined, kp);
        }
        return base.withMask(combined).withAdditiveMask(additive).withCausal(causal);
    }

    /**
     * @param a a mask
     * @param b a mask broadcastable against {@code a}
     * @return {@code a ∧ b} with the broadcast shape
     */
    static Mask and(Mask a, Mask b) {
        Shape out = a.shape().broadcast(b.shape());
        int rank = out.rank();
        int[] dims = out.toArray();
        boolean[] r = new boolean[(int) out.size()];
        int[] idx = new int[rank];
        for (int flat = 0; flat < r.length; flat++) {
            r[flat] = a.allowed(source(a.shape(), idx, rank)) && b.allowed(source(b.shape(), idx, rank));
            for (int ax = rank - 1; ax >= 0 && ++idx[ax] == dims[ax]; ax--) {
                idx[ax] = 0;
            }
        }
        return Mask.of(out, r);
    }

    private static int source(Shape s, int[] idx, int rank) {
        int offset = rank - s.rank();
        int flat = 0;
        for (int ax = 0; ax < s.rank(); ax++) {
            flat = flat * s.dim(ax) + (s.dim(ax) == 1 ? 0 : idx[ax + offset]);
        }
        return flat;
    }
}
