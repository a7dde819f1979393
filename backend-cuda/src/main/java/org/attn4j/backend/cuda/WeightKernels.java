package org.attn4j.backend.cuda;

import org.attn4j.api.Activation;
import org.attn4j.api.WeightType;

/** Which kernel of {@code weights.cu} reads a weight of each storage type, and the codes of its activations. */
final class WeightKernels {
    private WeightKernels() {
    }

    /**
     * @param type the type of the weight's values in device memory ({@code CudaWeight.held()}), any but F64
     * @param gemv the kernel for a few input rows, else the tiled one
     * @return {@code attn4j_linear_gemv_<type>} or {@code attn4j_linear_tiled_<type>}
     */
    static Kernel linear(WeightType type, boolean gemv) {
        return switch (type) {
            case F32 -> gemv ? Kernel.LINEAR_GEMV_F32 : Kernel.LINEAR_TILED_F32;
            case F16 -> gemv ? Kernel.LINEAR_GEMV_F16 : Kernel.LINEAR_TILED_F16;
            case BF16 -> gemv ? Kernel.LINEAR_GEMV_BF16 : Kernel.LINEAR_TILED_BF16;
            case Q8_0 -> gemv ? Kernel.LINEAR_GEMV_Q8_0 : Kernel.LINEAR_TILED_Q8_0;
            case Q4_0 -> gemv ? Kernel.LINEAR_GEMV_Q4_0 : Kernel.LINEAR_TILED_Q4_0;
            case Q4_K -> gemv ? Kernel.LINEAR_GEMV_Q4_K : Kernel.LINEAR_TILED_Q4_K;
            case Q6_K -> gemv ? Kernel.LINEAR_GEMV_Q6_K : Kernel.LINEAR_TILED_Q6_K;
            case F64, I8 -> throw new IllegalArgumentException("linear: backend cuda holds no " + type
                    + " weights on the device");
            default -> throw new IllegalStateException("linear: a " + type + " weight is held as F32");
        };
    }

    /**
     * @param type the type of the table's values in device memory ({@code CudaWeight.held()}), any but F64
     * @return {@code attn4j_gather_<type>}
     */
    static Kernel gather(WeightType type) {
        return switch (type) {
            case F32 -> Kernel.GATHER_F32;
            case F16 -> Kernel.GATHER_F16;
            case BF16 -> Kernel.GATHER_BF16;
            case Q8_0 -> Kernel.GATHER_Q8_0;
            case Q4_0 -> Kernel.GATHER_Q4_0;
            case Q4_K -> Kernel.GATHER_Q4_K;
            case Q6_K -> Kernel.GATHER_Q6_K;
            case F64, I8 -> throw new IllegalArgumentException("embedding: backend cuda holds no " + type
                    + " weights on the device");
            default -> throw new IllegalStateException("embedding: a " + type + " table is held as F32");
        };
    }

    /**
     * @param activation an epilogue's activation
     * @return its {@code ATTN4J_ACT_*} code in {@code attn4j_common.cuh}
     */
    static int activation(Activation activation) {
        return switch (activation) {
            case IDENTITY -> 0;
            case RELU -> 1;
            case GELU -> 2;
            case GELU_TANH -> 3;
            case SILU -> 4;
        };
    }
}
