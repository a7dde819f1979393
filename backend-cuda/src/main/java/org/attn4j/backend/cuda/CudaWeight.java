package org.attn4j.backend.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import jcuda.driver.CUdeviceptr;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractWeight;

/**
 * A bound parameter in device memory, uploaded once, in its storage type, in the layout of {@code weights.cu}:
 * <pre>
 *   F32         values: float[rows·K]
 *   F16, BF16   values: unsigned short[rows·K]
 *   Q8_0        values: signed char[rows·K]                  scales: binary16[rows·K/32]
 *   Q4_0        values: 16 bytes of nibbles per block of 32  scales: binary16[rows·K/32]
 *   Q4_K, Q6_K  values: GGUF's super-blocks as they are (144 and 210 bytes per 256 numbers), no scales
 * </pre>
 * GGUF's blocks put the binary16 scale before the quants (34 and 18 bytes), so a block's quants start at an odd
 * or merely even address; split into two arrays, the quants of any 4 (Q8_0) or 8 (Q4_0) consecutive numbers of a
 * block are one aligned 32-bit load. {@link #values()} joins them back into GGUF's bytes and decodes those. The
 * other GGUF block types (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q5_K, IQ4_NL, IQ4_XS) have no kernels here: they are
 * decoded once, here, a block of rows at a time ({@link WeightType#decode}, ggml's numbers bit for bit), and held
 * as F32 ({@link #held()}).
 */
final class CudaWeight extends AbstractWeight {
    /** Rows uploaded per copy while binding: bounds the heap a bind borrows to a few MB. */
    private static final int UPLOAD_BYTES = 1 << 22;

    /** The types held as they are; {@code CudaBackendProvider}'s {@code weightTypes()}. */
    static final Set<WeightType> NATIVE = Collections.unmodifiableSet(EnumSet.of(WeightType.F32, WeightType.F16,
            WeightType.BF16, WeightType.Q8_0, WeightType.Q4_0, WeightType.Q4_K, WeightType.Q6_K));

    private final WeightType held;
    private final Device device;
    private final CUdeviceptr values;
    private final CUdeviceptr scales;
    private final long valueBytes;
    private final long scaleBytes;

    private CudaWeight(CudaScope owner, Shape shape, WeightType type, WeightType held, Device device,
                       CUdeviceptr values, CUdeviceptr scales, long valueBytes, long scaleBytes) {
        super(owner, shape, type);
        this.held = held;
        this.device = device;
        this.values = values;
        this.scales = scales;
        this.valueBytes = valueBytes;
        this.scaleBytes = scaleBytes;
    }

    /**
     * Allocates the weight's device memory and uploads the values, a block of rows at a time, in the type itself when
     * it is {@link #NATIVE}, else decoded to F32.
     *
     * @param owner the scope that frees it
     * @param device the device
     * @param data exactly {@code type.byteSize(shape)} little-endian bytes from position 0, checked; not modified
     * @param type any type but F64
     * @param shape {@code [rows, K]}, at most {@code 2^31 - 1} numbers
     * @return the weight
     */
    static CudaWeight upload(CudaScope owner, Device device, ByteBuffer data, WeightType type, Shape shape) {
        int rows = shape.dim(0);
        int columns = shape.dim(1);
        long count = shape.size();
        WeightType held = NATIVE.contains(type) ? type : WeightType.F32;
        long valueBytes = valueBytes(held, count);
        long scaleBytes = split(held) ? count / 32 * 2 : 0;
        CUdeviceptr values = device.alloc("weight", valueBytes);
        CUdeviceptr scales = null;
        try {
            scales = scaleBytes > 0 ? device.alloc("weight", scaleBytes) : null;
            long rowBytes = type.rowBytes(columns);
            int rowsPerCopy = (int) Math.max(1, UPLOAD_BYTES / rowBytes);
            ByteBuffer in = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            for (int row = 0; row < rows; row += rowsPerCopy) {
                int n = Math.min(rowsPerCopy, rows - row);
                byte[] block = new byte[Math.toIntExact(n * rowBytes)];
                in.get(Math.toIntExact(row * rowBytes), block);
                long first = (long) row * columns;
                if (held != type) {
                    float[] decoded = type.decode(ByteBuffer.wrap(block), Shape.of(n, columns));
                    ByteBuffer f32 = ByteBuffer.allocate(4 * decoded.length).order(ByteOrder.LITTLE_ENDIAN);
                    f32.asFloatBuffer().put(decoded);
                    device.upload("weight", values, valueBytes(held, first), f32.array(), f32.capacity());
                } else if (!split(type)) {
                    device.upload("weight", values, valueBytes(type, first), block, block.length);
                } else {
                    Split split = split(type, block);
                    device.upload("weight", values, valueBytes(type, first), split.quants, split.quants.length);
                    device.upload("weight", scales, first / 32 * 2, split.scales, split.scales.length);
                }
            }
            return new CudaWeight(owner, shape, type, held, device, values, scales, valueBytes, scaleBytes);
        } catch (RuntimeException | Error e) {
            device.free(values);
            if (scales != null) {
                device.free(scales);
            }
            throw e;
        }
    }

    /** @return the bytes of {@code count} numbers' values (without the scales) */
    private static long valueBytes(WeightType type, long count) {
        return switch (type) {
            case F32 -> 4 * count;
            case F16, BF16 -> 2 * count;
            case Q8_0 -> count;
            case Q4_0 -> count / 2;
            case Q4_K, Q6_K -> count / 256 * type.blockBytes();
            case F64, I8 -> throw new IllegalArgumentException("weight: backend cuda holds no " + type
                    + " weights on the device");
            default -> throw new IllegalStateException(type + " is held as F32 on backend cuda");
        };
    }

    /** @return whether the type's binary16 scales are moved into an array of their own: Q8_0 and Q4_0 */
    private static boolean split(WeightType type) {
        return type == WeightType.Q8_0 || type == WeightType.Q4_0;
    }

    private record Split(byte[] quants, byte[] scales) {
    }

    /** GGUF blocks (scale, quants) into the quants and the scales, each block's in order. */
    private static Split split(WeightType type, byte[] blocks) {
        int blockBytes = type.blockBytes();
        int quantBytes = blockBytes - 2;
        int n = blocks.length / blockBytes;
        byte[] quants = new byte[n * quantBytes];
        byte[] scales = new byte[n * 2];
        for (int b = 0; b < n; b++) {
            scales[2 * b] = blocks[b * blockBytes];
            scales[2 * b + 1] = blocks[b * blockBytes + 1];
            System.arraycopy(blocks, b * blockBytes + 2, quants, b * quantBytes, quantBytes);
        }
        return new Split(quants, scales);
    }

    /** @return the type of the values in device memory: {@link #type()} when it is {@link #NATIVE}, else F32 */
    WeightType held() {
        return held;
    }

    /** @return the device pointer to the values */
    CUdeviceptr data() {
        return values;
    }

    /** @return the device pointer to the binary16 scales, or null for the float types */
    CUdeviceptr scales() {
        return scales;
    }

    @Override
    protected long heldBytes() {
        return valueBytes + scaleBytes;
    }

    @Override
    protected float[] values() {
        byte[] v = device.downloadBytes("toFloatArray", values, 0, Math.toIntExact(valueBytes));
        byte[] bytes = v;
        if (split(held)) {
            byte[] s = device.downloadBytes("toFloatArray", scales, 0, Math.toIntExact(scaleBytes));
            int blockBytes = held.blockBytes();
            int quantBytes = blockBytes - 2;
            int n = s.length / 2;
            bytes = new byte[n * blockBytes];
            for (int b = 0; b < n; b++) {
                bytes[b * blockBytes] = s[2 * b];
                bytes[b * blockBytes + 1] = s[2 * b + 1];
                System.arraycopy(v, b * quantBytes, bytes, b * blockBytes + 2, quantBytes);
            }
        }
        return held.decode(ByteBuffer.wrap(bytes), shape());
    }

    @Override
    protected void release() {
        device.free(values);
        if (scales != null) {
            device.free(scales);
        }
    }
}
