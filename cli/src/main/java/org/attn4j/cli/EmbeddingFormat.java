package org.attn4j.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * How {@code attn4j embed} writes embeddings, one text after the other in input order, as they are computed.
 * <ul>
 *   <li>{@link #JSONL}: one JSON object a line, {@code {"text": …, "tokens": N, "embedding": [d floats]}} (with
 *   {@code "ids"} on request);</li>
 *   <li>{@link #JSON}: the same objects in one array, one object a line;</li>
 *   <li>{@link #CSV}: RFC 4180 with a header {@code text,tokens,e0,…,e(d-1)} (and {@code ids}, space-separated, on
 *   request);</li>
 *   <li>{@link #NPY}: NumPy's {@code .npy} version 1.0, a little-endian float32 matrix {@code [N, d]}, row i the
 *   i-th text; the header, written last, states N.</li>
 * </ul>
 * Floats are written as the shortest decimal that reads back as the same float32.
 */
enum EmbeddingFormat {
    JSONL, JSON, CSV, NPY;

    /** The bytes before an {@code .npy} file's data: room for any row count. */
    static final int NPY_HEADER = 128;

    /** Receives the embeddings in order. */
    interface Sink {
        void write(SentenceEmbedding e) throws IOException;

        /** Makes what was written so far visible to a reader of the stream. */
        void flush() throws IOException;

        /** Ends the output (an array's bracket, an npy header). */
        void finish() throws IOException;
    }

    /** @return the lower-case name, as the option takes it */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param out a text stream (standard output)
     * @param ids whether records carry the token ids
     * @return a sink writing there
     * @throws IllegalStateException for {@link #NPY}, which needs a file
     */
    Sink on(Writer out, boolean ids) throws IOException {
        return switch (this) {
            case JSONL, JSON -> new Json(JSON_FACTORY.createGenerator(out), ids, this == JSON);
            case CSV -> new Csv(out, ids);
            case NPY -> throw new IllegalStateException("npy is written to a file");
        };
    }

    /**
     * @param file the temporary file
     * @param ids whether records carry the token ids (not for {@link #NPY})
     * @return a sink writing there
     */
    Sink on(AtomicFile file, boolean ids) throws IOException {
        if (this == NPY) {
            return new Npy(file.channel());
        }
        Writer w = new java.io.BufferedWriter(new java.io.OutputStreamWriter(file.stream(), StandardCharsets.UTF_8),
                1 << 16);
        return on(w, ids);
    }

    private static final JsonFactory JSON_FACTORY = JsonFactory.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /** JSON Lines, or one array with an object a line. */
    private static final class Json implements Sink {
        private final JsonGenerator g;
        private final boolean ids;
        private final boolean array;
        private long count;

        Json(JsonGenerator g, boolean ids, boolean array) {
            this.g = g;
            this.ids = ids;
            this.array = array;
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setRootValueSeparator(null);
        }

        @Override
        public void write(SentenceEmbedding e) throws IOException {
            if (array) {
                g.writeRaw(count == 0 ? "[\n" : ",\n");
            }
            count++;
            g.writeStartObject();
            g.writeStringField("text", e.text());
            int[] tokens = e.ids();
            g.writeNumberField("tokens", tokens.length);
            if (ids) {
                g.writeFieldName("ids");
                g.writeArray(tokens, 0, tokens.length);
            }
            g.writeFieldName("embedding");
            float[] v = e.vector();
            g.writeStartArray();
            for (float x : v) {
                g.writeNumber(x);
            }
            g.writeEndArray();
            g.writeEndObject();
            if (!array) {
                g.writeRaw('\n');
            }
        }

        @Override
        public void flush() throws IOException {
            g.flush();
        }

        @Override
        public void finish() throws IOException {
            if (array) {
                g.writeRaw(count == 0 ? "[]\n" : "\n]\n");
            }
            g.flush();
        }
    }

    /** RFC 4180: the text quoted when it needs to be, a header first. */
    private static final class Csv implements Sink {
        private final Writer out;
        private final boolean ids;
        private boolean header;

        Csv(Writer out, boolean ids) {
            this.out = out;
            this.ids = ids;
        }

        @Override
        public void write(SentenceEmbedding e) throws IOException {
            float[] v = e.vector();
            StringBuilder line = new StringBuilder();
            if (!header) {
                line.append("text,tokens");
                if (ids) {
                    line.append(",ids");
                }
                for (int j = 0; j < v.length; j++) {
                    line.append(",e").append(j);
                }
                line.append("\r\n");
                header = true;
            }
            int[] tokens = e.ids();
            line.append(quoted(e.text())).append(',').append(tokens.length);
            if (ids) {
                line.append(',');
                for (int k = 0; k < tokens.length; k++) {
                    line.append(k == 0 ? "" : " ").append(tokens[k]);
                }
            }
            for (float x : v) {
                line.append(',').append(x);
            }
            out.write(line.append("\r\n").toString());
        }

        static String quoted(String text) {
            if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
                return text;
            }
            return '"' + text.replace("\"", "\"\"") + '"';
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void finish() throws IOException {
            out.flush();
        }
    }

    /** NumPy {@code .npy} 1.0: data from byte {@value #NPY_HEADER}, the header written over the gap at the end. */
    private static final class Npy implements Sink {
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        private long rows;
        private int dim = -1;

        Npy(FileChannel channel) throws IOException {
            this.channel = channel;
            channel.position(NPY_HEADER);
        }

        @Override
        public void write(SentenceEmbedding e) throws IOException {
            float[] v = e.vector();
            if (dim < 0) {
                dim = v.length;
            }
            for (float x : v) {
                if (!buffer.hasRemaining()) {
                    drain();
                }
                buffer.putFloat(x);
            }
            rows++;
        }

        private void drain() throws IOException {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear();
        }

        @Override
        public void flush() throws IOException {
            drain();
        }

        @Override
        public void finish() throws IOException {
            drain();
            String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + rows + ", " + Math.max(dim, 0)
                    + "), }";
            int length = NPY_HEADER - 10;
            StringBuilder h = new StringBuilder(dict);
            while (h.length() < length - 1) {
                h.append(' ');
            }
            h.append('\n');
            ByteBuffer head = ByteBuffer.allocate(NPY_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            head.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 0)
                    .putShort((short) length).put(h.toString().getBytes(StandardCharsets.US_ASCII));
            head.flip();
            long end = channel.position();
            channel.position(0);
            while (head.hasRemaining()) {
                channel.write(head);
            }
            channel.position(end);
        }
    }
}
