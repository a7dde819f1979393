package org.attn4j.models.layers;

import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;

/**
 * Where a bound block's parameters live: the backend and the dtype of the activations they meet.
 *
 * @param backend the backend holding the parameters
 * @param dtype the activations' element type
 */
record Placement(Backend backend, DType dtype) {

    static Placement of(Parameters parameters) {
        return new Placement(parameters.backend(), parameters.dtype());
    }

    /**
     * @param op the block's name for the message
     * @param x an activation
     * @throws IllegalArgumentException if it lives on another backend or has another dtype
     */
    void check(String op, Tensor x) {
        if (x.backend() != backend || x.dtype() != dtype) {
            throw new IllegalArgumentException(op + ": argument x " + x.shape() + " is " + x.dtype() + " on "
                    + x.backend().name() + " but the layer is bound to " + dtype + " on " + backend.name());
        }
    }

    /**
     * @param op the block's name for the message
     * @param backend where a result is asked for
     * @param dtype its element type
     * @throws IllegalArgumentException if either differs from this placement
     */
    void check(String op, Backend backend, DType dtype) {
        if (backend != this.backend || dtype != this.dtype) {
            throw new IllegalArgumentException(op + ": asked for " + dtype + " on " + backend.name()
                    + " but the layer is bound to " + this.dtype + " on " + this.backend.name());
        }
    }
}
