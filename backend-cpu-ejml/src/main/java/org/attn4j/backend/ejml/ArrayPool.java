package org.attn4j.backend.ejml;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The arrays of released tensors, kept per thread for the next op that asks for one of the same length, so that a
 * model's forward calls, which allocate the same activations every time, allocate nothing in steady state. An array
 * comes back here when the last tensor holding it is released ({@link Buffer}), on the thread that released it.
 * Each thread keeps at most {@link #CAPACITY_BYTES} and {@link #PER_LENGTH} arrays of one length; arrays shorter
 * than {@link #MIN_LENGTH} are left to the allocator, which makes them as cheaply. When an array finds the pool full,
 * the lengths no op has asked for in the last {@link #STALE_NANOS} give their arrays up first: a thread that ran one
 * model and then another (or one batch shape, then another) would otherwise keep the first one's arrays for good and
 * allocate every array of the second anew.
 */
final class ArrayPool {
    /** Arrays below this length are not kept. */
    static final int MIN_LENGTH = 256;
    /** Arrays of one length kept per thread at most. */
    static final int PER_LENGTH = 32;
    /** Bytes kept per thread at most: an eighth of the heap, and no more than 256 MiB. */
    static final long CAPACITY_BYTES = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
    /** A length not asked for in this long is stale: its arrays make room for others when the pool is full. */
    static final long STALE_NANOS = 1_000_000_000L;

    private static final ThreadLocal<ArrayPool> POOL =
            ThreadLocal.withInitial(() -> new ArrayPool(CAPACITY_BYTES, System::nanoTime));

    /** The arrays kept, {@code float[]} by their length and {@code double[]} by their length negated. */
    private final Map<Integer, Kept> kept = new HashMap<>();
    private final long capacity;
    private final LongSupplier clock;
    private long bytes;
    private long lastSweep;

    /**
     * @param capacity the bytes kept at most
     * @param clock the time in nanoseconds, which decides what is stale
     */
    ArrayPool(long capacity, LongSupplier clock) {
        this.capacity = capacity;
        this.clock = clock;
        this.lastSweep = clock.getAsLong();
    }

    /**
     * @param length the length
     * @param zeroed whether the caller needs zeros (else it writes every element before reading any)
     * @return a kept array of that length, or a new one
     */
    static float[] floats(int length, boolean zeroed) {
        return length >= MIN_LENGTH ? POOL.get().floatArray(length, zeroed) : new float[length];
    }

    /**
     * @param length the length
     * @param zeroed whether the caller needs zeros
     * @return a kept array of that length, or a new one
     */
    static double[] doubles(int length, boolean zeroed) {
        return length >= MIN_LENGTH ? POOL.get().doubleArray(length, zeroed) : new double[length];
    }

    /**
     * Keeps an array nothing refers to any more, if there is room.
     *
     * @param array a {@code float[]} or {@code double[]} no one reads or writes again
     */
    static void recycle(Object array) {
        if (array instanceof float[] f && f.length >= MIN_LENGTH) {
            POOL.get().keep(f.length, f);
        } else if (array instanceof double[] d && d.length >= MIN_LENGTH) {
            POOL.get().keep(-d.length, d);
        }
    }

    /** @return this pool's kept array of that length (zeroed if asked), or a new one */
    float[] floatArray(int length, boolean zeroed) {
        float[] a = (float[]) take(length);
        if (a == null) {
            return new float[length];
        }
        if (zeroed) {
            Arrays.fill(a, 0f);
        }
        return a;
    }

    /** @return this pool's kept array of that length (zeroed if asked), or a new one */
    double[] doubleArray(int length, boolean zeroed) {
        double[] a = (double[]) take(-length);
        if (a == null) {
            return new double[length];
        }
        if (zeroed) {
            Arrays.fill(a, 0.0);
        }
        return a;
    }

    /**
     * Keeps an array in this pool, if there is room, after giving up the stale lengths' arrays if there is not.
     *
     * @param key the array's length, negated for a {@code double[]}
     * @param array the array, no longer referred to
     */
    void keep(int key, Object array) {
        long size = bytesOf(key);
        if (bytes + size > capacity) {
            dropStale();
        }
        Kept k = kept.computeIfAbsent(key, x -> new Kept(clock.getAsLong()));
        if (k.arrays.size() < PER_LENGTH && bytes + size <= capacity) {
            k.arrays.addLast(array);
            bytes += size;
        }
    }

    /** @return the bytes this pool keeps */
    long bytes() {
        return bytes;
    }

    private Object take(int key) {
        Kept k = kept.get(key);
        if (k == null) {
            return null;
        }
        k.asked = clock.getAsLong();
        Object a = k.arrays.pollLast();
        if (a != null) {
            bytes -= bytesOf(key);
        }
        return a;
    }

    /** Forgets the lengths not asked for in {@link #STALE_NANOS}, at most once in an eighth of that. */
    private void dropStale() {
        long now = clock.getAsLong();
        if (now - lastSweep < STALE_NANOS / 8) {
            return;
        }
        lastSweep = now;
        for (Iterator<Map.Entry<Integer, Kept>> it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Kept> e = it.next();
            if (now - e.getValue().asked > STALE_NANOS) {
                bytes -= e.getValue().arrays.size() * bytesOf(e.getKey());
                it.remove();
            }
        }
    }

    private static long bytesOf(int key) {
        return key > 0 ? 4L * key : -8L * key;
    }

    /** The arrays of one length, and when an op last asked for one. */
    private static final class Kept {
        final ArrayDeque<Object> arrays = new ArrayDeque<>();
        long asked;

        Kept(long asked) {
            this.asked = asked;
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
