package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

/** The off-heap bytes behind this backend's tensors: held while their scope is open, all returned when it closes. */
class NativeMemoryTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();

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
