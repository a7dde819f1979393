package org.attn4j.models.parameters;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.attn4j.api.WeightType;

/**
 * A llama.cpp file type ({@code llama_ftype}, written as {@code general.file_type}): the name {@code llama-quantize}
 * gives it, its number, and, for {@link #Q4_K_M}, {@link #Q5_K_M}, {@link #Q4_K_S}, {@link #Q6_K} and {@link #Q8_0},
 * the storage type its quantizer chooses for each tensor ({@code llama_tensor_get_type} of llama.cpp's
 * {@code src/llama-quant.cpp}), which attn4j applies when it quantizes a checkpoint at load. A mix names a default
 * type ({@code Q4_K} for the {@code Q4_K} mixes, {@code Q5_K}, {@code Q6_K}, {@code Q8_0}) and raises some tensors
 * above it:
 * <pre>
 *   output.weight, and token_embd when the model has no output.weight (tied):
 *       Q8_0 when the row length is not a multiple of the default type's block, else Q6_K (Q8_0 in the Q8_0 mix)
 *   attn_v, attn_qkv of layer i of n:   Q4_K_M, Q5_K_M: Q6_K if moreBits(i, n);  Q4_K_S: Q5_K if i &lt; 4
 *   ffn_down of layer i of n:           Q4_K_M, Q5_K_M: Q6_K if moreBits(i, n);  Q4_K_S: Q5_K if i &lt; n/8
 *   every other matrix (token_embd when not tied included): the default type
 *   moreBits(i, n) = i &lt; n/8  ||  i &gt;= 7n/8  ||  (i - n/8) % 3 == 2          (integer division)
 * </pre>
 * then, for a tensor whose rows (its {@code ne[0]}) are not a whole number of the chosen type's blocks, llama.cpp's
 * fallback {@code Q4_K → Q5_0}, {@code Q5_K → Q5_1}, {@code Q6_K → Q8_0}, and {@code F16} when even the fallback's
 * 32 do not divide them. 1-D tensors (norms, biases) and position embeddings are never quantized ({@link Role}).
 * Not applied: the rules for mixture-of-experts models (none of attn4j's families), Falcon's, and the raise of
 * {@code attn_v} from {@code Q4_K} to {@code Q5_K} that llama.cpp gives Llama models of the 70B size class. An
 * {@code attn_qkv} counts as an {@code attn_v}, as in current llama.cpp (older versions gave it {@code Q5_K} in
 * {@code Q4_K_M} and {@code Q6_K} in {@code Q5_K_M}).
 */
public enum QuantMix {
    /** {@code LLAMA_FTYPE_ALL_F32}. */
    F32(0, null),
    /** {@code LLAMA_FTYPE_MOSTLY_F16}. */
    F16(1, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_0}. */
    Q4_0(2, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_1}. */
    Q4_1(3, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q8_0}: every matrix Q8_0. */
    Q8_0(7, WeightType.Q8_0),
    /** {@code LLAMA_FTYPE_MOSTLY_Q5_0}. */
    Q5_0(8, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q5_1}. */
    Q5_1(9, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q2_K}. */
    Q2_K(10, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q3_K_S}. */
    Q3_K_S(11, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q3_K_M}. */
    Q3_K_M(12, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q3_K_L}. */
    Q3_K_L(13, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_K_S}: Q4_K, Q5_K for the first layers' attn_v and ffn_down. */
    Q4_K_S(14, WeightType.Q4_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_K_M}: Q4_K, Q6_K for the output and half the attn_v and ffn_down. */
    Q4_K_M(15, WeightType.Q4_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q5_K_S}. */
    Q5_K_S(16, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q5_K_M}: Q5_K, Q6_K for the output and half the attn_v and ffn_down. */
    Q5_K_M(17, WeightType.Q5_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q6_K}: every matrix Q6_K. */
    Q6_K(18, WeightType.Q6_K),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ2_XXS}. */
    IQ2_XXS(19, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ2_XS}. */
    IQ2_XS(20, null),
    /** {@code LLAMA_FTYPE_MOSTLY_Q2_K_S}. */
    Q2_K_S(21, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ3_XS}. */
    IQ3_XS(22, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ3_XXS}. */
    IQ3_XXS(23, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ1_S}. */
    IQ1_S(24, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ4_NL}. */
    IQ4_NL(25, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ3_S}. */
    IQ3_S(26, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ3_M}. */
    IQ3_M(27, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ2_S}. */
    IQ2_S(28, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ2_M}. */
    IQ2_M(29, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ4_XS}. */
    IQ4_XS(30, null),
    /** {@code LLAMA_FTYPE_MOSTLY_IQ1_M}. */
    IQ1_M(31, null),
    /** {@code LLAMA_FTYPE_MOSTLY_BF16}. */
    BF16(32, null),
    /** {@code LLAMA_FTYPE_MOSTLY_TQ1_0}. */
    TQ1_0(36, null),
    /** {@code LLAMA_FTYPE_MOSTLY_TQ2_0}. */
    TQ2_0(37, null),
    /** {@code LLAMA_FTYPE_MOSTLY_MXFP4_MOE}. */
    MXFP4_MOE(38, null);

    /** What a tensor is to llama.cpp's quantizer, by the categories of its name. */
    public enum Role {
        /** {@code token_embd.weight}. */
        TOKEN_EMBD,
        /** {@code output.weight}, the LM head. */
        OUTPUT,
        /** {@code attn_q.weight}. */
        ATTN_Q,
        /** {@code attn_k.weight}. */
        ATTN_K,
        /** {@code attn_v.weight}. */
        ATTN_V,
        /** {@code attn_qkv.weight}, q, k and v fused. */
        ATTN_QKV,
        /** {@code attn_output.weight}. */
        ATTN_OUTPUT,
        /** {@code ffn_gate}. */
        FFN_GATE,
        /** {@code ffn_up} (also a fused gate and up). */
        FFN_UP,
        /** {@code ffn_down}. */
        FFN_DOWN,
        /** Another matrix, quantized to the mix's default type. */
        OTHER,
        /** {@code position_embd.weight}, which llama.cpp never quantizes. */
        POSITION_EMBD;

        /** @return whether a mix chooses this tensor's type (false: it stays in its own) */
        public boolean isQuantized() {
            return this != POSITION_EMBD;
        }
    }

    private final int fileType;
    private final WeightType base;

    QuantMix(int fileType, WeightType base) {
        this.fileType = fileType;
        this.base = base;
    }

    /** @return its number in {@code general.file_type} */
    public int fileType() {
        return fileType;
    }

    /** @return whether attn4j can quantize a checkpoint to it ({@link #typeOf}) */
    public boolean isProducible() {
        return base != null;
    }

    /**
     * @param fileType a {@code general.file_type} value
     * @return the file type of that number, empty for a number llama.cpp does not define (or no longer does)
     */
    public static Optional<QuantMix> ofFileType(long fileType) {
        return Arrays.stream(values()).filter(m -> m.fileType == fileType).findFirst();
    }

    /**
     * @param fileType a {@code general.file_type} value
     * @return the name of the file type of that number ({@code Q4_K_M}), or {@code file type N} for a number
     *     llama.cpp does not define
     */
    public static String nameOf(long fileType) {
        return ofFileType(fileType).map(QuantMix::name).orElse("file type " + fileType);
    }

    /**
     * @param name a mix's name in any case, for example {@code q4_k_m}
     * @return the producible mix of that name, empty if there is none
     */
    public static Optional<QuantMix> producible(String name) {
        String upper = name.trim().toUpperCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.isProducible() && m.name().equals(upper)).findFirst();
    }

    /** @return the names of the producible mixes in lower case, comma-separated */
    public static String producibleNames() {
        return Arrays.stream(values()).filter(QuantMix::isProducible).map(m -> m.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
    }

    /**
     * The storage type this mix gives a matrix.
     *
     * @param role what the tensor is; {@link Role#isQuantized()}
     * @param layer its block's index from 0 (ignored outside blocks)
     * @param layers the model's blocks
     * @param columns the length of its rows ({@code ne[0]}, the input features of a projection)
     * @param tied whether the model has no {@code output.weight}, its LM head being {@code token_embd}
     * @return the type
     * @throws IllegalArgumentException if this mix is not producible, the role is never quantized, the layer is not in
     *     {@code [0, layers)}, or no type of the mix divides the rows into blocks
     */
    public WeightType typeOf(Role role, int layer, int layers, int columns, boolean tied) {
        if (!isProducible()) {
            throw new IllegalArgumentException("QuantMix.typeOf: attn4j does not quantize to " + this
                    + "; it quantizes to " + producibleNames());
        }
        if (role == null || !role.isQuantized()) {
            throw new IllegalArgumentException("QuantMix.typeOf: argument role " + role + " is never quantized");
        }
        if (layers < 1 || layer < 0 || layer >= layers || columns < 1) {
            throw new IllegalArgumentException("QuantMix.typeOf: layer " + layer + " of " + layers + " with rows of "
                    + columns + " is not a tensor of a model");
        }
        WeightType t = base;
        if (role == Role.OUTPUT || tied && role == Role.TOKEN_EMBD) {
            if (columns % base.blockSize() != 0) {
                t = WeightType.Q8_0;
            } else if (base != WeightType.Q8_0) {
                t = WeightType.Q6_K;
            }
        } else if (role == Role.ATTN_V || role == Role.ATTN_QKV) {
            if ((this == Q4_K_M || this == Q5_K_M) && moreBits(layer, layers)) {
                t = WeightType.Q6_K;
            } else if (this == Q4_K_S && layer < 4) {
                t = WeightType.Q5_K;
            }
        } else if (role == Role.FFN_DOWN) {
            if ((this == Q4_K_M || this == Q5_K_M) && moreBits(layer, layers)) {
                t = WeightType.Q6_K;
            } else if (this == Q4_K_S && layer < layers / 8) {
                t = WeightType.Q5_K;
            }
        }
        return fallback(t, role, layer, columns);
    }

    /**
     * llama.cpp's {@code use_more_bits}: the first and last eighth of the layers and every third one between.
     *
     * @param layer the layer's index
     * @param layers how many there are
     * @return {@code layer < layers/8 || layer >= 7·layers/8 || (layer - layers/8) % 3 == 2}
     */
    public static boolean moreBits(int layer, int layers) {
        return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
    }

    private static WeightType fallback(WeightType t, Role role, int layer, int columns) {
        if (columns % t.blockSize() == 0) {
            return t;
        }
        WeightType f = switch (t) {
            case Q4_K -> WeightType.Q5_0;
            case Q5_K -> WeightType.Q5_1;
            case Q6_K -> WeightType.Q8_0;
            default -> throw new IllegalArgumentException("QuantMix.typeOf: " + role + " of layer " + layer
                    + " has rows of " + columns + " numbers, not a whole number of " + t + " blocks of "
                    + t.blockSize() + ", and " + t + " has no fallback");
        };
        return columns % f.blockSize() == 0 ? f : WeightType.F16;
    }
}
