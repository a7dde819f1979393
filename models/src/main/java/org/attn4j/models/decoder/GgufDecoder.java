package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * A decoder's config and parameters from a GGUF file as llama.cpp's converter ({@code convert_hf_to_gguf.py})
 * writes it: the architecture from {@code general.architecture} ({@code llama}, {@code qwen2}, {@code qwen3},
 * {@code gemma}, {@code gemma2}, {@code gemma3}, {@code phi3}, {@code gpt2}), its hyper-parameters from {@code <arch>.*} keys turned
 * into the Hugging Face {@code config.json} keys of the family's reader ({@link DecoderConfig#of}), and llama.cpp's
 * tensor names mapped back to Hugging Face's with the converter's changes undone, so that the families' own readers
 * and forward run them.
 *
 * <p>Every {@code <arch>.*} key is honoured, checked to have the one value attn4j computes with, or refused by name
 * ({@link GgufMetadata}); every tensor is mapped or refused by name. What each architecture maps:
 * <ul>
 *   <li>all but {@code gpt2}: {@code embedding_length}, {@code block_count}, {@code feed_forward_length},
 *       {@code context_length}, {@code attention.head_count}, {@code attention.head_count_kv},
 *       {@code attention.key_length} and {@code attention.value_length} (equal; {@code head_dim}, else
 *       {@code embedding_length / head_count}), {@code attention.layer_norm_rms_epsilon}, {@code rope.freq_base}
 *       (10000 when absent, as llama.cpp), {@code rope.dimension_count} (the head size; Phi-3's
 *       {@code partial_rotary_factor}), {@code vocab_size} (the rows of {@code token_embd}), {@code expert_count} and
 *       {@code expert_used_count} (0) and {@code attention.causal} (true); the RoPE scaling llama.cpp reads:
 *       {@code rope.scaling.type} {@code none} or {@code linear} ({@code rope.scaling.factor}, or the old
 *       {@code rope.scale_linear}), {@code yarn} ({@code factor}, {@code original_context_length},
 *       {@code yarn_beta_fast}, {@code yarn_beta_slow}, {@code yarn_attn_factor} as transformers'
 *       {@code attention_factor}, {@code yarn_ext_factor} 1) and {@code longrope} with the tensors
 *       {@code rope_factors_long} and {@code rope_factors_short} and {@code rope.scaling.attn_factor} (Phi-3's
 *       LongRoPE); and a {@code llama} file's {@code rope_freqs} (Llama 3.x's {@code llama3} scaling, which the
 *       converter writes as a divisor of each pair's frequency): as transformers' LongRoPE with the same factors long
 *       and short and an attention factor of 1, which is that division. {@code rope.scaling.finetuned} and
 *       {@code original_context_length} outside yarn and LongRoPE change nothing.</li>
 *   <li>{@code llama}: model_type {@code llama} ({@code mistral} when {@code attention.sliding_window} is above 0,
 *       which llama.cpp's converter never writes); q and k rows (and biases) put back from the converter's
 *       {@code permute(w, n_head, n_head_kv)}, which turned Hugging Face's half-split rotary pairs into the
 *       interleaved pairs llama.cpp's {@code llama} graph rotates (within a head of {@code d} rows, file row
 *       {@code 2i} is row {@code i} and file row {@code 2i + 1} row {@code d/2 + i}), whole rows in the file's type;
 *       biases of attention ({@code attention_bias}) and MLP ({@code mlp_bias}) where the file has them.</li>
 *   <li>{@code qwen2}, {@code qwen3}: rows as they are (llama.cpp rotates these in Hugging Face's half-split
 *       layout); Qwen2's q/k/v biases; Qwen3's {@code attn_q_norm} and {@code attn_k_norm}; no sliding window
 *       ({@code use_sliding_window} false, as the converter writes none and llama.cpp runs none).</li>
 *   <li>{@code gemma}, {@code gemma2}: the LM head tied to the embedding, the tanh GELU, and every norm weight with
 *       the converter's {@code + 1} taken off again (Hugging Face's norms multiply by {@code 1 + w}); Gemma 2's
 *       {@code attn_logit_softcapping} (50) and {@code final_logit_softcapping} (30),
 *       {@code attention.sliding_window} (4096), {@code attention.sliding_window_pattern} (2: layer {@code i} is
 *       local when {@code i % n < n - 1}), {@code rope.freq_base_swa} (the local layers' theta), its
 *       {@code post_attention_norm}, {@code ffn_norm} (before the MLP) and {@code post_ffw_norm}, and its query
 *       scaling as llama.cpp computes it: {@code query_pre_attn_scalar} the head size, or
 *       {@code embedding_length / head_count} for a model of 46 blocks (Gemma 2 27B).</li>
 *   <li>{@code gemma3} (model_type {@code gemma3_text}; an image-text model's GGUF file holds its text decoder, the
 *       vision tower living in a separate projector file): Gemma's tying, GELU and {@code + 1} undone on every norm,
 *       the per-head {@code attn_q_norm} and {@code attn_k_norm} included; Gemma 2's four norms a block;
 *       {@code attention.sliding_window} (required by llama.cpp's loader; 0 or absent for no local layers) on five
 *       layers of every six, as llama.cpp fixes the pattern; the local layers' rotary base 10000, unscaled, as
 *       llama.cpp fixes it, and {@code rope.freq_base} with {@code rope.scaling.*} (Gemma 3 4B and larger:
 *       {@code linear}, factor 8) on the global layers; {@code final_logit_softcapping} (0 or absent: none) and no
 *       attention soft-cap; queries scaled by the head size, or {@code embedding_length / head_count} for a model
 *       of 62 blocks (Gemma 3 27B), as llama.cpp computes it. {@code attention.sliding_window_pattern} and
 *       {@code rope.freq_base_swa}, which llama.cpp's {@code gemma3} does not read, are refused.</li>
 *   <li>{@code phi3}: the fused {@code attn_qkv} (or {@code attn_q}, {@code attn_k}, {@code attn_v} stacked) and
 *       the fused {@code ffn_up} holding the gate's rows then the up projection's; {@code attention.sliding_window}
 *       (0 for none; transformers honours it where llama.cpp currently runs without); and
 *       {@code rope.scaling.original_context_length} as {@code original_max_position_embeddings}, at which
 *       transformers switches from the short factors to the long ones.</li>
 *   <li>{@code gpt2}: {@code embedding_length}, {@code block_count}, {@code context_length},
 *       {@code attention.head_count} ({@code head_count_kv} equal), {@code feed_forward_length} (4 ×
 *       {@code embedding_length}), {@code attention.layer_norm_epsilon}; Conv1D weights stored as {@code [out, in]}.
 *       </li>
 * </ul>
 * A fused {@code attn_qkv} in a file of another architecture is split into its q, k and v rows.
 */
final class GgufDecoder {
    private static final List<String> LINEAGE = List.of("llama", "qwen2", "qwen3", "gemma", "gemma2", "gemma3",
            "phi3");
    private static final String ROPE_FREQS = "rope_freqs.weight";
    private static final String LONG_FACTORS = "rope_factors_long.weight";
    private static final String SHORT_FACTORS = "rope_factors_short.weight";

    private GgufDecoder() {
    }

    /** A config and its parameters under Hugging Face names, in the file's storage types. */
    record Checkpoint(DecoderConfig config, StateDict state) {
    }

    /**
     * @param gguf a GGUF file's contents
     * @return the decoder it describes
     * @throws IllegalArgumentException if the architecture, a key or a tensor is not one attn4j runs as written
     */
    static Checkpoint read(Gguf.Contents gguf) {
        String arch;
        try {
            arch = gguf.string("general.architecture");
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        GgufMetadata m = new GgufMetadata(gguf, arch);
        if (arch.equals("gpt2")) {
            return gpt2(m, gguf.tensors());
        }
        if (LINEAGE.contains(arch)) {
            return lineage(m, gguf.tensors());
        }
        throw new IllegalArgumentException("gguf: general.architecture " + arch + " is not supported; supported: "
                + String.join(", ", LINEAGE) + ", gpt2");
    }

    private static Checkpoint lineage(GgufMetadata m, StateDict tensors) {
        String arch = m.arch();
        boolean gemma = arch.startsWith("gemma");
        int hidden = m.count("embedding_length");
        int layers = m.count("block_count");
        int heads = m.count("attention.head_count");
        int kvHeads = m.count("attention.head_count_kv", heads);
        int headDim = headDim(m, hidden, heads);
        int context = m.count("context_length");
        Set<String> consumed = new HashSet<>();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("model_type", arch.equals("gemma3") ? "gemma3_text" : arch);
        json.put("vocab_size", vocab(m, tensors));
        json.put("hidden_size", hidden);
        json.put("num_hidden_layers", layers);
        json.put("num_attention_heads", heads);
        json.put("num_key_value_heads", kvHeads);
        json.put("head_dim", headDim);
        json.put("intermediate_size", m.count("feed_forward_length"));
        json.put("rms_norm_eps", required(m, "attention.layer_norm_rms_epsilon"));
        json.put("max_position_embeddings", context);
        json.put("tie_word_embeddings", gemma || !tensors.contains("output.weight"));
        m.neutral("expert_count", 0, "mixture-of-experts models are not supported");
        m.neutral("expert_used_count", 0, "mixture-of-experts models are not supported");
        Boolean causal = m.bool("attention.causal");
        if (causal != null && !causal) {
            throw new IllegalArgumentException("gguf: " + m.name("attention.causal") + " is false; attn4j's decoders"
                    + " attend causally");
        }
        Rope rope = rope(m, tensors, headDim, context, consumed);
        json.put("rope_theta", rope.theta());
        if (rope.partial() != 1.0) {
            json.put("partial_rotary_factor", rope.partial());
        }
        if (rope.scaling() != null) {
            json.put("rope_scaling", rope.scaling());
        }
        boolean attentionBias = anyBlockHas(tensors, "attn_q.bias", "attn_output.bias", "attn_qkv.bias");
        switch (arch) {
            case "llama" -> {
                long window = m.natural("attention.sliding_window", 0);
                if (window > 0) {
                    json.put("model_type", "mistral");
                    json.put("sliding_window", window);
                }
                if (attentionBias) {
                    json.put("attention_bias", true);
                }
                if (anyBlockHas(tensors, "ffn_gate.bias", "ffn_up.bias", "ffn_down.bias")) {
                    json.put("mlp_bias", true);
                }
            }
            case "qwen2" -> json.put("use_sliding_window", false);
            case "qwen3" -> {
                json.put("use_sliding_window", false);
                json.put("attention_bias", attentionBias);
            }
            case "gemma" -> {
                json.put("hidden_activation", "gelu_pytorch_tanh");
                json.put("attention_bias", attentionBias);
            }
            case "gemma2" -> gemma2(m, json, layers, hidden, heads, headDim, rope, attentionBias);
            case "gemma3" -> gemma3(m, json, layers, hidden, heads, headDim, attentionBias);
            case "phi3" -> {
                long window = m.natural("attention.sliding_window", 0);
                json.put("sliding_window", window == 0 ? null : window);
                json.put("original_max_position_embeddings", rope.original());
            }
            default -> throw new IllegalStateException(arch);
        }
        m.finish();
        DecoderConfig config = DecoderConfig.of(json, "the GGUF file's " + arch + " metadata");
        for (int l = 0; l < layers; l++) {
            if (config.rope(l).dimension() != rope.dims()) {
                throw new IllegalArgumentException("gguf: " + m.name("rope.dimension_count") + " " + rope.dims()
                        + " is not a fraction of the head size " + headDim + " that transformers' partial_rotary_factor"
                        + " gives back");
            }
        }
        return new Checkpoint(config, StateDict.of(lineageTensors(arch, tensors, consumed, heads, kvHeads, headDim)));
    }

    private static void gemma2(GgufMetadata m, Map<String, Object> json, int layers, int hidden, int heads,
                               int headDim, Rope rope, boolean attentionBias) {
        json.put("hidden_activation", "gelu_pytorch_tanh");
        json.put("attention_bias", attentionBias);
        json.put("query_pre_attn_scalar", layers == 46 ? hidden / heads : headDim);
        json.put("sliding_window", m.count("attention.sliding_window", 4096));
        long period = m.natural("attention.sliding_window_pattern", 2);
        List<String> types = new ArrayList<>();
        for (int i = 0; i < layers; i++) {
            boolean local = period == 0 || i % period < period - 1;
            types.add(local ? "sliding_attention" : "full_attention");
        }
        json.put("layer_types", types);
        json.put("attn_logit_softcapping", softcap(m, "attn_logit_softcapping", 50.0));
        json.put("final_logit_softcapping", softcap(m, "final_logit_softcapping", 30.0));
        Double local = m.number("rope.freq_base_swa");
        if (local != null && local != rope.theta()) {
            Map<String, Object> full = new LinkedHashMap<>(rope.scaling() == null ? Map.of("rope_type", "default")
                    : rope.scaling());
            Map<String, Object> sliding = new LinkedHashMap<>(full);
            full.put("rope_theta", rope.theta());
            sliding.put("rope_theta", local);
            json.put("rope_scaling", Map.of("full_attention", full, "sliding_attention", sliding));
        }
    }

    /**
     * Gemma 3 as llama.cpp's {@code gemma3} graph runs it: five local layers to one global when
     * {@code attention.sliding_window} is above 0 (none local otherwise), the local layers rotated with base 10000
     * unscaled and the global ones with {@code rope.freq_base} and the file's scaling, queries scaled by the head
     * size (by {@code embedding_length / head_count} for a model of 62 blocks, Gemma 3 27B), and the final
     * soft-cap of {@code final_logit_softcapping} when above 0.
     */
    private static void gemma3(GgufMetadata m, Map<String, Object> json, int layers, int hidden, int heads,
                               int headDim, boolean attentionBias) {
        json.put("hidden_activation", "gelu_pytorch_tanh");
        json.put("attention_bias", attentionBias);
        json.put("query_pre_attn_scalar", layers == 62 ? hidden / heads : headDim);
        long window = m.natural("attention.sliding_window", 0);
        List<String> types = new ArrayList<>();
        for (int i = 0; i < layers; i++) {
            types.add(window > 0 && (i + 1) % 6 != 0 ? "sliding_attention" : "full_attention");
        }
        json.put("sliding_window", window > 0 ? window : null);
        json.put("layer_types", types);
        json.put("rope_local_base_freq", 10000.0);
        double cap = m.number("final_logit_softcapping", 0.0);
        if (cap < 0) {
            throw new IllegalArgumentException("gguf: " + m.name("final_logit_softcapping") + " is " + cap
                    + "; it must be positive, or 0 for none");
        }
        json.put("final_logit_softcapping", cap > 0 ? cap : null);
    }

    private static double softcap(GgufMetadata m, String key, double fallback) {
        double cap = m.number(key, fallback);
        if (!(cap > 0)) {
            throw new IllegalArgumentException("gguf: " + m.name(key) + " is " + cap + "; llama.cpp's gemma2 always"
                    + " soft-caps, so it must be positive");
        }
        return cap;
    }

    /** @return the head size: {@code attention.key_length} (equal to {@code value_length}), else hidden / heads */
    private static int headDim(GgufMetadata m, int hidden, int heads) {
        boolean given = m.has("attention.key_length");
        if (!given && hidden % heads != 0) {
            throw new IllegalArgumentException("gguf: " + m.name("embedding_length") + " " + hidden + " is not a"
                    + " multiple of " + m.name("attention.head_count") + " " + heads + " and "
                    + m.name("attention.key_length") + " is not given");
        }
        int key = m.count("attention.key_length", given ? 0 : hidden / heads);
        int value = m.count("attention.value_length", key);
        if (value != key) {
            throw new IllegalArgumentException("gguf: " + m.name("attention.value_length") + " " + value + " differs"
                    + " from " + m.name("attention.key_length") + " " + key + "; attn4j's decoders have one head size");
        }
        return key;
    }

    private static double required(GgufMetadata m, String key) {
        Double v = m.number(key);
        if (v == null) {
            throw new IllegalArgumentException("gguf: metadata " + m.name(key) + " is missing");
        }
        return v;
    }

    /**
     * The rotary embedding as config keys.
     *
     * @param theta {@code rope_theta}
     * @param dims the rotated features of a head ({@code rope.dimension_count})
     * @param partial {@code partial_rotary_factor}
     * @param original the length at which yarn and LongRoPE were trained
     * @param scaling the {@code rope_scaling} object, or null for none
     */
    record Rope(double theta, int dims, double partial, int original, Map<String, Object> scaling) {
    }

    private static Rope rope(GgufMetadata m, StateDict tensors, int headDim, int context, Set<String> consumed) {
        String arch = m.arch();
        double theta = m.number("rope.freq_base", 10000.0);
        int dims = m.count("rope.dimension_count", headDim);
        double partial = 1.0;
        if (dims != headDim) {
            if (!arch.equals("phi3") || dims > headDim || dims % 2 != 0) {
                throw new IllegalArgumentException("gguf: " + m.name("rope.dimension_count") + " is " + dims + " but "
                        + "attn4j's " + arch + " rotates " + (arch.equals("phi3") ? "an even part" : "the whole")
                        + " of each head of " + headDim);
            }
            partial = (double) dims / headDim;
        }
        String type = m.string("rope.scaling.type");
        Double factor = m.number("rope.scaling.factor");
        Double linear = m.number("rope.scale_linear");
        if (factor != null && linear != null && !factor.equals(linear)) {
            throw new IllegalArgumentException("gguf: " + m.name("rope.scaling.factor") + " " + factor + " and "
                    + m.name("rope.scale_linear") + " " + linear + " disagree");
        }
        double f = factor != null ? factor : linear != null ? linear : 0;
        f = f == 0 ? 1 : f;
        int original = m.count("rope.scaling.original_context_length", context);
        Double attention = m.number("rope.scaling.attn_factor");
        m.accept("rope.scaling.finetuned");
        HostTensor freqs = arch.equals("llama") && tensors.contains(ROPE_FREQS) ? tensors.get(ROPE_FREQS) : null;
        boolean factored = (arch.equals("llama") || arch.equals("phi3"))
                && (tensors.contains(LONG_FACTORS) || tensors.contains(SHORT_FACTORS));
        String kind = type != null ? type : factored ? "longrope" : "linear";
        if (factored && !kind.equals("longrope")) {
            throw new IllegalArgumentException("gguf: " + LONG_FACTORS + " and " + SHORT_FACTORS + " are LongRoPE's,"
                    + " but " + m.name("rope.scaling.type") + " is " + kind);
        }
        if (!kind.equals("yarn")) {
            for (String key : List.of("yarn_ext_factor", "yarn_attn_factor", "yarn_beta_fast", "yarn_beta_slow")) {
                if (m.has("rope.scaling." + key)) {
                    throw new IllegalArgumentException("gguf: " + m.name("rope.scaling." + key) + " is set but "
                            + m.name("rope.scaling.type") + " is " + kind + ", not yarn");
                }
            }
        }
        if (!kind.equals("longrope") && attention != null && attention != 1.0) {
            throw new IllegalArgumentException("gguf: " + m.name("rope.scaling.attn_factor") + " is " + attention
                    + "; attn4j honours it only with LongRoPE (" + m.name("rope.scaling.type") + " is " + kind + ")");
        }
        Map<String, Object> scaling = new LinkedHashMap<>();
        if (freqs != null) {
            if (!(kind.equals("linear") || kind.equals("none")) || f != 1) {
                throw new IllegalArgumentException("gguf: " + ROPE_FREQS + " (per-pair frequency divisors) with "
                        + m.name("rope.scaling.type") + " " + kind + " and factor " + f + " is not supported");
            }
            double[] divisors = factors(ROPE_FREQS, freqs, dims);
            consumed.add(ROPE_FREQS);
            scaling.put("rope_type", "longrope");
            scaling.put("short_factor", toList(divisors));
            scaling.put("long_factor", toList(divisors));
            scaling.put("attention_factor", 1.0);
            scaling.put("original_max_position_embeddings", original);
            return new Rope(theta, dims, partial, original, scaling);
        }
        switch (kind) {
            case "none", "linear" -> {
                if (kind.equals("none") && f != 1) {
                    throw new IllegalArgumentException("gguf: " + m.name("rope.scaling.type") + " is none but the"
                            + " factor is " + f);
                }
                if (f == 1) {
                    return new Rope(theta, dims, partial, original, null);
                }
                scaling.put("rope_type", "linear");
                scaling.put("factor", f);
            }
            case "yarn" -> {
                m.neutral("rope.scaling.yarn_ext_factor", 1.0, "transformers' yarn ramps with the full extrapolation"
                        + " weight");
                scaling.put("rope_type", "yarn");
                scaling.put("factor", f);
                scaling.put("original_max_position_embeddings", original);
                putIfPresent(m, scaling, "rope.scaling.yarn_beta_fast", "beta_fast");
                putIfPresent(m, scaling, "rope.scaling.yarn_beta_slow", "beta_slow");
                putIfPresent(m, scaling, "rope.scaling.yarn_attn_factor", "attention_factor");
            }
            case "longrope" -> {
                if (!factored || !tensors.contains(LONG_FACTORS) || !tensors.contains(SHORT_FACTORS)) {
                    throw new IllegalArgumentException("gguf: LongRoPE (" + m.name("rope.scaling.type") + " "
                            + type + ") needs both " + LONG_FACTORS + " and " + SHORT_FACTORS
                            + (factored || tensors.contains(LONG_FACTORS) || tensors.contains(SHORT_FACTORS) ? ""
                            : ", which the file lacks") + (arch.equals("llama") || arch.equals("phi3") ? ""
                            : "; llama.cpp reads them only in llama and phi3 files"));
                }
                if (f != 1) {
                    throw new IllegalArgumentException("gguf: LongRoPE with " + m.name("rope.scaling.factor") + " "
                            + f + " is not supported");
                }
                consumed.add(LONG_FACTORS);
                consumed.add(SHORT_FACTORS);
                scaling.put("rope_type", "longrope");
                scaling.put("short_factor", toList(factors(SHORT_FACTORS, tensors.get(SHORT_FACTORS), dims)));
                scaling.put("long_factor", toList(factors(LONG_FACTORS, tensors.get(LONG_FACTORS), dims)));
                double computed = context <= original ? 1.0
                        : Math.sqrt(1 + Math.log((double) context / original) / Math.log(original));
                // the converter writes transformers' default rounded to float; computed here in double as
                // transformers does. llama.cpp scales by 1 when the key is absent.
                if (attention == null || (float) computed != attention.floatValue()) {
                    scaling.put("attention_factor", attention == null ? 1.0 : attention);
                }
                if (!arch.equals("phi3")) {
                    scaling.put("original_max_position_embeddings", original);
                }
            }
            default -> throw new IllegalArgumentException("gguf: " + m.name("rope.scaling.type") + " " + kind
                    + " is not supported; supported: none, linear, yarn, longrope");
        }
        return new Rope(theta, dims, partial, original, scaling);
    }

    private static void putIfPresent(GgufMetadata m, Map<String, Object> scaling, String key, String as) {
        Double v = m.number(key);
        if (v != null) {
            scaling.put(as, v);
        }
    }

    private static double[] factors(String name, HostTensor t, int dims) {
        if (t.shape().rank() != 1 || t.shape().dim(0) != dims / 2) {
            throw new IllegalArgumentException("gguf: tensor " + name + " has shape " + t.shape() + ", expected ["
                    + dims / 2 + "] (one factor per rotated pair of rope.dimension_count " + dims + ")");
        }
        double[] v = t.data();
        for (int i = 0; i < v.length; i++) {
            if (!(v[i] > 0) || !Double.isFinite(v[i])) {
                throw new IllegalArgumentException("gguf: tensor " + name + " holds " + v[i] + " at " + i
                        + "; frequency factors must be positive and finite");
            }
        }
        return v;
    }

    private static List<Double> toList(double[] v) {
        return Arrays.stream(v).boxed().toList();
    }

    private static boolean anyBlockHas(StateDict tensors, String... suffixes) {
        for (String name : tensors.names()) {
            String[] block = block(name);
            if (block != null && Arrays.asList(suffixes).contains(block[1])) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the tensors under Hugging Face names: q/k rows of llama put back, Gemma's {@code 1 + w} norms
     *     undone, fused qkv split (or, for Phi-3, separate q/k/v stacked)
     */
    private static Map<String, HostTensor> lineageTensors(String arch, StateDict tensors, Set<String> consumed,
                                                         int heads, int kvHeads, int headDim) {
        boolean gemma = arch.startsWith("gemma");
        boolean phi3 = arch.equals("phi3");
        Map<String, HostTensor> hf = new TreeMap<>();
        Map<String, HostTensor[]> phiParts = new TreeMap<>();
        List<String> unknown = new ArrayList<>();
        for (String name : tensors.names()) {
            if (consumed.contains(name)) {
                continue;
            }
            HostTensor t = tensors.get(name);
            String global = switch (name) {
                case "token_embd.weight" -> "model.embed_tokens.weight";
                case "output_norm.weight" -> "model.norm.weight";
                case "output.weight" -> gemma ? null : "lm_head.weight";
                default -> null;
            };
            if (global != null) {
                hf.put(global, gemma && name.equals("output_norm.weight") ? minusOne(t) : t);
                continue;
            }
            String[] block = block(name);
            int dot = block == null ? -1 : block[1].lastIndexOf('.');
            if (dot < 0) {
                unknown.add(name);
                continue;
            }
            String p = "model.layers." + block[0] + ".";
            String module = block[1].substring(0, dot);
            String kind = block[1].substring(dot + 1);
            String norm = norm(arch, module);
            if (norm != null) {
                if (!kind.equals("weight")) {
                    unknown.add(name);
                } else {
                    hf.put(p + norm + ".weight", gemma ? minusOne(t) : t);
                }
                continue;
            }
            if (!kind.equals("weight") && !kind.equals("bias") || kind.equals("bias") && !biased(arch, module)) {
                unknown.add(name);
                continue;
            }
            switch (module) {
                case "attn_q", "attn_k", "attn_v" -> {
                    if (phi3) {
                        phiParts.computeIfAbsent(p + "self_attn.qkv_proj." + kind, k -> new HostTensor[3])
                                ["qkv".indexOf(module.charAt(5))] = t;
                    } else {
                        putProjection(hf, arch, p, module.charAt(5), kind, t, heads, kvHeads, headDim);
                    }
                }
                case "attn_qkv" -> {
                    if (phi3) {
                        hf.put(p + "self_attn.qkv_proj." + kind, t);
                    } else {
                        int q = heads * headDim;
                        int kv = kvHeads * headDim;
                        if (t.shape().dim(0) != q + 2 * kv) {
                            throw new IllegalArgumentException("gguf: tensor " + name + " has shape " + t.shape()
                                    + ", expected " + (q + 2 * kv) + " rows (q " + q + ", k " + kv + ", v " + kv + ")");
                        }
                        putProjection(hf, arch, p, 'q', kind, t.rows(0, q), heads, kvHeads, headDim);
                        putProjection(hf, arch, p, 'k', kind, t.rows(q, q + kv), heads, kvHeads, headDim);
                        putProjection(hf, arch, p, 'v', kind, t.rows(q + kv, q + 2 * kv), heads, kvHeads, headDim);
                    }
                }
                case "attn_output" -> hf.put(p + "self_attn.o_proj." + kind, t);
                case "ffn_gate" -> {
                    if (phi3) {
                        unknown.add(name);
                    } else {
                        hf.put(p + "mlp.gate_proj." + kind, t);
                    }
                }
                case "ffn_up" -> hf.put(p + (phi3 ? "mlp.gate_up_proj." : "mlp.up_proj.") + kind, t);
                case "ffn_down" -> hf.put(p + "mlp.down_proj." + kind, t);
                default -> unknown.add(name);
            }
        }
        for (Map.Entry<String, HostTensor[]> e : phiParts.entrySet()) {
            HostTensor[] qkv = e.getValue();
            String where = e.getKey().replace("model.layers.", "blk.").replace(".self_attn.qkv_proj.", ".attn_{q,k,v}.");
            if (qkv[0] == null || qkv[1] == null || qkv[2] == null || hf.containsKey(e.getKey())) {
                throw new IllegalArgumentException("gguf: phi3 " + where + " must be all three of q, k and v, and"
                        + " not beside a fused attn_qkv");
            }
            hf.put(e.getKey(), HostTensor.concatRows(List.of(qkv)));
        }
        refuseUnknown(unknown, arch);
        return hf;
    }

    /** @return the Hugging Face name of a norm module of {@code arch}, or null if it is no norm there */
    private static String norm(String arch, String module) {
        return switch (module) {
            case "attn_norm" -> "input_layernorm";
            case "ffn_norm" -> sandwich(arch) ? "pre_feedforward_layernorm" : "post_attention_layernorm";
            case "post_attention_norm" -> sandwich(arch) ? "post_attention_layernorm" : null;
            case "post_ffw_norm" -> sandwich(arch) ? "post_feedforward_layernorm" : null;
            case "attn_q_norm" -> arch.equals("qwen3") || arch.equals("gemma3") ? "self_attn.q_norm" : null;
            case "attn_k_norm" -> arch.equals("qwen3") || arch.equals("gemma3") ? "self_attn.k_norm" : null;
            default -> null;
        };
    }

    /** @return whether {@code arch} norms both halves of a block before and after (Gemma 2 and 3) */
    private static boolean sandwich(String arch) {
        return arch.equals("gemma2") || arch.equals("gemma3");
    }

    /** @return whether the Hugging Face family of {@code arch} can have a bias on {@code module} */
    private static boolean biased(String arch, String module) {
        return switch (module) {
            case "attn_q", "attn_k", "attn_v", "attn_qkv" -> !arch.equals("phi3");
            case "attn_output" -> !arch.equals("phi3") && !arch.equals("qwen2");
            case "ffn_gate", "ffn_up", "ffn_down" -> arch.equals("llama");
            default -> false;
        };
    }

    private static void putProjection(Map<String, HostTensor> hf, String arch, String p, char which, String kind,
                                      HostTensor t, int heads, int kvHeads, int headDim) {
        String name = p + "self_attn." + which + "_proj." + kind;
        if (arch.equals("llama") && which != 'v') {
            t = unpermute(name, t, which == 'q' ? heads : kvHeads, headDim);
        }
        if (hf.put(name, t) != null) {
            throw new IllegalArgumentException("gguf: " + p.replace("model.layers.", "blk.") + "attn_" + which + "."
                    + kind + " is given both alone and inside attn_qkv");
        }
    }

    /** @return {@code t - 1} in double: Gemma's converter stores {@code 1 + w}, Hugging Face's norms hold {@code w} */
    private static HostTensor minusOne(HostTensor t) {
        double[] v = t.data();
        for (int i = 0; i < v.length; i++) {
            v[i] -= 1.0;
        }
        return new HostTensor(t.shape(), v);
    }

    private static Checkpoint gpt2(GgufMetadata m, StateDict tensors) {
        int hidden = m.count("embedding_length");
        int heads = m.count("attention.head_count");
        int kvHeads = m.count("attention.head_count_kv", heads);
        if (kvHeads != heads) {
            throw new IllegalArgumentException("gguf: gpt2.attention.head_count_kv " + kvHeads + " differs from"
                    + " gpt2.attention.head_count " + heads + "; GPT-2 has as many key/value heads as query heads");
        }
        int inner = m.count("feed_forward_length", 4 * hidden);
        if (inner != 4 * hidden) {
            throw new IllegalArgumentException("gguf: gpt2.feed_forward_length " + inner + " is not 4 × "
                    + "embedding_length " + hidden + ", as GPT-2's MLP is");
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("model_type", "gpt2");
        json.put("vocab_size", vocab(m, tensors));
        json.put("n_embd", hidden);
        json.put("n_layer", m.count("block_count"));
        json.put("n_head", heads);
        json.put("n_positions", m.count("context_length"));
        json.put("layer_norm_epsilon", required(m, "attention.layer_norm_epsilon"));
        json.put("tie_word_embeddings", !tensors.contains("output.weight"));
        m.finish();
        DecoderConfig config = DecoderConfig.of(json, "the GGUF file's gpt2 metadata");
        Map<String, HostTensor> hf = new TreeMap<>();
        List<String> unknown = new ArrayList<>();
        for (String name : tensors.names()) {
            String mapped = gpt2Name(name);
            if (mapped == null) {
                unknown.add(name);
            } else {
                hf.put(mapped, tensors.get(name));
            }
        }
        refuseUnknown(unknown, "gpt2");
        return new Checkpoint(config, StateDict.of(hf));
    }

    private static String gpt2Name(String name) {
        switch (name) {
            case "token_embd.weight":
                return "wte.weight";
            case "position_embd.weight":
                return "wpe.weight";
            case "output_norm.weight":
                return "ln_f.weight";
            case "output_norm.bias":
                return "ln_f.bias";
            case "output.weight":
                return "lm_head.weight";
            default:
                break;
        }
        String[] block = block(name);
        if (block == null) {
            return null;
        }
        String p = "h." + block[0] + ".";
        int dot = block[1].lastIndexOf('.');
        String kind = dot < 0 ? "" : block[1].substring(dot + 1);
        if (!kind.equals("weight") && !kind.equals("bias")) {
            return null;
        }
        String module = switch (block[1].substring(0, dot)) {
            case "attn_norm" -> "ln_1";
            case "attn_qkv" -> "attn.c_attn";
            case "attn_output" -> "attn.c_proj";
            case "ffn_norm" -> "ln_2";
            case "ffn_up" -> "mlp.c_fc";
            case "ffn_down" -> "mlp.c_proj";
            default -> null;
        };
        return module == null ? null : p + module + "." + kind;
    }

    /** @return {@code [N, rest]} of a name {@code blk.N.rest}, or null */
    private static String[] block(String name) {
        if (!name.startsWith("blk.")) {
            return null;
        }
        int dot = name.indexOf('.', 4);
        if (dot < 0 || !name.substring(4, dot).matches("[0-9]{1,6}")) {
            return null;
        }
        return new String[] {String.valueOf(Integer.parseInt(name.substring(4, dot))), name.substring(dot + 1)};
    }

    private static void refuseUnknown(List<String> unknown, String arch) {
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("gguf: tensors attn4j's " + arch + " decoder does not know, refused "
                    + "rather than ignored: " + String.join(", ", unknown));
        }
    }

    /**
     * Undoes llama.cpp's {@code permute(w, n_head, n_head_kv)} on a weight {@code [heads·d, in]} or a bias
     * {@code [heads·d]}: within each head's {@code d} rows, file row {@code 2i} goes back to row {@code i} and file
     * row {@code 2i + 1} to row {@code d/2 + i}. The result views the file's rows in the new order, copied
     * nowhere until it is bound, so that reading a file's configuration, or holding its parameters while a model
     * binds them one by one, keeps no second copy of every query and key weight.
     */
    static HostTensor unpermute(String name, HostTensor t, int heads, int headDim) {
        if (t.shape().rank() > 2 || t.shape().dim(0) != heads * headDim || headDim % 2 != 0) {
            throw new IllegalArgumentException("gguf: tensor " + name + " has shape " + t.shape() + ", expected "
                    + heads * headDim + " rows (" + heads + " heads of " + headDim + ", an even size)");
        }
        List<HostTensor> rows = new ArrayList<>(heads * headDim);
        for (int h = 0; h < heads; h++) {
            int base = h * headDim;
            for (int half = 0; half < 2; half++) {
                for (int i = 0; i < headDim / 2; i++) {
                    int row = base + 2 * i + half;
                    rows.add(t.rows(row, row + 1));
                }
            }
        }
        return HostTensor.ofRowBlocks(rows);
    }

    private static int vocab(GgufMetadata m, StateDict tensors) {
        HostTensor embed = tensors.contains("token_embd.weight") ? tensors.get("token_embd.weight") : null;
        if (embed == null || embed.shape().rank() != 2) {
            throw new IllegalArgumentException("gguf: the file has no matrix token_embd.weight"
                    + (embed == null ? "" : " (its shape is " + embed.shape() + ")"));
        }
        int v = embed.shape().dim(0);
        int given = m.count("vocab_size", v);
        if (given != v) {
            throw new IllegalArgumentException("gguf: " + m.name("vocab_size") + " " + given
                    + " differs from the " + v + " rows of token_embd.weight");
        }
        return v;
    }
}
