package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code config.json} of an encoder family (XLM-RoBERTa, MPNet, NomicBERT, ModernBERT, GTE) read key by key,
 * strictly: each key a family reader takes is marked read, each key it may ignore is named so ({@link #ignore}), and
 * {@link #finish()} refuses every other key with its value, and every value the reader could not honour, in one
 * {@link IOException} naming the file.
 *
 * <p>{@link #METADATA} lists the keys of transformers' {@code PretrainedConfig} that no encoder forward reads
 * (identity and provenance, token ids, output switches, dropout and initialisation, which inference never applies);
 * a family that does read one of them (the padding id of XLM-RoBERTa's positions) reads it like any other key.
 */
final class ConfigKeys {
    static final Set<String> METADATA = Set.of("_name_or_path", "architectures", "auto_map", "model_type",
            "torch_dtype", "dtype", "transformers_version", "_commit_hash", "_attn_implementation",
            "attn_implementation", "use_cache", "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
            "cls_token_id", "initializer_range", "tokenizer_class", "id2label", "label2id", "num_labels",
            "problem_type", "finetuning_task", "return_dict", "output_attentions", "output_hidden_states",
            "torchscript", "gradient_checkpointing", "classifier_dropout", "_attn_implementation_autoset",
            "attention_probs_dropout_prob", "hidden_dropout_prob", "output_past", "use_bfloat16",
            "sentence_transformers", "tie_word_embeddings");

    private final JsonNode root;
    private final String source;
    private final String family;
    private final Set<String> seen = new LinkedHashSet<>();
    private final List<String> problems = new ArrayList<>();

    private ConfigKeys(JsonNode root, String source, String family) {
        this.root = root;
        this.source = source;
        this.family = family;
    }

    /**
     * @param root a parsed {@code config.json}
     * @param source the file, for messages
     * @param family the {@code model_type} the reader expects
     * @return the reader, {@link #METADATA} already ignored
     * @throws IOException if {@code root} is not an object or names another {@code model_type}
     */
    static ConfigKeys of(JsonNode root, String source, String family) throws IOException {
        if (root == null || !root.isObject()) {
            throw new IOException(source + ": not a JSON object");
        }
        String type = root.path("model_type").asText("");
        if (!type.equals(family)) {
            throw new IOException(source + ": model_type '" + type + "' is not " + family);
        }
        ConfigKeys keys = new ConfigKeys(root, source, family);
        keys.ignore(METADATA.toArray(new String[0]));
        return keys;
    }

    /** @param names keys that change no number of the forward pass */
    void ignore(String... names) {
        seen.addAll(List.of(names));
    }

    /** @return whether the file sets {@code name} to something other than null */
    boolean has(String name) {
        JsonNode n = root.get(name);
        return n != null && !n.isNull();
    }

    /** @return the key's node (marked read), or null when absent or null */
    JsonNode node(String name) {
        seen.add(name);
        JsonNode n = root.get(name);
        return n == null || n.isNull() ? null : n;
    }

    /** An integer at least 1; {@code orElse} when absent, or a problem when {@code orElse} is negative. */
    int size(String name, int orElse) {
        JsonNode n = node(name);
        if (n == null && orElse >= 0) {
            return orElse;
        }
        if (n == null || !n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() < 1) {
            problems.add(name + " is " + (n == null ? "missing" : n) + "; a positive integer was expected");
            return 1;
        }
        return n.intValue();
    }

    /** An integer at least 0, {@code orElse} when absent. */
    int count(String name, int orElse) {
        JsonNode n = node(name);
        if (n == null) {
            return orElse;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 0) {
            problems.add(name + " is " + n + "; an integer at least 0 was expected");
            return orElse;
        }
        return n.intValue();
    }

    /** A finite number, {@code orElse} when absent. */
    double number(String name, double orElse) {
        JsonNode n = node(name);
        if (n == null) {
            return orElse;
        }
        if (!n.isNumber() || !Double.isFinite(n.doubleValue())) {
            problems.add(name + " is " + n + "; a finite number was expected");
            return orElse;
        }
        return n.doubleValue();
    }

    /** A boolean, {@code orElse} when absent. */
    boolean flag(String name, boolean orElse) {
        JsonNode n = node(name);
        if (n == null) {
            return orElse;
        }
        if (!n.isBoolean()) {
            problems.add(name + " is " + n + "; true or false was expected");
            return orElse;
        }
        return n.booleanValue();
    }

    /** A string, {@code orElse} when absent. */
    String text(String name, String orElse) {
        JsonNode n = node(name);
        if (n == null) {
            return orElse;
        }
        if (!n.isTextual()) {
            problems.add(name + " is " + n + "; a string was expected");
            return orElse;
        }
        return n.textValue();
    }

    /**
     * Accepts the key only absent, null or equal to {@code value}, which is what the reader implements; a null
     * {@code value} stands for the empty object.
     */
    void require(String name, Object value, String why) {
        JsonNode n = node(name);
        if (n == null) {
            return;
        }
        boolean same = value == null ? n.isObject() && n.isEmpty()
                : value instanceof Boolean b ? n.isBoolean() && n.booleanValue() == b
                : value instanceof Number v ? n.isNumber() && n.doubleValue() == v.doubleValue()
                : n.isTextual() && n.textValue().equals(value);
        if (!same) {
            problems.add(name + " is " + n + ": " + why);
        }
    }

    /** Accepts the key only absent or null. */
    void requireNull(String name, String why) {
        JsonNode n = node(name);
        if (n != null) {
            problems.add(name + " is " + n + ": " + why);
        }
    }

    /** Notes a value the reader cannot honour. */
    void problem(String name, Object value, String why) {
        problems.add(name + " is " + value + ": " + why);
    }

    /** Notes a value the reader cannot honour, said in full. */
    void problem(String message) {
        problems.add(message);
    }

    /**
     * @throws IOException naming every key the reader neither read nor ignored, and every problem
     */
    void finish() throws IOException {
        List<String> all = new ArrayList<>(problems);
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!seen.contains(name)) {
                all.add(name + " (" + root.get(name) + ") is not read by attn4j's " + family + " encoder");
            }
        }
        if (!all.isEmpty()) {
            throw new IOException(source + ": " + String.join("; ", all));
        }
    }
}
