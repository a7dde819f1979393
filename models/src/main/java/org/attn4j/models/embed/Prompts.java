package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The prompts a sentence-transformers folder names in {@code config_sentence_transformers.json}: {@code prompts}
 * (name → text put before a text, such as Qwen3-Embedding's {@code "query"}) and {@code default_prompt_name} (the one
 * used when a caller names none, or null). Of the file's other keys, {@code __version__}, {@code model_type} and
 * {@code similarity_fn_name} change no vector and are passed over; any other is refused by name.
 *
 * @param prompts name → text, in the file's order
 * @param defaultName the default prompt's name, or null
 */
record Prompts(Map<String, String> prompts, String defaultName) {
    static final String FILE = "config_sentence_transformers.json";
    /** No prompts. */
    static final Prompts NONE = new Prompts(Map.of(), null);
    private static final Set<String> KEYS = Set.of("prompts", "default_prompt_name", "__version__", "model_type",
            "similarity_fn_name");

    static Prompts read(Path folder) throws IOException {
        Path file = folder.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return NONE;
        }
        JsonNode json;
        try (InputStream in = Files.newInputStream(file)) {
            json = new ObjectMapper().readTree(in);
        }
        if (json == null || !json.isObject()) {
            throw new IOException(file + ": not a JSON object");
        }
        for (var e : json.properties()) {
            if (!KEYS.contains(e.getKey())) {
                throw new IOException(file + ": key " + e.getKey() + " is not supported (" + String.join(", ",
                        KEYS.stream().sorted().toList()) + " are)");
            }
        }
        Map<String, String> prompts = new LinkedHashMap<>();
        for (var e : json.path("prompts").properties()) {
            if (!e.getValue().isTextual()) {
                throw new IOException(file + ": prompt " + e.getKey() + " is not a string");
            }
            prompts.put(e.getKey(), e.getValue().textValue());
        }
        JsonNode name = json.path("default_prompt_name");
        String defaultName = name.isTextual() ? name.textValue() : null;
        if (defaultName != null && !prompts.containsKey(defaultName)) {
            throw new IOException(file + ": default_prompt_name " + defaultName + " is not among the prompts "
                    + prompts.keySet());
        }
        return new Prompts(java.util.Collections.unmodifiableMap(prompts), defaultName);
    }

    /**
     * @param options what the caller asked for
     * @param model how messages name the model
     * @return the text to put before every text: the options' prompt, the named prompt, the default prompt, or ""
     * @throws IllegalArgumentException if the options name a prompt the model does not have
     */
    String choose(EmbeddingOptions options, String model) {
        if (options.prompt().isPresent()) {
            return options.prompt().get();
        }
        String name = options.promptName().orElse(defaultName);
        if (name == null) {
            return "";
        }
        String text = prompts.get(name);
        if (text == null) {
            throw new IllegalArgumentException("SentenceEmbedder: prompt name " + name + " is not among the prompts "
                    + List.copyOf(prompts.keySet()) + " of " + model + "'s " + FILE);
        }
        return text;
    }
}
