package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An answer's JSON object, written field by field with Jackson's streaming generator into bytes:
 * {@code object(g -> g.writeStringField("status", "ok"))} is {@code {"status":"ok"}}.
 */
final class JsonBody {
    private JsonBody() {
    }

    /** The fields of one JSON object, written between its braces. */
    @FunctionalInterface
    interface Fields {
        void write(JsonGenerator g) throws IOException;
    }

    /**
     * @param fields what the object holds
     * @return the object's UTF-8 bytes
     */
    static byte[] object(Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonRequest.MAPPER.getFactory().createGenerator(bytes)) {
            g.writeStartObject();
            fields.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
