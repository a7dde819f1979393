package org.attn4j.api.spi;

import java.util.Set;
import org.attn4j.api.DType;

/**
 * What a backend can do, so that callers and the TCK can ask instead of catching exceptions.
 *
 * @param device where the data lives, for example {@code "cpu"} or {@code "cuda"}
 * @param dtypes the element types its tensors support; always contains {@link DType#F32}
 * @param fusedAttention true if {@code Ops.attention} is the backend's own implementation (a fused kernel or a
 *     native path) rather than the inherited {@link ReferenceAttention}; the TCK then checks the two agree
 * @param dropout true if dropout (op and attention option) is supported
 * @param attentionWeights true if attention can return its weights
 * @param maxThreads how many threads one op may use
 */
public record Capabilities(String device, Set<DType> dtypes, boolean fusedAttention, boolean dropout,
                           boolean attentionWeights, int maxThreads) {

    /** Validates and copies the dtype set. */
    public Capabilities {
        if (!dtypes.contains(DType.F32)) {
            throw new IllegalArgumentException("Capabilities: argument dtypes " + dtypes + " lacks F32");
        }
        if (maxThreads < 1) {
            throw new IllegalArgumentException("Capabilities: argument maxThreads is " + maxThreads);
        }
        dtypes = Set.copyOf(dtypes);
    }

    /**
     * @param dtype an element type
     * @return whether tensors of that type are supported
     */
    public boolean supports(DType dtype) {
        return dtypes.contains(dtype);
    }
}
