package org.attn4j.backend.nd4j;

import static org.attn4j.backend.nd4j.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceOps;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ops this backend computes with host loops or copies instead of libnd4j calls, against the forms they
 * replace: RoPE, whole and partial, scaled or not, against the spi's composition in F64 (its F32 result that
 * composition rounded once), split on both of its routes (one copy per slab up to 64 slabs, a libnd4j view beyond)
 * and reshape against the elements in order.
 */
class HostLoopsTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();

    @ParameterizedTest
    @EnumSource(RopeLayout.class)
    void ropeOnTheHostIsTheF64CompositionRoundedOnce(RopeLayout layout) {
        Shape shape = Shape.of(2, 3, 5, 16);
        for (RotaryEmbedding rotary : List.of(RotaryEmbedding.of(layout, 10000, 16),
                RotaryEmbedding.of(layout, 500, 10).withAttentionScaling(1.2))) {
            try (Scope s = BACKEND.newScope()) {
                double[] values = Oracle.random(1, (int) shape.size());
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) values[i];
                }
                Tensor wide = s.tensor(values, shape, DType.F64);
                double[] expected = ReferenceOps.rope(s.ops(), wide, rotary, 7).toDoubleArray();
                assertClose(rotary + " F64", expected, s.ops().rope(wide, rotary, 7).toDoubleArray(), 0);
                float[] rounded = s.ops().rope(s.tensor(values, shape, DType.F32), rotary, 7).toFloatArray();
                for (int i = 0; i < expected.length; i++) {
                    assertEquals((float) expected[i], rounded[i], rotary + " F32 at " + i);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64, 65})
    void splitCopiesEachPieceOfEverySlab(int outer) {
        Shape shape = Shape.of(outer, 7, 3);
        double[] x = Oracle.random(2, (int) shape.size());
        try (Scope s = BACKEND.newScope()) {
            List<Tensor> pieces = s.ops().split(s.tensor(x, shape, DType.F64), new int[] {2, 4, 1}, 1);
            int start = 0;
            for (Tensor piece : pieces) {
                int size = piece.shape().dim(1);
                double[] expected = new double[outer * size * 3];
                for (int o = 0; o < outer; o++) {
                    System.arraycopy(x, (o * 7 + start) * 3, expected, o * size * 3, size * 3);
                }
                assertEquals(Shape.of(outer, size, 3), piece.shape());
                assertArrayEquals(expected, piece.toDoubleArray());
                start += size;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void reshapeKeepsTheElementsInOrder(DType dtype) {
        double[] x = Oracle.random(3, 24);
        try (Scope s = BACKEND.newScope()) {
            Tensor r = s.ops().reshape(s.tensor(x, Shape.of(2, 3, 4), dtype), 4, -1);
            assertEquals(Shape.of(4, 6), r.shape());
            assertClose("reshape", s.tensor(x, Shape.of(24), dtype).toDoubleArray(), r.toDoubleArray(), 0);
        }
    }
}
