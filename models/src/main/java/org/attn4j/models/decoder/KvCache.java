package org.attn4j.models.decoder;

import java.util.Arrays;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The keys and values a decoder has computed so far: per layer two tensors {@code [B, H_kv, capacity, d]},
 * allocated once in a scope of the cache's own and filled in place ({@code Ops.writeSlice}); slots past
 * {@link #length()} are capacity, never read. Rows of a batch may hold prompts of different lengths, left-padded:
 * row {@code b}'s first {@code padding[b]} slots are hidden from attention by a key mask and its positions count
 * from the first real token.
 *
 * <p>Not thread-safe: one generation at a time. Close it to free its memory.
 */
public final class KvCache implements AutoCloseable {
    private final Backend backend;
    private final Scope scope;
    private final Tensor[] keys;
    private final Tensor[] values;
    private final int[][] tokens;
    private final int batch;
    private final int capacity;
    private int[] padding;
    private int length;

    KvCache(Backend backend, DType dtype, int layers, int batch, int kvHeads, int capacity, int headDim) {
        if (batch < 1 || capacity < 1) {
            throw new IllegalArgumentException("KvCache: argument batch is " + batch + " and capacity " + capacity
                    + "; both must be at least 1");
        }
        this.backend = backend;
        this.scope = backend.newScope();
        this.keys = new Tensor[layers];
        this.values = new Tensor[layers];
        this.batch = batch;
        this.capacity = capacity;
        this.padding = new int[batch];
        this.tokens = new int[batch][capacity];
        Shape shape = Shape.of(batch, kvHeads, capacity, headDim);
        try {
            for (int l = 0; l < layers; l++) {
                keys[l] = scope.zeros(shape, dtype);
                values[l] = scope.zeros(shape, dtype);
            }
        } catch (RuntimeException e) {
            scope.close();
            throw e;
        }
    }

    /** @return how many positions are filled */
    public int length() {
        return length;
    }

    /** @return how many positions fit */
    public int capacity() {
        return capacity;
    }

    /** @return the batch size */
    public int batch() {
        return batch;
    }

    /**
     * @return the bytes its keys and values hold on the backend, filled or not:
     *     {@code 2 · layers · B · H_kv · capacity · d · dtype.byteSize()}
     */
    public long bytes() {
        long perLayer = keys[0].shape().size() * keys[0].dtype().byteSize();
        return 2L * keys.length * perLayer;
    }

    /**
     * Copies this cache's first {@code count} positions (every layer's keys and values, their token ids, the
     * padding) into an empty cache of the same model, which then holds {@code count} positions; the rest of its
     * capacity stays free. A prompt whose first {@code count} tokens this cache holds can then run its remaining
     * tokens against {@code target}.
     *
     * @param target an empty cache of the same layers, batch, heads, head size and dtype, with room for
     *     {@code count} positions; modified
     * @param count at most {@link #length()}, at least 0
     * @throws IllegalArgumentException if {@code target} is not empty, does not match or is too small
     */
    public void copyTo(KvCache target, int count) {
        if (target == this || target.length != 0) {
            throw new IllegalArgumentException("KvCache.copyTo: argument target must be another, empty cache; it "
                    + (target == this ? "is this one" : "holds " + target.length + " positions"));
        }
        if (count < 0 || count > length || count > target.capacity) {
            throw new IllegalArgumentException("KvCache.copyTo: argument count is " + count + "; this cache holds "
                    + length + " positions and the target has room for " + target.capacity);
        }
        Shape mine = keys[0].shape();
        Shape theirs = target.keys[0].shape();
        if (target.keys.length != keys.length || target.batch != batch || mine.dim(1) != theirs.dim(1)
                || mine.dim(3) != theirs.dim(3) || keys[0].dtype() != target.keys[0].dtype()) {
            throw new IllegalArgumentException("KvCache.copyTo: argument target holds " + target.keys.length
                    + " layers of " + theirs + " " + target.keys[0].dtype() + ", this cache " + keys.length
                    + " layers of " + mine + " " + keys[0].dtype() + "; only the capacity (axis 2) may differ");
        }
        if (count > 0) {
            try (Scope work = backend.newScope()) {
                for (int l = 0; l < keys.length; l++) {
                    target.keys[l] = target.scope.ops().writeSlice(target.keys[l], first(work, keys[l], count), 2,
                            0);
                    target.values[l] = target.scope.ops().writeSlice(target.values[l], first(work, values[l], count),
                            2, 0);
                }
            }
            for (int r = 0; r < batch; r++) {
                System.arraycopy(tokens[r], 0, target.tokens[r], 0, count);
            }
        }
        target.padding = padding.clone();
        target.length = count;
    }

    /** @return {@code x[:, :, :count, :]} */
    private Tensor first(Scope work, Tensor x, int count) {
        return count == capacity ? x : work.ops().split(x, new int[] {count, capacity - count}, 2).get(0);
    }

    /**
     * Declares the left padding of each row before the first forward: row {@code b}'s first {@code padding[b]}
     * tokens are fillers that no query sees.
     *
     * @param leftPadding one count per row, each at least 0
     * @throws IllegalStateException if the cache is not empty
     */
    public void setPadding(int... leftPadding) {
        if (length != 0) {
            throw new IllegalStateException("KvCache.setPadding: the cache holds " + length + " positions; reset it"
                    + " first");
        }
        if (leftPadding.length != batch) {
            throw new IllegalArgumentException("KvCache.setPadding: argument leftPadding has " + leftPadding.length
                    + " entries for a batch of " + batch);
        }
        for (int p : leftPadding) {
            if (p < 0 || p >= capacity) {
                throw new IllegalArgumentException("KvCache.setPadding: argument leftPadding "
                        + Arrays.toString(leftPadding) + " must lie in [0, " + capacity + ")");
            }
        }
        this.padding = leftPadding.clone();
    }

    /**
     * @param row a batch row
     * @return how many of its first positions are padding
     */
    public int padding(int row) {
        return padding[row];
    }

    /**
     * Forgets every position after the first {@code newLength}, for example to retry from a shorter prefix.
     *
     * @param newLength at most {@link #length()}
     */
    public void truncate(int newLength) {
        if (newLength < 0 || newLength > length) {
            throw new IllegalArgumentException("KvCache.truncate: argument newLength is " + newLength
                    + " but the cache holds " + length);
        }
        length = newLength;
    }

    /** Empties the cache and clears the padding; the memory stays allocated. */
    public void reset() {
        length = 0;
        padding = new int[batch];
    }

    /**
     * Writes the keys and values of {@code count} new positions of one layer at {@link #length()}; the length
     * moves on only with {@link #advance}, after every layer has written.
     *
     * @param layer the layer
     * @param k {@code [B, H_kv, count, d]}
     * @param v {@code [B, H_kv, count, d]}
     */
    void write(int layer, Tensor k, Tensor v) {
        int count = k.shape().dim(2);
        if (length + count > capacity) {
            throw new IllegalStateException("KvCache: " + count + " new positions do not fit after " + length
                    + " of capacity " + capacity);
        }
        keys[layer] = scope.ops().writeSlice(keys[layer], k, 2, length);
        values[layer] = scope.ops().writeSlice(values[layer], v, 2, length);
    }

    /**
     * @param count positions just written by every layer
     */
    void advance(int count) {
        length += count;
    }

    /**
     * Notes the token ids of the positions the current forward writes, so that they can be run again.
     *
     * @param ids {@code [B][count]}, the tokens at {@link #length()} onwards
     */
    void record(int[][] ids) {
        for (int r = 0; r < batch; r++) {
            System.arraycopy(ids[r], 0, tokens[r], length, ids[r].length);
        }
    }

    /**
     * @param ids {@code [B][count]} new tokens
     * @return every row's tokens of the filled positions followed by {@code ids}
     */
    int[][] history(int[][] ids) {
        int[][] all = new int[batch][];
        for (int r = 0; r < batch; r++) {
            all[r] = Arrays.copyOf(tokens[r], length + ids[r].length);
            System.arraycopy(ids[r], 0, all[r], length, ids[r].length);
        }
        return all;
    }

    /**
     * @param count new tokens of the current forward
     * @return one past the largest position among them, over the rows: the sequence length transformers gives a
     *     rotary embedding that depends on it ({@code max(position_ids) + 1})
     */
    int sequenceEnd(int count) {
        int least = Integer.MAX_VALUE;
        for (int p : padding) {
            least = Math.min(least, p);
        }
        return length + count - least;
    }

    /** @return layer {@code layer}'s keys, {@code [B, H_kv, capacity, d]} */
    Tensor keys(int layer) {
        return keys[layer];
    }

    /** @return layer {@code layer}'s values, {@code [B, H_kv, capacity, d]} */
    Tensor values(int layer) {
        return values[layer];
    }

    /**
     * @param row a batch row
     * @param step the index of a new token within the current forward
     * @return that token's position: its slot minus the row's padding
     */
    int position(int row, int step) {
        return length + step - padding[row];
    }

    /** @return whether some row is padded */
    boolean padded() {
        for (int p : padding) {
            if (p > 0) {
                return true;
            }
        }
        return false;
    }

    /** @return the key mask {@code [B, 1, 1, capacity]} hiding each row's padding, or null if there is none */
    Mask paddingMask() {
        if (!padded()) {
            return null;
        }
        boolean[] allowed = new boolean[batch * capacity];
        for (int b = 0; b < batch; b++) {
            Arrays.fill(allowed, b * capacity + padding[b], (b + 1) * capacity, true);
        }
        return Mask.of(Shape.of(batch, 1, 1, capacity), allowed);
    }

    @Override
    public void close() {
        scope.close();
    }
}
