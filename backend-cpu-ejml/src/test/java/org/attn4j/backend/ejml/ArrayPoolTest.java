package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

/**
 * Released tensors' arrays come back for later results, and only once nothing holds them: a view ({@code reshape},
 * a same-type {@code cast}) keeps its array out of the pool after its source was released, and an array that comes
 * back is zeroed for the ops that need zeros; a full pool gives up the arrays of lengths no one asked for lately.
 */
class ArrayPoolTest {
    private static final int N = 4 * ArrayPool.MIN_LENGTH;

    private static float[] ramp(float from) {
        float[] x = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = from + i;
        }
        return x;
    }

    @Test
    void aReleasedResultsArrayIsReusedForTheNextResultOfItsLength() {
        float[] first = ArrayPool.floats(N, false);
        ArrayPool.recycle(first);
        assertSame(first, ArrayPool.floats(N, false), "the same thread gets the kept array back");
    }

    @Test
    void aFullPoolGivesUpTheArraysOfALengthNoOneAskedForLately() {
        long[] now = {0};
        ArrayPool pool = new ArrayPool(8L * N, () -> now[0]);
        float[] a = new float[N];
        pool.keep(N, a);
        pool.keep(N, new float[N]);
        now[0] += 2 * ArrayPool.STALE_NANOS;
        double[] other = new double[N];

        pool.keep(-N, other);

        assertEquals(8L * N, pool.bytes(), "only the doubles are kept");
        assertSame(other, pool.doubleArray(N, false));
        assertNotSame(a, pool.floatArray(N, false));
    }

    @Test
    void aFullPoolKeepsTheArraysOfALengthAskedForLately() {
        long[] now = {0};
        ArrayPool pool = new ArrayPool(8L * N, () -> now[0]);
        float[] a = new float[N];
        float[] b = new float[N];
        pool.keep(N, a);
        pool.keep(N, b);
        now[0] += 2 * ArrayPool.STALE_NANOS;
        assertSame(b, pool.floatArray(N, false));
        float[] twice = new float[2 * N];

        pool.keep(2 * N, twice);

        assertEquals(4L * N, pool.bytes(), "the longer array found no room");
        assertNotSame(twice, pool.floatArray(2 * N, false));
        assertSame(a, pool.floatArray(N, false));
    }

    @Test
    void aViewKeepsItsArrayAfterItsSourceIsReleased() {
        try (Scope outer = ScopedTest.BACKEND.newScope()) {
            Tensor view;
            try (Scope inner = ScopedTest.BACKEND.newScope()) {
                Tensor x = inner.tensor(ramp(1), Shape.of(N));
                view = outer.ops().reshape(x, 4, N / 4);
                outer.ops().cast(view, DType.F32);
            }
            for (int i = 0; i < 4; i++) {
                try (Scope other = ScopedTest.BACKEND.newScope()) {
                    other.tensor(ramp(-1000), Shape.of(N));
                    other.ops().scale(other.tensor(ramp(7), Shape.of(N)), 3);
                }
            }
            assertArrayEquals(ramp(1), view.toFloatArray(), "the view still reads its source's values");
        }
    }

    @Test
    void zerosFromThePoolAreZeros() {
        try (Scope s = ScopedTest.BACKEND.newScope()) {
            try (Scope filled = ScopedTest.BACKEND.newScope()) {
                filled.tensor(ramp(5), Shape.of(N));
            }
            assertArrayEquals(new float[N], s.zeros(Shape.of(N), DType.F32).toFloatArray());
        }
    }
}
