package org.attn4j.tck;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;

/**
 * A scope and the dtype a check creates its inputs in.
 *
 * @param scope where inputs and results live
 * @param dtype the element type of the inputs
 */
record Run(Scope scope, DType dtype) {

    Ops ops() {
        return scope.ops();
    }

    Tensor in(HostTensor t) {
        return t.toTensor(scope, dtype);
    }

    HostTensor attend(Tensor[] qkv, AttentionOptions options) {
        return HostTensor.copyOf(scope.ops().attention(qkv[0], qkv[1], qkv[2], options).output());
    }

    HostTensor attend(HostTensor q, HostTensor k, HostTensor v, AttentionOptions options) {
        return attend(new Tensor[] {in(q), in(k), in(v)}, options);
    }
}
