package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a sentence-transformers folder says about pooling, normalisation and length:
 * {@code modules.json} (a {@code Pooling} module's folder, a {@code Normalize} module),
 * {@code <pooling folder>/config.json} ({@code pooling_mode_*_tokens}) and {@code sentence_bert_config.json}
 * ({@code max_seq_length}). A plain Hugging Face folder has none of them.
 *
 * @param pooling the pooling, or null when the folder does not say
 * @param normalize whether a Normalize module follows, or null when there is no {@code modules.json}
 * @param maxLength {@code max_seq_length}, or 0 when absent
 */
record ModelFolder(Pooling pooling, Boolean normalize, int maxLength) {

    static ModelFolder read(Path folder) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Pooling pooling = null;
        Boolean normalize = null;
        Path modules = folder.resolve("modules.json");
        if (Files.isRegularFile(modules)) {
            normalize = false;
            for (JsonNode m : json.readTree(modules.toFile())) {
                String type = m.path("type").asText("");
                if (type.endsWith(".Normalize")) {
                    normalize = true;
                } else if (type.endsWith(".Pooling")) {
                    Path config = folder.resolve(m.path("path").asText("")).resolve("config.json").normalize();
                    if (!config.startsWith(folder.normalize())) {
                        throw new IOException(modules + ": module path " + m.path("path") + " leaves the folder");
                    }
                    pooling = pooling(json.readTree(config.toFile()), config);
                }
            }
        }
        int maxLength = 0;
        Path sbert = folder.resolve("sentence_bert_config.json");
        if (Files.isRegularFile(sbert)) {
            maxLength = json.readTree(sbert.toFile()).path("max_seq_length").asInt(0);
        }
        return new ModelFolder(pooling, normalize, maxLength);
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
                    default -> throw new IOException(file + ": " + e.getKey()
                            + " is not supported (mean, cls and max pooling are)");
                };
            }
        }
        if (modes != 1) {
            throw new IOException(file + ": " + modes + " pooling modes are on; attn4j supports exactly one");
        }
        return found;
    }
}
