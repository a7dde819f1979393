package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ContractTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();

    private static void assertMessage(Class<? extends RuntimeException> type, Executable call, String... parts) {
        RuntimeException e = assertThrows(type, call);
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "message \"" + e.getMessage() + "\" lacks \"" + part + "\"");
        }
    }

    @Test
    void badShapesAndDTypesThrowIllegalArgumentNamingOpArgumentAndShapes() {
        try (Scope scope = BACKEND.newScope()) {
            Ops ops = scope.ops();
            Tensor a = scope.zeros(Shape.of(2, 3), DType.F32);
            Tensor b = scope.zeros(Shape.of(4, 5), DType.F32);
            Tensor d = scope.zeros(Shape.of(2, 3), DType.F64);
            assertMessage(IllegalArgumentException.class, () -> ops.matmul(a, b), "matmul", "[4, 5]", "[2, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.add(a, b), "add", "[4, 5]", "[2, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.mul(a, d), "mul", "F64", "F32");
            assertMessage(IllegalArgumentException.class, () -> ops.sum(a, 2, false), "sum", "axis", "[2, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.reshape(a, 4, 2), "reshape", "[2, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.permute(a, 0, 0), "permute", "[2, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.linear(a, b, null), "linear", "weight");
            assertMessage(IllegalArgumentException.class, () -> ops.concat(List.of(a, b), 0), "concat", "[4, 5]");
            assertMessage(IllegalArgumentException.class, () -> ops.split(a, new int[] {1, 1}, 1), "split", "sizes");
            assertMessage(IllegalArgumentException.class, () -> ops.embedding(a, new int[] {2}, Shape.of(1)),
                    "embedding", "ids[0]");
            assertMessage(IllegalArgumentException.class, () -> ops.dropout(a, 1.5, 0), "dropout", "1.5");
            assertMessage(IllegalArgumentException.class, () -> ops.layerNorm(a, b, null, 1e-5), "layerNorm", "gamma");
            assertMessage(IllegalArgumentException.class, () -> scope.tensor(new float[5], Shape.of(2, 3)),
                    "tensor", "5", "[2, 3]");
            Tensor q = scope.zeros(Shape.of(1, 2, 4), DType.F32);
            Tensor k = scope.zeros(Shape.of(1, 3, 5), DType.F32);
            assertMessage(IllegalArgumentException.class, () -> ops.attention(q, k, k, AttentionOptions.defaults()),
                    "attention", "[1, 3, 5]", "[1, 2, 4]");
            Tensor kk = scope.zeros(Shape.of(1, 3, 4), DType.F32);
            AttentionOptions badMask = AttentionOptions.defaults().withMask(Mask.causal(3, 3));
            assertMessage(IllegalArgumentException.class, () -> ops.attention(q, kk, kk, badMask),
                    "attention", "mask", "[3, 3]");
            assertMessage(IllegalArgumentException.class, () -> ops.attention(q, kk, kk, null), "attention", "options");
        }
    }

    @Test
    void closedScopeAndItsTensorsThrowIllegalState() {
        Scope scope = BACKEND.newScope();
        Ops ops = scope.ops();
        Tensor t = scope.tensor(new float[] {1, 2}, Shape.of(2));
        scope.close();
        scope.close();
        assertFalse(scope.isOpen());
        assertFalse(t.isOpen());
        assertEquals(Shape.of(2), t.shape());
        assertMessage(IllegalStateException.class, t::toFloatArray, "closed");
        assertMessage(IllegalStateException.class, () -> scope.zeros(Shape.of(1), DType.F32), "closed");
        assertMessage(IllegalStateException.class, () -> ops.exp(t), "exp", "closed");
        try (Scope other = BACKEND.newScope()) {
            assertMessage(IllegalStateException.class, () -> other.ops().exp(t), "exp", "closed");
        }
    }

    @Test
    void tensorsOutliveOnlyTheirScopeAndAdoptMovesThem() {
        try (Scope outer = BACKEND.newScope()) {
            Tensor kept;
            Tensor dropped;
            try (Scope inner = BACKEND.newScope()) {
                Tensor x = outer.tensor(new double[] {1, 2, 3}, Shape.of(3));
                kept = outer.adopt(inner.ops().exp(x));
                dropped = inner.ops().scale(x, 2);
            }
            assertTrue(kept.isOpen());
            assertFalse(dropped.isOpen());
            assertEquals(Math.exp(3), kept.toDoubleArray()[2], 1e-12);
        }
    }

    @Test
    void closingAScopeReturnsEveryNativeByteItsTensorsHeld() {
        Nd4jBackend backend = (Nd4jBackend) BACKEND;
        long before = backend.liveBytes();
        try (Scope scope = BACKEND.newScope()) {
            Tensor x = scope.zeros(Shape.of(10, 10), DType.F64);
            scope.ops().softmax(scope.ops().matmul(x, x), -1);
            assertTrue(backend.liveBytes() >= before + 3 * 800, "three 10x10 F64 tensors are live");
        }
        assertEquals(before, backend.liveBytes());
    }
}
