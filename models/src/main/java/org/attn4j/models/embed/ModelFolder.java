package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a model's files say about pooling, normalisation and length. A sentence-transformers folder says it in
 * {@code modules.json} (a {@code Pooling} module's folder, a {@code Normalize} module),
 * {@code <pooling folder>/config.json} ({@code pooling_mode_*_tokens}, {@code pooling_mode_cls_token},
 * {@code pooling_mode_lasttoken}) and {@code sentence_bert_config.json}
 * ({@code max_seq_length}); a langchain4j model jar in its model class; a plain Hugging Face folder says nothing.
 *
 * @param pooling the pooling, or null when the files do not say
 * @param normalize whether a Normalize module follows, or null when nothing says
 * @param maxLength {@code max_seq_length}, or 0 when absent
 * @param statedBy which file states the pooling, or null when none does
 */
record ModelFolder(Pooling pooling, Boolean normalize, int maxLength, String statedBy) {
    /** Nothing stated. */
    static final ModelFolder SILENT = new ModelFolder(null, null, 0, null);

    static ModelFolder read(Path folder) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Pooling pooling = null;
        Boolean normalize = null;
        String statedBy = null;
        Path modules = folder.resolve("modules.json");
        if (Files.isRegularFile(modules)) {
            normalize = false;
            for (JsonNode m : tree(json, modules)) {
                String type = m.path("type").asText("");
                if (type.endsWith(".Normalize")) {
                    normalize = true;
                } else if (type.endsWith(".Pooling")) {
                    Path config = folder.resolve(m.path("path").asText("")).resolve("config.json").normalize();
                    if (!config.startsWith(folder.normalize())) {
                        throw new IOException(modules + ": module path " + m.path("path") + " leaves the folder");
                    }
                    pooling = pooling(tree(json, config), config);
                    statedBy = folder.relativize(config).toString();
                }
            }
        }
        int maxLength = 0;
        Path sbert = folder.resolve("sentence_bert_config.json");
        if (Files.isRegularFile(sbert)) {
            maxLength = tree(json, sbert).path("max_seq_length").asInt(0);
        }
        return new ModelFolder(pooling, normalize, maxLength, statedBy);
    }

    private static JsonNode tree(ObjectMapper json, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return json.readTree(in);
        }
    }

    private static Pooling pooling(JsonNode config, Path file) throws IOException {
        Pooling found = null;
        int modes = 0;
        for (var e : config.properties()) {
            if (e.getKey().startsWith("pooling_mode_") && e.getValue().asBoolean(false)) {
                modes++;
                found = switch (e.getKey()) {
                    case "pooling_mode_mean_tokens" -> Pooling.MEAN;
                    case "pooling_mode_cls_token" -> Pooling.CLS;
                    case "pooling_mode_max_tokens" -> Pooling.MAX;
                    case "pooling_mode_lasttoken" -> Pooling.LAST_TOKEN;
                    default -> throw new IOException(file + ": " + e.getKey()
                            + " is not supported (mean, cls, max and last-token pooling are)");
                };
            }
        }
        if (modes != 1) {
            throw new IOException(file + ": " + modes + " pooling modes are on; attn4j supports exactly one");
        }
        return found;
    }
}
