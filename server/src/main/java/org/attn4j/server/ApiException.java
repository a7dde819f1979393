package org.attn4j.server;

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
