package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class BadInputTest extends ScopedTest {

    private Tensor t(int... dims) {
        return scope.zeros(Shape.of(dims), DType.F32);
    }

    private static void assertMessage(Class<? extends RuntimeException> type, Executable call, String... parts) {
        RuntimeException e = assertThrows(type, call);
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "message '" + e.getMessage() + "' lacks '" + part + "'");
        }
    }

    @Test
    void shapeMismatchNamesOpArgumentAndBothShapes() {
        assertMessage(IllegalArgumentException.class, () -> ops.matmul(t(2, 3), t(4, 5)), "matmul", "b", "[2, 3]",
                "[4, 5]");
        assertMessage(IllegalArgumentException.class, () -> ops.add(t(2, 3), t(4)), "add", "b", "[2, 3]", "[4]");
        assertMessage(IllegalArgumentException.class, () -> ops.mul(t(2, 3), t(3, 3)), "mul", "[2, 3]", "[3, 3]");
        assertMessage(IllegalArgumentException.class, () -> ops.linear(t(2, 3), t(4, 5), null), "linear", "weight",
                "[2, 3]", "[4, 5]");
        assertMessage(IllegalArgumentException.class, () -> ops.layerNorm(t(2, 3), t(4), null, 1e-5), "layerNorm",
                "gamma", "[2, 3]", "[4]");
        assertMessage(IllegalArgumentException.class, () -> ops.concat(List.of(t(2, 3), t(3, 4)), 0), "concat",
                "parts[1]", "[3, 4]", "[2, 3]");
        assertMessage(IllegalArgumentException.class, () -> ops.reshape(t(2, 3), 4, 2), "reshape", "[2, 3]");
        assertMessage(IllegalArgumentException.class, () -> ops.sum(t(2, 3), 2, false), "sum", "axis", "[2, 3]");
        assertMessage(IllegalArgumentException.class, () -> ops.embedding(t(4, 2), new int[] {4}, Shape.of(1)),
                "embedding", "ids[0]");
        assertMessage(IllegalArgumentException.class, () -> ops.attention(t(1, 2, 3, 4), t(1, 2, 3, 5), t(1, 2, 3, 4),
                AttentionOptions.defaults()), "attention", "k", "[1, 2, 3, 4]", "[1, 2, 3, 5]");
        assertMessage(IllegalArgumentException.class, () -> ops.attention(t(1, 2, 3, 4), t(1, 2, 5, 4), t(1, 2, 4, 4),
                AttentionOptions.defaults()), "attention", "v", "[1, 2, 4, 4]", "[1, 2, 5, 4]");
    }

    @Test
    void dtypeMismatchNamesOpArgumentAndBothShapes() {
        Tensor d = scope.zeros(Shape.of(2, 3), DType.F64);
        assertMessage(IllegalArgumentException.class, () -> ops.add(t(2, 3), d), "add", "b", "F64", "F32");
        assertMessage(IllegalArgumentException.class, () -> ops.matmul(t(2, 3), scope.zeros(Shape.of(3, 2),
                DType.F64)), "matmul", "b", "[3, 2]", "[2, 3]");
        Tensor q = t(1, 1, 2, 3);
        assertMessage(IllegalArgumentException.class, () -> ops.attention(q, q, q, AttentionOptions.defaults()
                .withAdditiveMask(scope.zeros(Shape.of(2, 2), DType.F64))), "attention", "additiveMask", "F64");
    }

    @Test
    void wrongShapedMasksAreRejected() {
        Tensor q = t(1, 2, 3, 4);
        Tensor k = t(1, 2, 5, 4);
        assertMessage(IllegalArgumentException.class, () -> ops.attention(q, k, k, AttentionOptions.defaults()
                .withMask(Mask.causal(3, 3))), "attention", "mask", "[3, 3]", "[1, 2, 3, 5]");
        assertMessage(IllegalArgumentException.class, () -> ops.attention(q, k, k, AttentionOptions.defaults()
                .withAdditiveMask(t(2, 1, 5, 1))), "attention", "additiveMask", "[2, 1, 5, 1]");
    }

    @Test
    void otherBadArgumentsAreIllegal() {
        assertMessage(IllegalArgumentException.class, () -> ops.dropout(t(2), 1.5, 0), "dropout", "p");
        assertMessage(IllegalArgumentException.class, () -> ops.gelu(t(2), null), "gelu", "approximation");
        assertMessage(IllegalArgumentException.class, () -> ops.add(null, t(2)), "add", "a", "null");
        assertMessage(IllegalArgumentException.class, () -> scope.tensor(new float[3], Shape.of(2, 2)), "tensor",
                "3", "[2, 2]");
        assertMessage(IllegalArgumentException.class, () -> ops.split(t(5), new int[] {2, 2}, 0), "split", "[5]");
        assertMessage(IllegalArgumentException.class, () -> ops.permute(t(2, 3), 0, 0), "permute", "[2, 3]");
    }

    @Test
    void closedTensorOrScopeIsIllegalState() {
        Scope other = BACKEND.newScope();
        Tensor x = other.zeros(Shape.of(2, 2), DType.F32);
        other.close();
        assertMessage(IllegalStateException.class, () -> ops.add(x, t(2, 2)), "add", "closed");
        assertMessage(IllegalStateException.class, x::toFloatArray, "toFloatArray", "closed");
        assertEquals(Shape.of(2, 2), x.shape());
        Tensor q = scope.zeros(Shape.of(1, 1, 2, 2), DType.F32);
        assertMessage(IllegalStateException.class, () -> ops.attention(q, q, ops.reshape(x, 1, 1, 2, 2),
                AttentionOptions.defaults()), "reshape", "closed");
        Scope third = BACKEND.newScope();
        Tensor k = third.zeros(Shape.of(1, 1, 2, 2), DType.F32);
        third.close();
        assertMessage(IllegalStateException.class, () -> ops.attention(q, k, q, AttentionOptions.defaults()),
                "attention", "closed");
        Tensor y = t(2, 2);
        scope.close();
        assertMessage(IllegalStateException.class, () -> ops.add(y, y), "add", "scope is closed");
        assertMessage(IllegalStateException.class, () -> scope.zeros(Shape.of(1), DType.F32), "zeros");
        assertMessage(IllegalStateException.class, y::toDoubleArray, "closed");
        scope.close();
    }

    @Test
    void adoptedTensorOutlivesItsFirstScope() {
        Tensor x;
        try (Scope inner = BACKEND.newScope()) {
            x = scope.adopt(inner.ops().gelu(inner.zeros(Shape.of(3), DType.F64), GeluApproximation.NONE));
        }
        assertEquals(3, x.toDoubleArray().length);
    }
}
