package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

class AbstractScopeTest {
    private final ToyBackend backend = new ToyBackend();

    @Test
    void closingAScopeReleasesEveryTensorOnceInReverseCreationOrder() {
        ToyBackend.ToyScope scope = backend.newScope();
        Tensor a = scope.zeros(Shape.of(1), DType.F32);
        scope.zeros(Shape.of(2), DType.F32);
        scope.close();
        scope.close();
        assertEquals(List.of("z[2]", "z[1]"), backend.released);
        assertFalse(a.isOpen());
        assertFalse(scope.isOpen());
    }

    @Test
    void aClosedTensorThrowsIllegalStateNamingTheOp() {
        ToyBackend.ToyScope scope = backend.newScope();
        Tensor a = scope.zeros(Shape.of(3), DType.F32);
        scope.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, a::toFloatArray);
        assertTrue(e.getMessage().startsWith("toFloatArray: tensor F32[3] is closed"), e.getMessage());
    }

    @Test
    void aClosedScopeRefusesNewTensors() {
        ToyBackend.ToyScope scope = backend.newScope();
        scope.close();
        assertThrows(IllegalStateException.class, () -> scope.zeros(Shape.of(1), DType.F32));
    }

    @Test
    void adoptedTensorsOutliveTheirFormerScope() {
        ToyBackend.ToyScope outer = backend.newScope();
        Tensor kept;
        try (ToyBackend.ToyScope inner = backend.newScope()) {
            kept = inner.zeros(Shape.of(4), DType.F64);
            inner.zeros(Shape.of(5), DType.F64);
            assertSame(kept, outer.adopt(kept));
        }
        assertTrue(kept.isOpen());
        assertEquals(List.of("z[5]"), backend.released);
        assertEquals(1, outer.ownedCount());
        outer.close();
        assertFalse(kept.isOpen());
    }

    @Test
    void operandFromAnotherBackendIsRejectedNamingBoth() {
        ToyBackend other = new ToyBackend();
        try (ToyBackend.ToyScope mine = backend.newScope(); ToyBackend.ToyScope theirs = other.newScope()) {
            Tensor foreign = theirs.zeros(Shape.of(2), DType.F32);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> mine.operand("add", "b", foreign, ToyBackend.ToyTensor.class));
            assertTrue(e.getMessage().startsWith("add: argument b [2] belongs to backend toy"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> mine.operand("add", "b", null, ToyBackend.ToyTensor.class));
        }
    }

    @Test
    void attentionShapeAcceptsDifferingLengthsAndValueWidth() {
        try (ToyBackend.ToyScope s = backend.newScope()) {
            Tensor q = s.zeros(Shape.of(2, 3, 5, 8), DType.F32);
            Tensor k = s.zeros(Shape.of(2, 3, 7, 8), DType.F32);
            Tensor v = s.zeros(Shape.of(2, 3, 7, 4), DType.F32);
            ShapeChecks.AttentionShape shape = ShapeChecks.attention(q, k, v,
                    AttentionOptions.defaults().withMask(Mask.keyPadding(new int[] {7, 3}, 7)));
            assertEquals(6, shape.problems());
            assertEquals(Shape.of(2, 3, 5, 7), shape.weights());
            assertEquals(Shape.of(2, 3, 5, 4), shape.output());
        }
    }

    @Test
    void attentionShapeMismatchesNameTheArgumentAndShapes() {
        try (ToyBackend.ToyScope s = backend.newScope()) {
            Tensor q = s.zeros(Shape.of(1, 5, 8), DType.F32);
            Tensor k = s.zeros(Shape.of(1, 7, 6), DType.F32);
            Tensor v = s.zeros(Shape.of(1, 7, 4), DType.F32);
            Tensor v64 = s.zeros(Shape.of(1, 7, 4), DType.F64);
            Tensor k8 = s.zeros(Shape.of(1, 7, 8), DType.F32);
            AttentionOptions none = AttentionOptions.defaults();
            String dk = assertThrows(IllegalArgumentException.class,
                    () -> ShapeChecks.attention(q, k, v, none)).getMessage();
            assertTrue(dk.contains("argument k has shape [1, 7, 6] but q has shape [1, 5, 8]"), dk);
            String dtype = assertThrows(IllegalArgumentException.class,
                    () -> ShapeChecks.attention(q, k8, v64, none)).getMessage();
            assertTrue(dtype.contains("argument v has dtype F64"), dtype);
            String mask = assertThrows(IllegalArgumentException.class, () -> ShapeChecks.attention(q, k8, v,
                    none.withMask(Mask.causal(5, 6)))).getMessage();
            assertTrue(mask.contains("argument mask has shape [5, 6]"), mask);
        }
    }
}
