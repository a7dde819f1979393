package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.attn4j.backend.nd4j.Close.tolerance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.VisibleKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The decoding route (a few queries against views of a cache) against the composition of the same backend's
 * primitives ({@link ReferenceAttention}), which reads every key and repeats nothing.
 */
class DecodeAttentionTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final int B = 2;
    private static final int KV = 2;
    private static final int D = 8;

    private record Call(int heads, int lq, int lk, AttentionOptions options) {
        Shape q() {
            return Shape.of(B, heads, lq, D);
        }

        Shape kv() {
            return Shape.of(B, KV, lk, D);
        }
    }

    private static AttentionOptions decoding(int keyLength) {
        return AttentionOptions.defaults().withCausal(true).withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)
                .withKeyLength(keyLength);
    }

    private static double[] data(long seed, Shape shape, DType dtype) {
        double[] d = Oracle.random(seed, (int) shape.size());
        for (int i = 0; dtype == DType.F32 && i < d.length; i++) {
            d[i] = (float) d[i];
        }
        return d;
    }

    private static void matchesComposition(DType dtype, Call call, double[] k, double[] v, String what) {
        try (Scope scope = BACKEND.newScope()) {
            Tensor q = scope.tensor(data(1, call.q(), dtype), call.q(), dtype);
            Tensor kt = scope.tensor(k, call.kv(), dtype);
            Tensor vt = scope.tensor(v, call.kv(), dtype);
            ShapeChecks.AttentionShape shape = ShapeChecks.attention(q, kt, vt, call.options());
            assertTrue(DecodeAttention.suits(VisibleKeys.simplified(call.options(), shape), shape,
                    Nd4jAttention.LOGITS_PER_BLOCK), what + " takes the decoding route");
            double[] expected = ReferenceAttention.compute(scope.ops(), q, kt, vt, call.options()).output()
                    .toDoubleArray();
            double[] actual = scope.ops().attention(q, kt, vt, call.options()).output().toDoubleArray();
            assertClose(what, expected, actual, tolerance(dtype));
        }
    }

    private static void matchesComposition(DType dtype, Call call, String what) {
        matchesComposition(dtype, call, data(2, call.kv(), dtype), data(3, call.kv(), dtype), what);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void groupedQueriesOverACacheLongerThanItsKeysMatchTheComposition(DType dtype) {
        matchesComposition(dtype, new Call(4, 1, 40, decoding(33)), "one query, 4 heads over 2, 33 of 40 keys");
        matchesComposition(dtype, new Call(2, 1, 40, decoding(40)), "one query, as many kv heads, all keys");
        matchesComposition(dtype, new Call(8, 3, 40, decoding(17)), "three queries, 8 heads over 2, 17 keys");
        matchesComposition(dtype, new Call(2, 1, 1500, decoding(1400)),
                "one query, 1400 keys: matrix-vector products issued in blocks of rows");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void windowsMasksAndDropoutMatchTheComposition(DType dtype) {
        boolean[] allowed = new boolean[B * 40];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = i % 40 >= (i < 40 ? 3 : 0);
        }
        Mask padding = Mask.of(Shape.of(B, 1, 1, 40), allowed);
        Shape additiveShape = Shape.of(B, 4, 2, 40);
        try (Scope scope = BACKEND.newScope()) {
            Tensor additive = scope.tensor(data(9, additiveShape, dtype), additiveShape, dtype);
            matchesComposition(dtype, new Call(4, 2, 40, decoding(30).withWindow(7)), "window 7, two queries");
            matchesComposition(dtype, new Call(4, 2, 40, decoding(30).withMask(padding)), "left padding mask");
            matchesComposition(dtype, new Call(4, 2, 40, decoding(30).withAdditiveMask(additive)),
                    "additive mask per head");
            matchesComposition(dtype, new Call(4, 2, 40, decoding(30).withDropout(0.3, 11)), "dropout");
            matchesComposition(dtype, new Call(4, 2, 40, decoding(0).withCausalAlignment(CausalAlignment.TOP_LEFT)),
                    "top-left causal, two queries");
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void keysPastTheKeyLengthAreNeverRead(DType dtype) {
        Call call = new Call(4, 1, 40, decoding(25));
        double[] k = data(2, call.kv(), dtype);
        double[] v = data(3, call.kv(), dtype);
        double[] poisonedK = k.clone();
        double[] poisonedV = v.clone();
        for (int i = 0; i < k.length; i++) {
            if (i / D % 40 >= 25) {
                poisonedK[i] = Double.NaN;
                poisonedV[i] = Double.POSITIVE_INFINITY;
                k[i] = 0;
                v[i] = 0;
            }
        }
        try (Scope scope = BACKEND.newScope()) {
            Tensor q = scope.tensor(data(1, call.q(), dtype), call.q(), dtype);
            double[] clean = scope.ops().attention(q, scope.tensor(k, call.kv(), dtype),
                    scope.tensor(v, call.kv(), dtype), call.options()).output().toDoubleArray();
            double[] poisoned = scope.ops().attention(q, scope.tensor(poisonedK, call.kv(), dtype),
                    scope.tensor(poisonedV, call.kv(), dtype), call.options()).output().toDoubleArray();
            assertTrue(Arrays.stream(clean).allMatch(Double::isFinite), "clean output is finite");
            assertClose("NaN and ∞ past the key length", clean, poisoned, 0.0);
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void aFullyMaskedRowIsZerosAndANaNValueANaNRow(DType dtype) {
        boolean[] allowed = new boolean[B * 40];
        Arrays.fill(allowed, 40, 80, true);
        Call masked = new Call(4, 1, 40, decoding(30).withMask(Mask.of(Shape.of(B, 1, 1, 40), allowed)));
        matchesComposition(dtype, masked, "batch row 0 fully masked");
        double[] v = data(3, masked.kv(), dtype);
        v[(40 + 5) * D + 2] = Double.NaN;
        Call plain = new Call(4, 1, 40, decoding(30));
        matchesComposition(dtype, plain, data(2, plain.kv(), dtype), v, "NaN in a visible value of kv head 1");
        try (Scope scope = BACKEND.newScope()) {
            double[] out = scope.ops().attention(scope.tensor(data(1, plain.q(), dtype), plain.q(), dtype),
                    scope.tensor(data(2, plain.kv(), dtype), plain.kv(), dtype),
                    scope.tensor(v, plain.kv(), dtype), plain.options()).output().toDoubleArray();
            for (int i = 0; i < out.length; i++) {
                int head = i / D % 4;
                boolean poisoned = i / (4 * D) == 0 && head >= 2 && i % D == 2;
                assertEquals(poisoned, Double.isNaN(out[i]), "index " + i + " is NaN only in column 2 of the"
                        + " heads reading kv head 1 of batch row 0: " + out[i]);
            }
        }
    }
}
