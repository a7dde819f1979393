package org.attn4j.backend.ejml;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.api.Test;

/**
 * The fused ops this backend computes natively equal their compositions on the same backend: attention straight
 * from a packed projection (heads read where they lie, with grouped kv heads, masks, causal; lengths on either side
 * of the SIMD kernel's threshold), and the residual add fused into layer norm and RMS norm.
 */
class FusedOpsTest extends ScopedTest {

    @Test
    void packedAttentionEqualsAttentionOverTheCutHeads() {
        for (DType dtype : DType.values()) {
            for (int length : new int[] {3, 40, 130}) {
                check(dtype, 2, length, 4, 4, 16, AttentionOptions.defaults());
                check(dtype, 1, length, 6, 2, 8, AttentionOptions.defaults().withCausal(true));
                boolean[] allowed = new boolean[2 * length];
                for (int i = 0; i < allowed.length; i++) {
                    allowed[i] = i % length < length - 2 || length < 4;
                }
                check(dtype, 2, length, 2, 1, 12,
                        AttentionOptions.defaults().withMask(Mask.of(Shape.of(2, 1, 1, length), allowed)));
            }
        }
    }

    private void check(DType dtype, int batch, int length, int heads, int kvHeads, int d, AttentionOptions options) {
        int width = (heads + 2 * kvHeads) * d;
        Tensor qkv = Oracle.tensor(scope, dtype, Oracle.values(dtype, batch * length * width, random), batch, length,
                width);
        Tensor fused = ops.packedAttention(qkv, heads, kvHeads, options).output();
        Tensor composed = ReferenceOps.packedAttention(ops, qkv, heads, kvHeads, d, options).output();
        Oracle.assertClose(dtype + " packedAttention B=" + batch + " L=" + length + " H=" + heads + " H_kv=" + kvHeads
                + " d=" + d + " " + options, composed.toDoubleArray(), fused, Oracle.Tolerance.of(dtype));
    }

    @Test
    void normsOfAResidualSumEqualTheNormOfTheSum() {
        for (DType dtype : DType.values()) {
            int d = 37;
            Tensor x = Oracle.tensor(scope, dtype, Oracle.values(dtype, 5 * d, random), 5, d);
            Tensor r = Oracle.tensor(scope, dtype, Oracle.values(dtype, 5 * d, random), 5, d);
            Tensor g = Oracle.tensor(scope, dtype, Oracle.values(dtype, d, random), d);
            Tensor b = Oracle.tensor(scope, dtype, Oracle.values(dtype, d, random), d);
            Tensor sum = ops.add(x, r);
            Oracle.assertClose(dtype + " layerNorm(x, residual)", ops.layerNorm(sum, g, b, 1e-5).toDoubleArray(),
                    ops.layerNorm(x, r, g, b, 1e-5), new Oracle.Tolerance(0, 0));
            Oracle.assertClose(dtype + " rmsNorm(x, residual)", ops.rmsNorm(sum, g, 1e-6).toDoubleArray(),
                    ops.rmsNorm(x, r, g, 1e-6), new Oracle.Tolerance(0, 0));
            Oracle.assertClose(dtype + " layerNorm(x, residual) without affine parameters",
                    ops.layerNorm(sum, null, null, 0).toDoubleArray(), ops.layerNorm(x, r, null, null, 0),
                    new Oracle.Tolerance(0, 0));
        }
    }
}
