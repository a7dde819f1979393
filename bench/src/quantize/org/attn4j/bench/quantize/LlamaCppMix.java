package org.attn4j.bench.quantize;

import java.util.List;
import java.util.Locale;

/**
 * The five file types {@code llama-quantize} makes that these test files cover, each with its {@code llama_ftype}
 * number (written as {@code general.file_type}), the name llama.cpp's loader prints for it, and its default type:
 * the type every quantized tensor starts from before {@link LlamaCppTypeChoice} raises or replaces it.
 */
enum LlamaCppMix {
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_K_M}. */
    Q4_K_M(15, "Q4_K - Medium", GgmlType.Q4_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q5_K_M}. */
    Q5_K_M(17, "Q5_K - Medium", GgmlType.Q5_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q4_K_S}. */
    Q4_K_S(14, "Q4_K - Small", GgmlType.Q4_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q6_K}. */
    Q6_K(18, "Q6_K", GgmlType.Q6_K),
    /** {@code LLAMA_FTYPE_MOSTLY_Q8_0}. */
    Q8_0(7, "Q8_0", GgmlType.Q8_0);

    private final int fileType;
    private final String loaderName;
    private final GgmlType base;

    LlamaCppMix(int fileType, String loaderName, GgmlType base) {
        this.fileType = fileType;
        this.loaderName = loaderName;
        this.base = base;
    }

    /** @return its {@code general.file_type} */
    int fileType() {
        return fileType;
    }

    /** @return what llama.cpp's loader prints as the file type ({@code llama_model_ftype_name}) */
    String loaderName() {
        return loaderName;
    }

    /** @return the type a quantized tensor starts from */
    GgmlType base() {
        return base;
    }

    /** @return the lower-case name used in file names, {@code q4_k_m} */
    String fileName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return all five */
    static List<LlamaCppMix> all() {
        return List.of(values());
    }
}
