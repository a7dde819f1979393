package org.attn4j.backend.ejml;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The arrays of released tensors, kept per thread for the next op that asks for one of the same length, so that a
 * model's forward calls, which allocate the same activations every time, allocate nothing in steady state. An array
 * comes back here when the last tensor holding it is released ({@link Buffer}), on the thread that released it.
 * Each thread keeps at most {@link #CAPACITY_BYTES} and {@link #PER_LENGTH} arrays of one length; arrays shorter
 * than {@link #MIN_LENGTH} are left to the allocator, which makes them as cheaply.
 */
final class ArrayPool {
    /** Arrays below this length are not kept. */
    static final int MIN_LENGTH = 256;
    /** Arrays of one length kept per thread at most. */
    static final int PER_LENGTH = 32;
    /** Bytes kept per thread at most: an eighth of the heap, and no more than 256 MiB. */
    static final long CAPACITY_BYTES = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);

    private static final ThreadLocal<ArrayPool> POOL = ThreadLocal.withInitial(ArrayPool::new);

    private final Map<Integer, ArrayDeque<float[]>> floats = new HashMap<>();
    private final Map<Integer, ArrayDeque<double[]>> doubles = new HashMap<>();
    private long bytes;

    private ArrayPool() {
    }

    /**
     * @param length the length
     * @param zeroed whether the caller needs zeros (else it writes every element before reading any)
     * @return a kept array of that length, or a new one
     */
    static float[] floats(int length, boolean zeroed) {
        if (length >= MIN_LENGTH) {
            ArrayPool pool = POOL.get();
            ArrayDeque<float[]> kept = pool.floats.get(length);
            float[] a = kept == null ? null : kept.pollLast();
            if (a != null) {
                pool.bytes -= 4L * length;
                if (zeroed) {
                    java.util.Arrays.fill(a, 0f);
                }
                return a;
            }
        }
        return new float[length];
    }

    /**
     * @param length the length
     * @param zeroed whether the caller needs zeros
     * @return a kept array of that length, or a new one
     */
    static double[] doubles(int length, boolean zeroed) {
        if (length >= MIN_LENGTH) {
            ArrayPool pool = POOL.get();
            ArrayDeque<double[]> kept = pool.doubles.get(length);
            double[] a = kept == null ? null : kept.pollLast();
            if (a != null) {
                pool.bytes -= 8L * length;
                if (zeroed) {
                    java.util.Arrays.fill(a, 0.0);
                }
                return a;
            }
        }
        return new double[length];
    }

    /**
     * Keeps an array nothing refers to any more, if there is room.
     *
     * @param array a {@code float[]} or {@code double[]} no one reads or writes again
     */
    static void recycle(Object array) {
        if (array instanceof float[] f) {
            if (f.length >= MIN_LENGTH) {
                POOL.get().keep(POOL.get().floats, f, 4L * f.length);
            }
        } else if (array instanceof double[] d && d.length >= MIN_LENGTH) {
            POOL.get().keep(POOL.get().doubles, d, 8L * d.length);
        }
    }

    private <A> void keep(Map<Integer, ArrayDeque<A>> byLength, A array, long size) {
        if (bytes + size > CAPACITY_BYTES) {
            return;
        }
        int length = (int) (size / (array instanceof float[] ? 4 : 8));
        ArrayDeque<A> kept = byLength.computeIfAbsent(length, k -> new ArrayDeque<>());
        if (kept.size() < PER_LENGTH) {
            kept.addLast(array);
            bytes += size;
        }
    }

    /**
     * An array shared by the tensors that view it ({@code reshape}, a same-type {@code cast}): it goes back to the
     * pool when the last of them is released.
     */
    static final class Buffer {
        private final Object array;
        private int holders = 1;

        /** @param array a new array, or one from the pool, that only this buffer refers to */
        Buffer(Object array) {
            this.array = array;
        }

        /** @return the {@code float[]} or {@code double[]} */
        Object array() {
            return array;
        }

        /** One more tensor holds the array. */
        synchronized void retain() {
            holders++;
        }

        /** One tensor lets go; the last one returns the array to this thread's pool. */
        void release() {
            boolean last;
            synchronized (this) {
                last = --holders == 0;
            }
            if (last) {
                recycle(array);
            }
        }
    }
}
