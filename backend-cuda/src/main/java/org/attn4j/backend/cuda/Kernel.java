package org.attn4j.backend.cuda;

import static org.attn4j.backend.cuda.ParamType.DOUBLE;
import static org.attn4j.backend.cuda.ParamType.FLOAT;
import static org.attn4j.backend.cuda.ParamType.INT;
import static org.attn4j.backend.cuda.ParamType.LONG;
import static org.attn4j.backend.cuda.ParamType.POINTER;
import static org.attn4j.backend.cuda.ParamType.ROWS;
import static org.attn4j.backend.cuda.ParamType.SHAPE;
import static org.attn4j.backend.cuda.ParamType.STRIDES;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every kernel the backend launches: the PTX module ({@code src/main/cuda/<module>.cu}) that defines it, its
 * {@code extern "C"} symbol and its parameter list, which {@link PtxModule#requireSignature} checks against the
 * PTX before any launch.
 */
enum Kernel {
    ADD("elementwise", "attn4j_add_f32", SHAPE, STRIDES, STRIDES, POINTER, POINTER, POINTER, LONG),
    SUB("elementwise", "attn4j_sub_f32", SHAPE, STRIDES, STRIDES, POINTER, POINTER, POINTER, LONG),
    MUL("elementwise", "attn4j_mul_f32", SHAPE, STRIDES, STRIDES, POINTER, POINTER, POINTER, LONG),
    DIV("elementwise", "attn4j_div_f32", SHAPE, STRIDES, STRIDES, POINTER, POINTER, POINTER, LONG),
    SCALE("elementwise", "attn4j_scale_f32", POINTER, POINTER, FLOAT, LONG),
    EXP("elementwise", "attn4j_exp_f32", POINTER, POINTER, LONG),
    RELU("elementwise", "attn4j_relu_f32", POINTER, POINTER, LONG),
    GELU_ERF("elementwise", "attn4j_gelu_erf_f32", POINTER, POINTER, LONG),
    GELU_TANH("elementwise", "attn4j_gelu_tanh_f32", POINTER, POINTER, LONG),
    SILU("elementwise", "attn4j_silu_f32", POINTER, POINTER, LONG),
    ROPE("elementwise", "attn4j_rope_f32", POINTER, POINTER, INT, INT, INT, INT, INT, POINTER, DOUBLE, INT),
    SOFTCAP("elementwise", "attn4j_softcap_f32", POINTER, POINTER, FLOAT, LONG),
    COPY_STRIDED("elementwise", "attn4j_copy_strided_f32",
            SHAPE, STRIDES, STRIDES, POINTER, LONG, POINTER, LONG, LONG),
    DROPOUT("elementwise", "attn4j_dropout_f32", POINTER, POINTER, LONG, LONG, DOUBLE, FLOAT),
    EMBEDDING("elementwise", "attn4j_embedding_f32", POINTER, POINTER, POINTER, INT, INT),
    REDUCE_MAX("reduce", "attn4j_reduce_max_f32", POINTER, POINTER, INT, INT, INT),
    REDUCE_SUM("reduce", "attn4j_reduce_sum_f32", POINTER, POINTER, INT, INT, INT),
    REDUCE_MEAN("reduce", "attn4j_reduce_mean_f32", POINTER, POINTER, INT, INT, INT),
    REDUCE_VAR("reduce", "attn4j_reduce_var_f32", POINTER, POINTER, INT, INT, INT),
    SOFTMAX("norm", "attn4j_softmax_f32",
            POINTER, POINTER, INT, INT, INT, SHAPE, POINTER, STRIDES, POINTER, STRIDES, INT, INT, INT, INT),
    LAYER_NORM("norm", "attn4j_layer_norm_f32", POINTER, POINTER, POINTER, POINTER, POINTER, INT, INT, FLOAT),
    RMS_NORM("norm", "attn4j_rms_norm_f32", POINTER, POINTER, POINTER, POINTER, INT, INT, FLOAT),
    GEMM("gemm", "attn4j_gemm_f32",
            POINTER, POINTER, POINTER, INT, INT, INT, INT, INT, FLOAT, SHAPE, STRIDES, STRIDES, INT),
    FLASH_ATTENTION("attention", "attn4j_flash_attention_f32",
            POINTER, POINTER, POINTER, POINTER, ROWS, ROWS, ROWS, ROWS, INT, INT, INT, INT, INT, INT, FLOAT, FLOAT,
            SHAPE, POINTER, STRIDES, POINTER, STRIDES, INT, INT, INT, LONG, DOUBLE, FLOAT),
    FLASH_DECODE("attention", "attn4j_flash_decode_f32",
            POINTER, POINTER, POINTER, POINTER, POINTER, ROWS, ROWS, ROWS, INT, INT, INT, INT, INT, INT, FLOAT, FLOAT,
            SHAPE, POINTER, STRIDES, POINTER, STRIDES, INT, INT, INT, LONG, DOUBLE, INT),
    FLASH_DECODE_MERGE("attention", "attn4j_flash_decode_merge_f32",
            POINTER, POINTER, POINTER, ROWS, INT, INT, INT, INT, FLOAT),
    LINEAR_GEMV_F32("weights", "attn4j_linear_gemv_f32", Signatures.LINEAR),
    LINEAR_GEMV_F16("weights", "attn4j_linear_gemv_f16", Signatures.LINEAR),
    LINEAR_GEMV_BF16("weights", "attn4j_linear_gemv_bf16", Signatures.LINEAR),
    LINEAR_GEMV_Q8_0("weights", "attn4j_linear_gemv_q8_0", Signatures.LINEAR),
    LINEAR_GEMV_Q4_0("weights", "attn4j_linear_gemv_q4_0", Signatures.LINEAR),
    LINEAR_GEMV_Q4_K("weights", "attn4j_linear_gemv_q4_k", Signatures.LINEAR),
    LINEAR_GEMV_Q6_K("weights", "attn4j_linear_gemv_q6_k", Signatures.LINEAR),
    LINEAR_TILED_F32("weights", "attn4j_linear_tiled_f32", Signatures.LINEAR),
    LINEAR_TILED_F16("weights", "attn4j_linear_tiled_f16", Signatures.LINEAR),
    LINEAR_TILED_BF16("weights", "attn4j_linear_tiled_bf16", Signatures.LINEAR),
    LINEAR_TILED_Q8_0("weights", "attn4j_linear_tiled_q8_0", Signatures.LINEAR),
    LINEAR_TILED_Q4_0("weights", "attn4j_linear_tiled_q4_0", Signatures.LINEAR),
    LINEAR_TILED_Q4_K("weights", "attn4j_linear_tiled_q4_k", Signatures.LINEAR),
    LINEAR_TILED_Q6_K("weights", "attn4j_linear_tiled_q6_k", Signatures.LINEAR),
    GATHER_F32("weights", "attn4j_gather_f32", Signatures.GATHER),
    GATHER_F16("weights", "attn4j_gather_f16", Signatures.GATHER),
    GATHER_BF16("weights", "attn4j_gather_bf16", Signatures.GATHER),
    GATHER_Q8_0("weights", "attn4j_gather_q8_0", Signatures.GATHER),
    GATHER_Q4_0("weights", "attn4j_gather_q4_0", Signatures.GATHER),
    GATHER_Q4_K("weights", "attn4j_gather_q4_k", Signatures.GATHER),
    GATHER_Q6_K("weights", "attn4j_gather_q6_k", Signatures.GATHER);

    /** The parameter lists several kernels share (a holder, so the constants above can use them). */
    private static final class Signatures {
        /** x, values, scales, bias, residual, out, M, N, K, gated, activation. */
        static final ParamType[] LINEAR = {POINTER, POINTER, POINTER, POINTER, POINTER, POINTER, INT, INT, INT, INT,
            INT};
        /** values, scales, ids, out, tokens, d. */
        static final ParamType[] GATHER = {POINTER, POINTER, POINTER, POINTER, INT, INT};
    }

    private final String module;
    private final String symbol;
    private final List<ParamType> params;

    Kernel(String module, String symbol, ParamType... params) {
        this.module = module;
        this.symbol = symbol;
        this.params = List.of(params);
    }

    /** @return the PTX module name, the {@code .cu} file name without extension */
    String module() {
        return module;
    }

    /** @return the kernel's {@code .entry} name */
    String symbol() {
        return symbol;
    }

    /** @return the parameter types in declaration order */
    List<ParamType> params() {
        return params;
    }

    /** @return the kernels grouped by module, modules in first-use order */
    static Map<String, List<Kernel>> byModule() {
        Map<String, List<Kernel>> map = new LinkedHashMap<>();
        Arrays.stream(values()).forEach(k -> map.computeIfAbsent(k.module, m -> new ArrayList<>()).add(k));
        map.replaceAll((m, ks) -> Collections.unmodifiableList(ks));
        return Collections.unmodifiableMap(map);
    }
}
