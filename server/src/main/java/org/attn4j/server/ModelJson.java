package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * A served model as {@code GET /v1/models} lists it, OpenAI's model object and what a client needs to size its
 * requests:
 * <pre>
 *   {"id": NAME, "object": "model", "created": SECONDS, "owned_by": "attn4j",
 *    "kind": "embeddings", "dimensions": D, "max_input_tokens": T}           an encoder
 *    "kind": "chat" | "completions", "context_length": T}                    a decoder (chat: it has a chat template)
 *    "kind": "rerank", "max_input_tokens": T}                                a cross-encoder (T: query and document)
 * </pre>
 */
final class ModelJson {
    private ModelJson() {
    }

    /**
     * Writes the model's fields into the object the generator is in.
     *
     * @param g the generator, inside an object
     * @param name the name the model is served under
     * @param model a {@link ServedModels.Encoder}, {@link ServedModels.Decoder} or {@link ServedModels.Reranker}
     * @param created the server's start, seconds since the epoch
     */
    static void write(JsonGenerator g, String name, Object model, long created) throws IOException {
        g.writeStringField("id", name);
        g.writeStringField("object", "model");
        g.writeNumberField("created", created);
        g.writeStringField("owned_by", "attn4j");
        if (model instanceof ServedModels.Encoder e) {
            g.writeStringField("kind", "embeddings");
            g.writeNumberField("dimensions", e.embedder().dimension());
            g.writeNumberField("max_input_tokens", e.embedder().maxLength());
        } else if (model instanceof ServedModels.Decoder d) {
            g.writeStringField("kind", d.chat() != null ? "chat" : "completions");
            g.writeNumberField("context_length", d.model().config().maxPositions());
        } else if (model instanceof ServedModels.Reranker r) {
            g.writeStringField("kind", "rerank");
            g.writeNumberField("max_input_tokens", r.encoder().maxLength());
        }
    }
}
