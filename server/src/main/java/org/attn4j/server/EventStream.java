package org.attn4j.server;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Server-sent events on a response body, as OpenAI's API streams: {@code data: JSON\n\n} per event, flushed at once,
 * and {@code data: [DONE]\n\n} at the end. A write that fails means the client is gone; every later one is skipped.
 */
final class EventStream {
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private boolean broken;

    private EventStream(OutputStream out) {
        this.out = out;
    }

    /**
     * Starts a 200 {@code text/event-stream} answer (UTF-8, {@code Cache-Control: no-cache}).
     *
     * @param ctx the exchange
     * @return the stream; empty if the response cannot be written (the client is gone)
     */
    static Optional<EventStream> open(Context ctx) {
        ctx.status(200);
        ctx.res().setContentType("text/event-stream");
        ctx.res().setCharacterEncoding("UTF-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        try {
            return Optional.of(new EventStream(ctx.res().getOutputStream()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * @param json one event's JSON
     * @return whether the event reached the connection
     */
    boolean send(byte[] json) {
        if (broken) {
            return false;
        }
        try {
            out.write(DATA);
            out.write(json);
            out.write(END);
            out.flush();
            return true;
        } catch (IOException e) {
            broken = true;
            return false;
        }
    }

    /** Sends {@code data: [DONE]}, the end of a stream that ran to its end. */
    void done() {
        send(DONE);
    }
}
