package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a model's files say about what follows the encoder. A sentence-transformers folder says it in
 * {@code modules.json}, whose modules run in order: {@code Transformer}, then {@code Pooling} (its folder's
 * {@code config.json}: one {@code pooling_mode_*}, {@code include_prompt}), any {@code Dense} projections
 * ({@link DenseModule}), and {@code Normalize} last; also {@code sentence_bert_config.json} ({@code max_seq_length})
 * and {@code config_sentence_transformers.json} ({@code prompts}, {@code default_prompt_name}). Any other module
 * type, order or key that changes the vectors is refused by name. A langchain4j model jar states its pooling in its
 * model class; a plain Hugging Face folder says nothing.
 *
 * @param pooling the pooling, or null when the files do not say
 * @param normalize whether a Normalize module follows, or null when nothing says
 * @param maxLength {@code max_seq_length}, or 0 when absent
 * @param statedBy which file states the pooling, or null when none does
 * @param includePrompt whether pooling reads a prompt's tokens ({@code include_prompt}, true when absent)
 * @param dense the Dense modules after pooling, in order
 * @param prompts the named prompts
 * @param defaultPromptName the prompt used when none is named, or null
 */
record ModelFolder(Pooling pooling, Boolean normalize, int maxLength, String statedBy, boolean includePrompt,
                   List<DenseModule> dense, Map<String, String> prompts, String defaultPromptName) {
    /** Nothing stated. */
    static final ModelFolder SILENT = new ModelFolder(null, null, 0, null);

    private static final String MODULES = "sentence_transformers.models.";
    private static final Set<String> POOLING_KEYS = Set.of("word_embedding_dimension", "pooling_mode_cls_token",
            "pooling_mode_mean_tokens", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
            "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken", "include_prompt");
    private static final Set<String> SETTINGS_KEYS = Set.of("__version__", "prompts", "default_prompt_name",
            "similarity_fn_name", "model_type");

    ModelFolder {
        dense = List.copyOf(dense);
        prompts = Map.copyOf(prompts);
    }

    /**
     * A folder that states only pooling, normalisation and length.
     *
     * @param pooling the pooling, or null
     * @param normalize whether vectors are normalised, or null
     * @param maxLength the length, or 0
     * @param statedBy which file states the pooling, or null
     */
    ModelFolder(Pooling pooling, Boolean normalize, int maxLength, String statedBy) {
        this(pooling, normalize, maxLength, statedBy, true, List.of(), Map.of(), null);
    }

    static ModelFolder read(Path folder) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Pooling pooling = null;
        Boolean normalize = null;
        String statedBy = null;
        boolean includePrompt = true;
        List<DenseModule> dense = new ArrayList<>();
        Path modules = folder.resolve("modules.json");
        if (Files.isRegularFile(modules)) {
            normalize = false;
            int stage = -1;
            for (JsonNode m : tree(json, modules)) {
                String type = m.path("type").asText("");
                String name = type.startsWith(MODULES) ? type.substring(MODULES.length()) : type;
                int next = switch (name) {
                    case "Transformer" -> 0;
                    case "Pooling" -> 1;
                    case "Dense" -> 2;
                    case "Normalize" -> 3;
                    default -> throw new IOException(modules + ": module type '" + type + "' is not supported ("
                            + MODULES + "Transformer, Pooling, Dense and Normalize are)");
                };
                if (next < stage || (next == stage && next != 2)) {
                    throw new IOException(modules + ": module " + type + " comes after a module it must precede;"
                            + " attn4j runs Transformer, Pooling, any Dense, Normalize in that order");
                }
                stage = next;
                if (next == 0) {
                    continue;
                }
                if (next == 3) {
                    normalize = true;
                    continue;
                }
                Path dir = folder.resolve(m.path("path").asText("")).normalize();
                if (!dir.startsWith(folder.normalize())) {
                    throw new IOException(modules + ": module path " + m.path("path") + " leaves the folder");
                }
                Path config = dir.resolve("config.json");
                if (next == 1) {
                    JsonNode c = tree(json, config);
                    pooling = pooling(c, config);
                    includePrompt = c.path("include_prompt").asBoolean(true);
                    statedBy = folder.relativize(config).toString();
                } else {
                    dense.add(DenseModule.read(dir, tree(json, config), folder.relativize(dir).toString()));
                }
            }
        }
        int maxLength = 0;
        Path sbert = folder.resolve("sentence_bert_config.json");
        if (Files.isRegularFile(sbert)) {
            maxLength = tree(json, sbert).path("max_seq_length").asInt(0);
        }
        Map<String, String> prompts = new LinkedHashMap<>();
        String defaultPrompt = null;
        Path settings = folder.resolve("config_sentence_transformers.json");
        if (Files.isRegularFile(settings)) {
            JsonNode s = tree(json, settings);
            refuseUnknown(s, SETTINGS_KEYS, settings, "config_sentence_transformers.json");
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("prompts").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isTextual()) {
                    throw new IOException(settings + ": prompt '" + e.getKey() + "' is " + e.getValue()
                            + "; a string was expected");
                }
                prompts.put(e.getKey(), e.getValue().asText());
            }
            JsonNode d = s.get("default_prompt_name");
            if (d != null && !d.isNull()) {
                defaultPrompt = d.asText();
                if (!prompts.containsKey(defaultPrompt)) {
                    throw new IOException(settings + ": default_prompt_name '" + defaultPrompt + "' is not one of"
                            + " the prompts " + prompts.keySet());
                }
            }
        }
        return new ModelFolder(pooling, normalize, maxLength, statedBy, includePrompt, dense, prompts, defaultPrompt);
    }

    private static JsonNode tree(ObjectMapper json, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return json.readTree(in);
        }
    }

    private static void refuseUnknown(JsonNode node, Set<String> known, Path file, String what) throws IOException {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                unknown.add(name + " = " + node.get(name));
            }
        }
        if (!unknown.isEmpty()) {
            throw new IOException(file + ": keys attn4j does not implement in " + what + ": "
                    + String.join(", ", unknown));
        }
    }

    private static Pooling pooling(JsonNode config, Path file) throws IOException {
        refuseUnknown(config, POOLING_KEYS, file, "a Pooling module's config.json");
        Pooling found = null;
        int modes = 0;
        for (var e : config.properties()) {
            if (e.getKey().startsWith("pooling_mode_") && e.getValue().asBoolean(false)) {
                modes++;
                found = switch (e.getKey()) {
                    case "pooling_mode_mean_tokens" -> Pooling.MEAN;
                    case "pooling_mode_cls_token" -> Pooling.CLS;
                    case "pooling_mode_max_tokens" -> Pooling.MAX;
                    case "pooling_mode_mean_sqrt_len_tokens" -> Pooling.MEAN_SQRT_LEN;
                    case "pooling_mode_weightedmean_tokens" -> Pooling.WEIGHTED_MEAN;
                    case "pooling_mode_lasttoken" -> Pooling.LAST_TOKEN;
                    default -> throw new IllegalStateException(e.getKey());
                };
            }
        }
        if (modes != 1) {
            throw new IOException(file + ": " + modes + " pooling modes are on; attn4j supports exactly one (the"
                    + " vectors of several are concatenated by sentence-transformers)");
        }
        return found;
    }
}
