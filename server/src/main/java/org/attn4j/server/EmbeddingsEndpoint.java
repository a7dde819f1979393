package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;

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
 * token-id inputs are refused.
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

    /**
     * @param pending a request whose vectors have come
     * @param vectors its vectors, in input order
     * @return the response body
     */
    static byte[] respond(Pending pending, List<SentenceEmbedding> vectors) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + vectors.size() * pending.dimensions() * 12);
        boolean normalize = pending.encoder().embedder().normalizes();
        int usage = 0;
        try (JsonGenerator g = JsonRequest.MAPPER.getFactory().createGenerator(bytes)) {
            g.writeStartObject();
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("data");
            for (int i = 0; i < vectors.size(); i++) {
                SentenceEmbedding e = vectors.get(i);
                usage += e.ids().length;
                float[] v = cut(e.vector(), pending.dimensions(), normalize);
                g.writeStartObject();
                g.writeStringField("object", "embedding");
                g.writeNumberField("index", i);
                if (pending.base64()) {
                    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
                    b.asFloatBuffer().put(v);
                    g.writeStringField("embedding", Base64.getEncoder().encodeToString(b.array()));
                } else {
                    g.writeArrayFieldStart("embedding");
                    for (float x : v) {
                        g.writeNumber(x);
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("model", pending.encoder().name());
            g.writeObjectFieldStart("usage");
            g.writeNumberField("prompt_tokens", usage);
            g.writeNumberField("total_tokens", usage);
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * A Matryoshka cut: the first {@code d} numbers, normalised again (L2) when the encoder normalises.
     *
     * @param v the full vector
     * @param d the size wanted
     * @param normalize whether to normalise the cut
     * @return {@code v} itself when {@code d} is its size
     */
    static float[] cut(float[] v, int d, boolean normalize) {
        if (d == v.length) {
            return v;
        }
        float[] out = java.util.Arrays.copyOf(v, d);
        if (normalize) {
            double sum = 0;
            for (float x : out) {
                sum += (double) x * x;
            }
            double norm = Math.max(Math.sqrt(sum), 1e-12);
            for (int i = 0; i < d; i++) {
                out[i] = (float) (out[i] / norm);
            }
        }
        return out;
    }
}
