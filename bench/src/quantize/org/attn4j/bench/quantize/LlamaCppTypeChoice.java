package org.attn4j.bench.quantize;

import java.util.List;

/**
 * The storage type {@code llama-quantize} gives each tensor of a file, for the mixes of {@link LlamaCppMix}: written
 * from {@code llama_tensor_get_type} and its helpers in llama.cpp's {@code src/llama-quant.cpp}, keeping their
 * structure (categories by name, a counter of {@code attn_v} and {@code ffn_down} tensors seen so far, a preliminary
 * count of each) so that a reader can hold one against the other, independently of attn4j's own {@code QuantMix}.
 * Ask for the tensors in file order, as the quantizer visits them:
 * <pre>
 *   quantized at all:  2-D or more, name ends in "weight", not "*_norm.weight", "position_embd.weight",
 *                      "token_types.weight"                       (else the tensor keeps its type)
 *   start:             the mix's base type
 *   output.weight, and token_embd.weight when the file has no output.weight:
 *                      Q8_0 if ne[0] % block(base) != 0, else Q6_K unless the base is Q8_0
 *   attn_v / attn_qkv: Q4_K_M, Q5_K_M: Q6_K if useMoreBits(i_attention_wv, n_attention_wv);
 *                      Q4_K_S: Q5_K if i_attention_wv &lt; 4;          then i_attention_wv++
 *   ffn_down:          Q4_K_M, Q5_K_M: Q6_K if useMoreBits(i_ffn_down, n_ffn_down);
 *                      Q4_K_S: Q5_K if i_ffn_down &lt; n_ffn_down / 8;  then i_ffn_down++
 *   useMoreBits(i, n) = i &lt; n/8 || i &gt;= 7n/8 || (i - n/8) % 3 == 2
 *   fallback when ne[0] % block(type) != 0:  Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0, then F16 if still not whole
 * </pre>
 * The branches of those functions for other mixes, mixture-of-experts models, Falcon, the 70B size class, an
 * importance matrix and user overrides do not apply to these files and are not written.
 */
final class LlamaCppTypeChoice {
    /** One tensor as the quantizer sees it. */
    record Tensor(String name, int rank, long columns, GgmlType type) {
    }

    /** {@code tensor_category}, the part of it these mixes use. */
    private enum Category {
        TOKEN_EMBD, OUTPUT, ATTENTION_V, FFN_DOWN, OTHER
    }

    private final LlamaCppMix mix;
    private final boolean tied;
    private final int attentionV;
    private final int ffnDown;
    private int iAttentionV;
    private int iFfnDown;

    /**
     * @param mix the file type to make
     * @param tensors every tensor of the source file, for the preliminary counts
     */
    LlamaCppTypeChoice(LlamaCppMix mix, List<Tensor> tensors) {
        this.mix = mix;
        this.tied = tensors.stream().noneMatch(t -> t.name().equals("output.weight"));
        this.attentionV = (int) tensors.stream().filter(t -> category(t.name()) == Category.ATTENTION_V).count();
        this.ffnDown = (int) tensors.stream().filter(t -> category(t.name()) == Category.FFN_DOWN).count();
    }

    private static Category category(String name) {
        if (name.equals("output.weight")) {
            return Category.OUTPUT;
        }
        if (name.equals("token_embd.weight")) {
            return Category.TOKEN_EMBD;
        }
        if (name.contains("attn_qkv.weight") || name.contains("attn_kv_b.weight") || name.contains("attn_v.weight")) {
            return Category.ATTENTION_V;
        }
        if (name.contains("ffn_down")) {
            return Category.FFN_DOWN;
        }
        return Category.OTHER;
    }

    private static boolean quantized(Tensor t) {
        return t.rank() >= 2 && t.name().endsWith("weight") && !t.name().contains("_norm.weight")
                && !t.name().equals("position_embd.weight") && !t.name().equals("token_types.weight");
    }

    private static boolean useMoreBits(int i, int n) {
        return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
    }

    /**
     * @param t the next tensor in file order
     * @return the type the quantizer writes it in
     */
    GgmlType next(Tensor t) {
        if (!quantized(t)) {
            return t.type();
        }
        GgmlType type = mix.base();
        Category c = category(t.name());
        boolean mediumMix = mix == LlamaCppMix.Q4_K_M || mix == LlamaCppMix.Q5_K_M;
        if (c == Category.OUTPUT || tied && c == Category.TOKEN_EMBD) {
            if (t.columns() % type.blockSize() != 0) {
                type = GgmlType.Q8_0;
            } else if (type != GgmlType.Q8_0) {
                type = GgmlType.Q6_K;
            }
        } else if (c == Category.ATTENTION_V) {
            if (mediumMix && useMoreBits(iAttentionV, attentionV)) {
                type = GgmlType.Q6_K;
            } else if (mix == LlamaCppMix.Q4_K_S && iAttentionV < 4) {
                type = GgmlType.Q5_K;
            }
            iAttentionV++;
        } else if (c == Category.FFN_DOWN) {
            if (mediumMix && useMoreBits(iFfnDown, ffnDown)) {
                type = GgmlType.Q6_K;
            } else if (mix == LlamaCppMix.Q4_K_S && iFfnDown < ffnDown / 8) {
                type = GgmlType.Q5_K;
            }
            iFfnDown++;
        }
        return fallback(t, type);
    }

    private static GgmlType fallback(Tensor t, GgmlType type) {
        if (t.columns() % type.blockSize() == 0) {
            return type;
        }
        GgmlType f = switch (type) {
            case Q4_K -> GgmlType.Q5_0;
            case Q5_K -> GgmlType.Q5_1;
            case Q6_K -> GgmlType.Q8_0;
            default -> throw new IllegalArgumentException("llama-quantize has no fallback for " + type + ", which "
                    + t.name() + " with rows of " + t.columns() + " needs");
        };
        return t.columns() % f.blockSize() == 0 ? f : GgmlType.F16;
    }
}
