package org.attn4j.models.decoder;

import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;

/**
 * An embedding table {@code [V, E]} bound on the backend in its storage type (token embeddings, GPT-2's learned
 * positions): the one place where the decoders call {@link Ops#embedding}. A table may also serve as the tied LM
 * head, the same weight read by a product.
 */
final class TokenTable {
    private final Weight weight;

    /** @param weight {@code [V, E]} on the backend */
    TokenTable(Weight weight) {
        this.weight = weight;
    }

    /**
     * @param t the ops of a work scope
     * @param ids row indices in {@code [0, V)}, row-major
     * @param shape the shape of {@code ids}
     * @return {@code shape + [E]}
     */
    Tensor rows(Ops t, int[] ids, Shape shape) {
        return t.embedding(weight, ids, shape);
    }

    /** @return the table as the LM head {@code x·tableᵀ} (tied word embeddings) */
    Projection asHead() {
        return new Projection(weight, null);
    }
}
