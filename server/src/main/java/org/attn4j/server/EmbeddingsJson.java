package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * The JSON OpenAI's API answers an embeddings request with:
 * <pre>
 *   {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...] | "base64"}],
 *    "model": "NAME", "usage": {"prompt_tokens": T, "total_tokens": T}}
 * </pre>
 * {@code base64} is the vector's little-endian float32 bytes; {@code prompt_tokens} counts the tokens the encoder read,
 * {@code [CLS]} and {@code [SEP]} included. A vector asked for with fewer {@code dimensions} is cut (Matryoshka).
 */
final class EmbeddingsJson {
    private EmbeddingsJson() {
    }

    /**
     * @param pending a request whose vectors have come
     * @param vectors its vectors, in input order
     * @return the response body
     */
    static byte[] answer(EmbeddingsEndpoint.Pending pending, List<SentenceEmbedding> vectors) {
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
    private static float[] cut(float[] v, int d, boolean normalize) {
        if (d == v.length) {
            return v;
        }
        float[] out = Arrays.copyOf(v, d);
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
