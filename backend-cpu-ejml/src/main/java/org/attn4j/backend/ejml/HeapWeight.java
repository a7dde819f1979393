package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractWeight;

/**
 * A weight bound to the heap backend: its numbers in the {@link WeightStorage} chosen for its type when it was bound
 * (F32 in the SIMD micro-kernel's panels, F64 row-major, …), read only by {@code linear} and {@code embedding}.
 */
final class HeapWeight extends AbstractWeight {
    private volatile WeightStorage storage;

    /**
     * @param owner the scope that frees it
     * @param data the checked bytes, read only during this call
     * @param type their storage type
     * @param shape {@code [rows, columns]}
     */
    HeapWeight(HeapScope owner, ByteBuffer data, WeightType type, Shape shape) {
        super(owner, shape, type);
        this.storage = WeightStorage.bind(data, type, shape, owner.parallel());
    }

    /** @return the storage; the caller has pinned the weight as an operand of the running op */
    WeightStorage storage() {
        return storage;
    }

    @Override
    protected long heldBytes() {
        return storage.heldBytes();
    }

    @Override
    protected float[] values() {
        return storage.values();
    }

    @Override
    protected void release() {
        storage = null;
    }
}
