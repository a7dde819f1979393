package org.attn4j.models.parameters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.Test;

/** Stacking tensors along their rows keeps each one's storage, whether its rows lie in one buffer or in several. */
class HostTensorConcatTest {
    private static final int COLUMNS = 64;

    @Test
    void rowsTakenInAnotherOrderStackInThatOrderWithoutLeavingTheirBlocks() {
        float[] a = numbers(3, 1);
        float[] b = numbers(2, 2);
        HostTensor first = quantized(a, 3);
        HostTensor reordered = HostTensor.ofRowBlocks(List.of(first.rows(2, 3), first.rows(0, 1), first.rows(1, 2)));
        HostTensor stacked = HostTensor.concatRows(List.of(reordered, quantized(b, 2)));

        assertEquals(WeightType.Q8_0, stacked.type());
        assertEquals(Shape.of(5, COLUMNS), stacked.shape());
        float[] decodedA = first.toFloatArray();
        float[] expected = new float[5 * COLUMNS];
        int[] order = {2, 0, 1};
        for (int r = 0; r < 3; r++) {
            System.arraycopy(decodedA, order[r] * COLUMNS, expected, r * COLUMNS, COLUMNS);
        }
        System.arraycopy(quantized(b, 2).toFloatArray(), 0, expected, 3 * COLUMNS, 2 * COLUMNS);
        assertArrayEquals(expected, stacked.toFloatArray());
    }

    @Test
    void partsOfDifferentTypesStackInF32() {
        float[] a = numbers(2, 3);
        HostTensor stacked = HostTensor.concatRows(List.of(quantized(a, 2), HostTensor.of(numbers(1, 4), 1, COLUMNS)));

        assertEquals(WeightType.F32, stacked.type());
        float[] values = stacked.toFloatArray();
        assertArrayEquals(quantized(a, 2).toFloatArray(), Arrays.copyOf(values, 2 * COLUMNS));
        assertArrayEquals(numbers(1, 4), Arrays.copyOfRange(values, 2 * COLUMNS, 3 * COLUMNS));
    }

    private static HostTensor quantized(float[] values, int rows) {
        Shape shape = Shape.of(rows, COLUMNS);
        return HostTensor.wrap(shape, WeightType.Q8_0, WeightType.Q8_0.encode(values, shape));
    }

    private static float[] numbers(int rows, long seed) {
        Random random = new Random(seed);
        float[] values = new float[rows * COLUMNS];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return values;
    }
}
