package org.attn4j.server;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a request's body, at most a limit of bytes: 413 {@code request_too_large} past it (from the announced
 * {@code Content-Length} before reading anything, or once one byte more has come), 408 {@code request_timeout} when
 * it stops coming (the connection's idle timeout) or the connection ends, 400 when it ends before its
 * {@code Content-Length}. After any of these the rest of the body is not read, so the connection cannot carry
 * another request: {@link #readToEnd} says so, and the answer says {@code Connection: close}.
 */
final class RequestBody {
    private static final String UNREAD = "attn4j.body-unread";

    private RequestBody() {
    }

    /**
     * @param ctx the exchange
     * @param maxBytes the largest body taken
     * @return the body's bytes
     * @throws ApiException 408, 413 or 400 as above
     */
    static byte[] read(Context ctx, long maxBytes) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) {
            throw unread(ctx, tooLarge(declared + " bytes", maxBytes));
        }
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            bytes = in.readNBytes((int) maxBytes + 1);
        } catch (IOException e) {
            throw unread(ctx, ApiException.of(408, "invalid_request_error", "request_timeout", "The request body "
                    + "could not be read to its end: " + ApiException.rootMessage(e)));
        }
        if (bytes.length > maxBytes) {
            throw unread(ctx, tooLarge("more than " + maxBytes + " bytes", maxBytes));
        }
        if (declared >= 0 && bytes.length < declared) {
            throw unread(ctx, ApiException.invalid(null, "The request body ended after " + bytes.length + " of the "
                    + declared + " bytes its Content-Length announced"));
        }
        return bytes;
    }

    /** @return false if {@link #read} stopped before the body's end */
    static boolean readToEnd(Context ctx) {
        return ctx.attribute(UNREAD) == null;
    }

    private static ApiException unread(Context ctx, ApiException e) {
        ctx.attribute(UNREAD, Boolean.TRUE);
        return e;
    }

    private static ApiException tooLarge(String size, long maxBytes) {
        return ApiException.of(413, "invalid_request_error", "request_too_large", "The request body is " + size
                + "; this server takes at most " + maxBytes + " bytes (see --max-body-bytes)");
    }
}
