package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.attn4j.models.embed.SentenceEmbedding;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * {@code POST /v1/embeddings}, as OpenAI's API defines it:
 * <pre>
 *   {"model": "NAME", "input": "text" | ["text", ...], "encoding_format": "float" | "base64",
 *    "dimensions": N, "user": "...", "truncate": false}
 *   → {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...] | "base64"}],
 *      "model": "NAME", "usage": {"prompt_tokens": T, "total_tokens": T}}
 * </pre>
 * {@code base64} is the vector's little-endian float32 bytes. {@code prompt_tokens} counts the tokens the encoder
 * read, {@code [CLS]} and {@code [SEP]} included. A text longer than the model's maximum length is refused (400,
 * {@code context_length_exceeded}) unless the request says {@code "truncate": true} (an extension; OpenAI's API has
 * no such parameter), which keeps its first tokens as {@link SentenceEmbedder} does. Texts must be non-empty strings;
 * token-id inputs are refused. A checked request is queued on its encoder's {@link EmbeddingBatcher};
 * {@link EmbeddingsJson} writes its answer.
 */
final class EmbeddingsEndpoint {
    private static final Set<String> KNOWN = Set.of("model", "input", "encoding_format", "dimensions", "user",
            "truncate");

    private final Map<String, ServedModels.Encoder> encoders;
    private final Map<String, EmbeddingBatcher> batchers;
    private final ServerOptions options;

    EmbeddingsEndpoint(Map<String, ServedModels.Encoder> encoders, Map<String, EmbeddingBatcher> batchers,
                       ServerOptions options) {
        this.encoders = encoders;
        this.batchers = batchers;
        this.options = options;
    }

    /** One request checked and queued: its answer is written once its batch has run. */
    record Pending(CompletableFuture<List<SentenceEmbedding>> vectors, ServedModels.Encoder encoder, boolean base64,
                   int dimensions) {
    }

    /**
     * Checks a request and queues its texts.
     *
     * @param request the body
     * @param deadlineNanos when the request stops being wanted
     * @return the queued request
     * @throws ApiException for a bad request (400), an unknown model (404), a full queue (429)
     */
    Pending submit(JsonRequest request, long deadlineNanos) {
        request.refuseUnknown(KNOWN, Set.of());
        String model = request.requiredString("model");
        ServedModels.Encoder encoder = encoders.get(model);
        if (encoder == null) {
            throw ApiException.modelNotFound(model, "embeddings", encoders.isEmpty()
                    ? "this server serves no embeddings model"
                    : "embeddings models here: " + encoders.keySet().stream().collect(Collectors.joining(", ")));
        }
        List<String> texts = texts(request.get("input"));
        String format = request.string("encoding_format", "float");
        if (!format.equals("float") && !format.equals("base64")) {
            throw ApiException.invalid("encoding_format", "'encoding_format' is '" + format
                    + "'; it must be 'float' or 'base64'");
        }
        SentenceEmbedder embedder = encoder.embedder();
        int dimensions = (int) request.integer("dimensions", embedder.dimension(), 1, Integer.MAX_VALUE);
        if (!encoder.allows(dimensions)) {
            throw ApiException.invalid("dimensions", encoder.matryoshka().length == 0
                    ? "Model '" + model + "' gives vectors of " + embedder.dimension() + " numbers and was not "
                    + "trained to be cut shorter; leave 'dimensions' out or send " + embedder.dimension()
                    : "Model '" + model + "' gives vectors of " + embedder.dimension() + " numbers, cut to one of "
                    + sizes(encoder) + " where its model card allows; 'dimensions' is " + dimensions);
        }
        boolean truncate = request.bool("truncate", false);
        request.string("user", null);
        if (!truncate) {
            for (int i = 0; i < texts.size(); i++) {
                int count = embedder.tokenCount(texts.get(i));
                if (count > embedder.maxLength()) {
                    throw ApiException.invalid("input", "context_length_exceeded", "input[" + i + "] has " + count
                            + " tokens, but model '" + model + "' reads at most " + embedder.maxLength()
                            + " per input; shorten it, or send \"truncate\": true to embed its first "
                            + embedder.maxLength() + " tokens");
                }
            }
        }
        CompletableFuture<List<SentenceEmbedding>> vectors = batchers.get(model).submit(texts, deadlineNanos);
        return new Pending(vectors, encoder, format.equals("base64"), dimensions);
    }

    private static String sizes(ServedModels.Encoder encoder) {
        List<String> all = new ArrayList<>();
        for (int d : encoder.matryoshka()) {
            all.add(Integer.toString(d));
        }
        all.add(Integer.toString(encoder.embedder().dimension()));
        return String.join(", ", all);
    }

    private List<String> texts(JsonNode input) {
        if (input == null) {
            throw ApiException.invalid("input", "'input' is required: a string or an array of strings");
        }
        List<String> texts = new ArrayList<>();
        if (input.isTextual()) {
            texts.add(input.textValue());
        } else if (input.isArray()) {
            if (input.isEmpty()) {
                throw ApiException.invalid("input", "'input' is an empty array; send at least one text");
            }
            if (input.size() > options.maxInputs()) {
                throw ApiException.invalid("input", "'input' holds " + input.size() + " texts; this server takes at"
                        + " most " + options.maxInputs() + " per request");
            }
            for (int i = 0; i < input.size(); i++) {
                JsonNode t = input.get(i);
                if (t.isIntegralNumber() || t.isArray()) {
                    throw ApiException.invalid("input", "'input' holds token ids (input[" + i + "] is "
                            + JsonRequest.kind(t) + "); this server embeds text only: send strings");
                }
                if (!t.isTextual()) {
                    throw ApiException.invalid("input", "input[" + i + "] must be a string, not "
                            + JsonRequest.kind(t));
                }
                texts.add(t.textValue());
            }
        } else {
            throw ApiException.invalid("input", "'input' must be a string or an array of strings, not "
                    + JsonRequest.kind(input));
        }
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i).isEmpty()) {
                throw ApiException.invalid("input", (input.isTextual() ? "'input'" : "input[" + i + "]")
                        + " is an empty string; every input must hold some text");
            }
        }
        return texts;
    }
}
