package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A {@code config.json} read key by key, strictly: every key a family reader takes is marked honoured, every key it
 * may ignore is named as such, and {@link #finish()} refuses, in one {@link IllegalArgumentException} that names the
 * file, every other key with its value and every value the reader could not honour. A nested object (for example
 * {@code rope_scaling}) is a {@link #section} whose keys are checked the same way under their dotted path.
 *
 * <p>Keys that change no number of a decoder's forward pass and that any family's config may carry are ignored here
 * for every family ({@link #METADATA}): what the file and its producer are, token ids that only generation uses,
 * generation defaults, output switches and training-only settings. {@code pruned_heads}, {@code is_encoder_decoder},
 * {@code add_cross_attention} and {@code cross_attention_hidden_size} are accepted only with the values of a plain
 * decoder ({@code {}}, false, false, null).
 */
final class ConfigJson {
    /**
     * Keys of transformers' {@code PretrainedConfig} and of generation that no forward pass reads: identity and
     * provenance, the special token ids and sampling defaults generation uses, output switches, and settings only
     * training or other heads read.
     */
    static final Set<String> METADATA = Set.of(
            "_name_or_path", "architectures", "auto_map", "model_type", "torch_dtype", "dtype",
            "transformers_version", "_commit_hash", "_attn_implementation", "_attn_implementation_autoset",
            "attn_implementation", "_from_model_config", "use_cache", "bos_token_id", "eos_token_id", "pad_token_id",
            "sep_token_id", "decoder_start_token_id", "initializer_range", "tokenizer_class", "id2label", "label2id",
            "num_labels", "problem_type", "finetuning_task", "prefix", "task_specific_params", "return_dict",
            "output_attentions", "output_hidden_states", "output_scores", "torchscript", "use_bfloat16",
            "tf_legacy_loss", "is_decoder", "chunk_size_feed_forward", "tie_encoder_decoder", "max_length",
            "min_length", "do_sample", "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty",
            "temperature", "top_k", "top_p", "typical_p", "repetition_penalty", "length_penalty",
            "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "bad_words_ids", "num_return_sequences",
            "return_dict_in_generate", "forced_bos_token_id", "forced_eos_token_id", "remove_invalid_values",
            "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens", "cache_implementation",
            "gradient_checkpointing", "_num_labels", "output_past", "unsloth_version", "unsloth_fixed");

    private final Map<String, Object> json;
    private final String where;
    private final String path;
    private final String family;
    private final List<String> problems;
    private final Set<String> seen = new LinkedHashSet<>();

    private ConfigJson(Map<String, Object> json, String where, String path, String family, List<String> problems) {
        this.json = json;
        this.where = where;
        this.path = path;
        this.family = family;
        this.problems = problems;
    }

    /**
     * @param json a parsed {@code config.json}
     * @param where the file, for messages
     * @param family the reader's family name, for messages
     * @return the top-level reader, with {@link #METADATA} already ignored
     */
    static ConfigJson of(Map<?, ?> json, String where, String family) {
        Map<String, Object> copy = new TreeMap<>();
        json.forEach((k, v) -> copy.put(String.valueOf(k), v));
        ConfigJson c = new ConfigJson(copy, where, "", family, new ArrayList<>());
        c.ignore(METADATA.toArray(new String[0]));
        c.neutral("pruned_heads", Map.of());
        c.neutral("is_encoder_decoder", false);
        c.neutral("add_cross_attention", false);
        c.neutral("cross_attention_hidden_size");
        return c;
    }

    /** @return the file, for messages */
    String where() {
        return where;
    }

    /** @return the family whose reader this is */
    String family() {
        return family;
    }

    /** @return whether {@code key} is present with a value other than null (marks nothing) */
    boolean has(String key) {
        return json.get(key) != null;
    }

    /** @return whether {@code key} is present, even as null (marks nothing) */
    boolean present(String key) {
        return json.containsKey(key);
    }

    /** @return the raw value of {@code key}, marked honoured; null if absent */
    Object raw(String key) {
        seen.add(key);
        return json.get(key);
    }

    /**
     * @param key a key
     * @param fallback transformers' default, used when the key is absent or null
     * @return its integer value
     */
    int integer(String key, int fallback) {
        Integer v = optionalInteger(key);
        return v == null ? fallback : v;
    }

    /** @return the integer value of {@code key}, or null when absent or null */
    Integer optionalInteger(String key) {
        Object v = raw(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && Math.abs(n.doubleValue()) <= Integer.MAX_VALUE) {
            return n.intValue();
        }
        problem(key, v, "is not an integer");
        return null;
    }

    /**
     * @param key a key
     * @param fallback transformers' default, used when the key is absent or null
     * @return its numeric value
     */
    double number(String key, double fallback) {
        Double v = optionalNumber(key);
        return v == null ? fallback : v;
    }

    /** @return the numeric value of {@code key}, or null when absent or null */
    Double optionalNumber(String key) {
        Object v = raw(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n && Double.isFinite(n.doubleValue())) {
            return n.doubleValue();
        }
        problem(key, v, "is not a finite number");
        return null;
    }

    /**
     * @param key a key
     * @param fallback transformers' default, used when the key is absent or null
     * @return its boolean value
     */
    boolean bool(String key, boolean fallback) {
        Object v = raw(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        problem(key, v, "is not true or false");
        return fallback;
    }

    /**
     * @param key a key
     * @param fallback transformers' default, used when the key is absent or null
     * @return its string value
     */
    String string(String key, String fallback) {
        Object v = raw(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof String s) {
            return s;
        }
        problem(key, v, "is not a string");
        return fallback;
    }

    /**
     * @param key a key
     * @return its list of numbers, or null when absent or null
     */
    double[] numbers(String key) {
        Object v = raw(key);
        if (v == null) {
            return null;
        }
        if (v instanceof List<?> list) {
            double[] out = new double[list.size()];
            for (int i = 0; i < out.length; i++) {
                if (!(list.get(i) instanceof Number n) || !Double.isFinite(n.doubleValue())) {
                    problem(key, v, "holds " + list.get(i) + " at " + i + ", not a finite number");
                    return null;
                }
                out[i] = n.doubleValue();
            }
            return out;
        }
        problem(key, v, "is not a list of numbers");
        return null;
    }

    /**
     * @param key a key
     * @return its list of strings, or null when absent or null
     */
    List<String> strings(String key) {
        Object v = raw(key);
        if (v == null) {
            return null;
        }
        if (v instanceof List<?> list && list.stream().allMatch(e -> e instanceof String)) {
            return list.stream().map(String.class::cast).toList();
        }
        problem(key, v, "is not a list of strings");
        return null;
    }

    /**
     * @param key a key whose value is a JSON object, or null
     * @return a reader of that object whose problems land in this one's message, or null when absent or null
     */
    ConfigJson section(String key) {
        Object v = raw(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> map)) {
            problem(key, v, "is not a JSON object");
            return null;
        }
        Map<String, Object> copy = new TreeMap<>();
        map.forEach((k, e) -> copy.put(String.valueOf(k), e));
        return new ConfigJson(copy, where, path + key + ".", family, problems);
    }

    /** @return the keys of this object, in order */
    Set<String> keys() {
        return json.keySet();
    }

    /** Marks keys that change no number of this family's forward pass, whatever their value. */
    void ignore(String... keys) {
        seen.addAll(Arrays.asList(keys));
    }

    /**
     * Accepts {@code key} only with a value that changes nothing (or absent, or null): for example
     * {@code "attention_bias": false} in a family without attention biases.
     *
     * @param key the key
     * @param neutral the values it may have
     */
    void neutral(String key, Object... neutral) {
        Object v = raw(key);
        if (v == null) {
            return;
        }
        for (Object n : neutral) {
            if (n instanceof Number a && v instanceof Number b ? a.doubleValue() == b.doubleValue()
                    : Objects.equals(n, v)) {
                return;
            }
        }
        problem(key, v, "is not supported; " + family + " runs only with "
                + (neutral.length == 0 ? "null" : Arrays.toString(neutral)));
    }

    /**
     * Notes a value this family cannot honour; {@link #finish()} refuses the file with it.
     *
     * @param key the key
     * @param value its value
     * @param why what is wrong, or what is supported
     */
    void problem(String key, Object value, String why) {
        problems.add("key \"" + path + key + "\" = " + show(value) + " " + why);
    }

    private static String show(Object v) {
        if (v instanceof String s) {
            return "\"" + s + "\"";
        }
        String text = String.valueOf(v);
        return text.length() > 80 ? text.substring(0, 77) + "..." : text;
    }

    /**
     * Notes every key of this object (a section too) that no reader took or ignored.
     */
    void unknownKeys() {
        for (Map.Entry<String, Object> e : json.entrySet()) {
            if (!seen.contains(e.getKey())) {
                problem(e.getKey(), e.getValue(), "is not a key attn4j's " + family + " reader knows");
            }
        }
    }

    /**
     * @throws IllegalArgumentException naming the file and every unknown key and unsupported value, if any
     */
    void finish() {
        unknownKeys();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("decoder: " + where + ": the " + family
                    + " config is not supported as it stands, since attn4j would compute other numbers than the"
                    + " checkpoint intends: " + String.join("; ", problems));
        }
    }
}
