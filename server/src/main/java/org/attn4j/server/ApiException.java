package org.attn4j.server;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * A request the server answers with an error, in the OpenAI shape:
 * <pre>
 *   HTTP status
 *   {"error": {"message": "...", "type": "invalid_request_error", "param": "input", "code": null}}
 * </pre>
 * {@code type} is {@code invalid_request_error} for the client's mistakes (4xx), {@code rate_limit_exceeded}-coded
 * 429s for a full queue, {@code server_error} for the server's own failures (5xx).
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final System.Logger LOG = System.getLogger(ApiException.class.getName());

    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final long retryAfterSeconds;

    private ApiException(int status, String type, String param, String code, String message, long retryAfter) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfterSeconds = retryAfter;
    }

    /** 400: a parameter the request got wrong. */
    static ApiException invalid(String param, String message) {
        return new ApiException(400, "invalid_request_error", param, null, message, 0);
    }

    /** 400 with a code, for the errors OpenAI's clients tell apart (context_length_exceeded …). */
    static ApiException invalid(String param, String code, String message) {
        return new ApiException(400, "invalid_request_error", param, code, message, 0);
    }

    /** 404: a model this server does not serve. */
    static ApiException modelNotFound(String model, String endpoint, String served) {
        return new ApiException(404, "invalid_request_error", "model", "model_not_found", "The model '" + model
                + "' does not exist or does not serve " + endpoint + "; " + served, 0);
    }

    /** 401: no API key, or not one of the server's. */
    static ApiException unauthorized(String message) {
        return new ApiException(401, "invalid_request_error", null, "invalid_api_key", message, 0);
    }

    /** Another 4xx or 5xx. */
    static ApiException of(int status, String type, String code, String message) {
        return new ApiException(status, type, null, code, message, 0);
    }

    /** 429: a queue is full; the client may retry after the given delay. */
    static ApiException busy(String message, long retryAfterSeconds) {
        return new ApiException(429, "rate_limit_error", null, "rate_limit_exceeded", message, retryAfterSeconds);
    }

    /** 503: the request ran past the server's per-request timeout. */
    static ApiException timeout(String message) {
        return new ApiException(503, "server_error", null, "timeout", message, 0);
    }

    /**
     * @param failure what ended a request, perhaps wrapped by a future
     * @return the failure as the API reports it: an {@code ApiException} as it is, a {@link TimeoutException} as a
     *     503 {@code timeout}, anything else as a 500 (logged)
     */
    static ApiException from(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof ApiException a) {
            return a;
        }
        if (t instanceof TimeoutException) {
            return timeout("The request ran past the server's per-request timeout");
        }
        LOG.log(Level.ERROR, "attn4j server: a request failed", t);
        return of(500, "server_error", null, "The server failed: " + t.getClass().getSimpleName()
                + (t.getMessage() == null ? "" : ": " + t.getMessage()));
    }

    /** @return the innermost cause's class and message, which say what went wrong below the server */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    /** @return the OpenAI error object, {@code {"error": {"message", "type", "param", "code"}}} */
    byte[] body() {
        return JsonBody.object(g -> {
            g.writeObjectFieldStart("error");
            g.writeStringField("message", getMessage());
            g.writeStringField("type", type);
            g.writeStringField("param", param);
            g.writeStringField("code", code);
            g.writeEndObject();
        });
    }

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    String param() {
        return param;
    }

    String code() {
        return code;
    }

    /** @return the seconds a {@code Retry-After} header advises, 0 for none */
    long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
