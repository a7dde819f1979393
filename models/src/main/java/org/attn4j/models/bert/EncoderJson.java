package org.attn4j.models.bert;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code config.json} of an encoder family read key by key: each key a reader takes is honoured, the keys of
 * {@link #IGNORED} change no number of an encoder's inference forward, and {@link #finish()} refuses every other key
 * and every value a reader could not use, all at once, by name.
 */
final class EncoderJson {
    /**
     * Keys that no inference forward of an encoder reads: identity and provenance, special token ids other than the
     * padding id, dropout and initialisation (training only), output switches, and the labels of a classifier (whose
     * count comes from its weights).
     */
    static final Set<String> IGNORED = Set.of("_name_or_path", "architectures", "auto_map", "model_type",
            "torch_dtype", "dtype", "transformers_version", "_commit_hash", "_attn_implementation_autoset",
            "bos_token_id", "eos_token_id", "sep_token_id", "initializer_range", "attention_probs_dropout_prob",
            "hidden_dropout_prob", "classifier_dropout", "gradient_checkpointing", "use_cache", "output_past",
            "tokenizer_class", "id2label", "label2id", "num_labels", "problem_type", "finetuning_task",
            "return_dict", "output_attentions", "output_hidden_states", "torchscript", "use_bfloat16",
            "sentence_transformers", "tie_word_embeddings");

    private final JsonNode root;
    private final String source;
    private final String family;
    private final Set<String> seen = new LinkedHashSet<>();
    private final List<String> problems = new ArrayList<>();

    private EncoderJson(JsonNode root, String source, String family) {
        this.root = root;
        this.source = source;
        this.family = family;
        seen.addAll(IGNORED);
    }

    /**
     * @param root a parsed {@code config.json}
     * @param source the file, for messages
     * @param modelType the {@code model_type} the family reads
     * @return the reader
     * @throws IOException if {@code root} is no object or names another {@code model_type}
     */
    static EncoderJson of(JsonNode root, String source, String modelType) throws IOException {
        if (root == null || !root.isObject()) {
            throw new IOException(source + ": not a JSON object");
        }
        String type = root.path("model_type").asText("");
        if (!type.equals(modelType)) {
            throw new IOException(source + ": model_type '" + type + "' is not " + modelType);
        }
        return new EncoderJson(root, source, modelType);
    }

    /**
     * @param key a key
     * @param fallback transformers' default, or -1 when the key is required
     * @return its integer value
     */
    int integer(String key, int fallback) {
        seen.add(key);
        JsonNode n = root.get(key);
        if ((n == null || n.isNull()) && fallback >= 0) {
            return fallback;
        }
        if (n == null || n.isNull() || !n.isIntegralNumber() || !n.canConvertToInt()) {
            problems.add(key + " is " + (n == null ? "missing" : n) + "; an integer was expected");
            return Math.max(fallback, 1);
        }
        return n.intValue();
    }

    /**
     * @param key a key
     * @param fallback transformers' default
     * @return its finite numeric value
     */
    double number(String key, double fallback) {
        seen.add(key);
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return fallback;
        }
        if (!n.isNumber() || !Double.isFinite(n.doubleValue())) {
            problems.add(key + " is " + n + "; a finite number was expected");
            return fallback;
        }
        return n.doubleValue();
    }

    /**
     * @param key a key
     * @param fallback transformers' default
     * @return its string value
     */
    String string(String key, String fallback) {
        seen.add(key);
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return fallback;
        }
        if (!n.isTextual()) {
            problems.add(key + " is " + n + "; a string was expected");
            return fallback;
        }
        return n.asText();
    }

    /**
     * Accepts {@code key} only absent, null or equal to the one value the family implements.
     *
     * @param key a key
     * @param value the value attn4j implements
     * @param why what another value would mean, for the message
     */
    void only(String key, Object value, String why) {
        seen.add(key);
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return;
        }
        boolean same = value instanceof String s ? n.isTextual() && n.asText().equals(s)
                : value instanceof Boolean b ? n.isBoolean() && n.booleanValue() == b
                : value instanceof Integer i ? n.isIntegralNumber() && n.intValue() == i
                : n.isObject() && n.isEmpty();
        if (!same) {
            problems.add(key + " is " + n + "; attn4j implements only " + (value == null ? "{}" : value) + " ("
                    + why + ")");
        }
    }

    /**
     * @param message a value the reader cannot use, said in full
     */
    void problem(String message) {
        problems.add(message);
    }

    /** @return the file, for messages */
    String source() {
        return source;
    }

    /**
     * @throws IOException naming every key no reader took and every problem found, if any
     */
    void finish() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!seen.contains(name)) {
                unknown.add(name + " = " + root.get(name));
            }
        }
        List<String> all = new ArrayList<>(problems);
        if (!unknown.isEmpty()) {
            all.add("keys attn4j does not implement for " + family + ": " + String.join(", ", unknown));
        }
        if (!all.isEmpty()) {
            throw new IOException(source + ": " + String.join("; ", all));
        }
    }
}
