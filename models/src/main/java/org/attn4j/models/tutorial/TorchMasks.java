package org.attn4j.models.tutorial;

import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.models.parameters.HostTensor;

/**
 * Converts PyTorch's boolean masks, where {@code true} (or 1) means <em>masked out</em> (the convention of
 * {@code nn.MultiheadAttention}'s {@code key_padding_mask} and {@code attn_mask} and of
 * {@code nn.TransformerEncoderLayer}'s {@code src_key_padding_mask} and {@code src_mask}), into the api's
 * {@link Mask}, where {@code true} means <em>may attend</em>. Float masks need no conversion: pass them as
 * {@link AttentionMasks#additive()}.
 */
public final class TorchMasks {

    private TorchMasks() {
    }

    /**
     * @param torchMask PyTorch's boolean mask stored as numbers (non-zero = masked out), any shape
     * @return the inverted mask of the same shape ({@code true} = may attend)
     */
    public static Mask invert(HostTensor torchMask) {
        boolean[] allowed = new boolean[(int) torchMask.shape().size()];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = torchMask.get(i) == 0.0;
        }
        return Mask.of(torchMask.shape(), allowed);
    }

    /**
     * @param masked {@code masked[b][s]} is true where key {@code s} of batch item {@code b} is padding
     * @return a {@code [B, 1, 1, S]} key-padding mask, {@code true} = a real key
     */
    public static Mask keyPadding(boolean[][] masked) {
        int s = masked[0].length;
        boolean[] allowed = new boolean[masked.length * s];
        for (int b = 0; b < masked.length; b++) {
            if (masked[b].length != s) {
                throw new IllegalArgumentException("TorchMasks.keyPadding: row " + b + " has " + masked[b].length
                        + " entries but row 0 has " + s);
            }
            for (int j = 0; j < s; j++) {
                allowed[b * s + j] = !masked[b][j];
            }
        }
        return Mask.of(Shape.of(masked.length, 1, 1, s), allowed);
    }

    /**
     * PyTorch's 3-d {@code attn_mask} of shape {@code [B·H, L, S]}, batch-major, becomes {@code [B, H, L, S]}.
     *
     * @param torchMask {@code [B·H, L, S]}, non-zero = masked out
     * @param heads {@code H}
     * @return the inverted mask, {@code [B, H, L, S]}
     */
    public static Mask perHead(HostTensor torchMask, int heads) {
        Shape s = torchMask.shape();
        if (s.rank() != 3 || s.dim(0) % heads != 0) {
            throw new IllegalArgumentException("TorchMasks.perHead: argument torchMask has shape " + s
                    + " but must be [B·" + heads + ", L, S]");
        }
        Mask m = invert(torchMask);
        return Mask.of(Shape.of(s.dim(0) / heads, heads, s.dim(1), s.dim(2)), m.toArray());
    }
}
