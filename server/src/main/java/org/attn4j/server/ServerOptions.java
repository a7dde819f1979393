package org.attn4j.server;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where an {@link OpenAiServer} listens and the limits it keeps. Start from {@link #defaults()} and change what you
 * need with the {@code with…} methods; each returns a new value and refuses a value out of range with an
 * {@link IllegalArgumentException} naming it.
 *
 * <table>
 *   <caption>The limits and what a request past each gets</caption>
 *   <tr><th>limit</th><th>default</th><th>past it</th></tr>
 *   <tr><td>{@link #maxBodyBytes()}</td><td>4 MiB</td><td>413</td></tr>
 *   <tr><td>{@link #maxInputs()}: texts in one embeddings request</td><td>2048</td><td>400</td></tr>
 *   <tr><td>{@link #maxBatchTexts()}: texts the encoder runs at once, gathered across requests</td><td>64</td>
 *       <td>the next batch</td></tr>
 *   <tr><td>{@link #batchWindow()}: how long a lone request waits for others to join its batch</td><td>2 ms</td>
 *       <td>—</td></tr>
 *   <tr><td>{@link #maxQueuedEmbeddings()}: embeddings requests waiting for the encoder</td><td>256</td>
 *       <td>429 with {@code Retry-After}</td></tr>
 *   <tr><td>{@link #maxActiveGenerations()}: generations decoded together, one batched step for all</td><td>4</td>
 *       <td>wait in the queue</td></tr>
 *   <tr><td>{@link #maxQueuedGenerations()}: generations waiting for a slot</td><td>16</td>
 *       <td>429 with {@code Retry-After}</td></tr>
 *   <tr><td>{@link #maxTokens()}: new tokens one generation may ask for</td><td>4096</td><td>400</td></tr>
 *   <tr><td>{@link #cacheBytes()}: keys and values of read prompts kept for reuse (0: none)</td><td>512 MiB</td>
 *       <td>the least recently used prompts are dropped</td></tr>
 *   <tr><td>{@link #requestTimeout()}: from arrival to the last byte of the answer</td><td>120 s</td>
 *       <td>503 (or an error event on a stream)</td></tr>
 *   <tr><td>{@link #idleTimeout()}: a connection that sends or reads nothing</td><td>30 s</td><td>closed</td></tr>
 * </table>
 *
 * <p>With {@link #apiKeys()} (none by default), every endpoint but {@code /health} answers only a request whose
 * {@code Authorization} header is {@code Bearer} and one of the keys; the others get 401. {@link #toString()} counts
 * the keys and never shows them.
 */
public final class ServerOptions {
    private static final ServerOptions DEFAULTS = new ServerOptions(new Values());

    /** Every value; the one an options object holds is never changed once it is built. */
    private static final class Values {
        String host = "127.0.0.1";
        int port = 8080;
        long maxBodyBytes = 4L << 20;
        int maxInputs = 2048;
        int maxBatchTexts = 64;
        Duration batchWindow = Duration.ofMillis(2);
        int maxQueuedEmbeddings = 256;
        int maxActiveGenerations = 4;
        int maxQueuedGenerations = 16;
        int maxTokens = 4096;
        long cacheBytes = 512L << 20;
        Duration requestTimeout = Duration.ofSeconds(120);
        Duration idleTimeout = Duration.ofSeconds(30);
        Duration retryAfter = Duration.ofSeconds(1);
        List<String> apiKeys = List.of();

        /** The defaults. */
        Values() {
        }

        /** A copy. */
        Values(Values o) {
            host = o.host;
            port = o.port;
            maxBodyBytes = o.maxBodyBytes;
            maxInputs = o.maxInputs;
            maxBatchTexts = o.maxBatchTexts;
            batchWindow = o.batchWindow;
            maxQueuedEmbeddings = o.maxQueuedEmbeddings;
            maxActiveGenerations = o.maxActiveGenerations;
            maxQueuedGenerations = o.maxQueuedGenerations;
            maxTokens = o.maxTokens;
            cacheBytes = o.cacheBytes;
            requestTimeout = o.requestTimeout;
            idleTimeout = o.idleTimeout;
            retryAfter = o.retryAfter;
            apiKeys = o.apiKeys;
        }
    }

    private final Values v;

    private ServerOptions(Values values) {
        this.v = values;
    }

    /** @return a new value: a copy of this one with one change made to the copy */
    private ServerOptions with(Consumer<Values> change) {
        Values copy = new Values(v);
        change.accept(copy);
        return new ServerOptions(copy);
    }

    /** @return 127.0.0.1:8080 and the limits in the table above */
    public static ServerOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value the address to bind: {@code 127.0.0.1} (the default) answers this machine only; {@code 0.0.0.0}
     *     every interface
     * @return a copy with that host
     */
    public ServerOptions withHost(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("ServerOptions.withHost: argument value is null or blank");
        }
        return with(c -> c.host = value);
    }

    /**
     * @param value the TCP port, 0 for any free one ({@link OpenAiServer#port()} then says which)
     * @return a copy with that port
     */
    public ServerOptions withPort(int value) {
        check("withPort", value, 0, 65535);
        return with(c -> c.port = value);
    }

    /**
     * @param value the largest request body in bytes, at least 1 KiB
     * @return a copy with that limit
     */
    public ServerOptions withMaxBodyBytes(long value) {
        if (value < 1024 || value > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("ServerOptions.withMaxBodyBytes: argument value is " + value
                    + "; it must lie in [1024, " + (Integer.MAX_VALUE - 8) + "]");
        }
        return with(c -> c.maxBodyBytes = value);
    }

    /**
     * @param value the most texts one embeddings request may hold
     * @return a copy with that limit
     */
    public ServerOptions withMaxInputs(int value) {
        check("withMaxInputs", value, 1, 1 << 20);
        return with(c -> c.maxInputs = value);
    }

    /**
     * @param value the most texts the encoder runs in one call when it gathers requests (a single larger request
     *     runs alone)
     * @return a copy with that limit
     */
    public ServerOptions withMaxBatchTexts(int value) {
        check("withMaxBatchTexts", value, 1, 1 << 16);
        return with(c -> c.maxBatchTexts = value);
    }

    /**
     * @param value how long the encoder, idle, waits after a request for others to join its batch; zero runs each
     *     request as soon as the encoder is free
     * @return a copy with that window
     */
    public ServerOptions withBatchWindow(Duration value) {
        checkDuration("withBatchWindow", value, Duration.ZERO, Duration.ofSeconds(1));
        return with(c -> c.batchWindow = value);
    }

    /**
     * @param value the most embeddings requests waiting for an encoder; more get 429
     * @return a copy with that limit
     */
    public ServerOptions withMaxQueuedEmbeddings(int value) {
        check("withMaxQueuedEmbeddings", value, 1, 1 << 20);
        return with(c -> c.maxQueuedEmbeddings = value);
    }

    /**
     * @param value the generation slots ({@code attn4j serve --parallel}): the most generations decoded together,
     *     one batched model step for all
     * @return a copy with that limit
     */
    public ServerOptions withMaxActiveGenerations(int value) {
        check("withMaxActiveGenerations", value, 1, 1024);
        return with(c -> c.maxActiveGenerations = value);
    }

    /**
     * @param value the most generations waiting for a slot; more get 429 (0: none waits)
     * @return a copy with that limit
     */
    public ServerOptions withMaxQueuedGenerations(int value) {
        check("withMaxQueuedGenerations", value, 0, 1 << 20);
        return with(c -> c.maxQueuedGenerations = value);
    }

    /**
     * @param value the bytes of keys and values the prompt cache holds ({@code attn4j serve --cache-bytes}): a
     *     request whose prompt starts with the whole chunks of an earlier prompt reuses their keys and values
     *     ({@code models}' {@code PromptCache}), and when a new prompt does not fit, the least recently used go;
     *     0 keeps none
     * @return a copy with that bound
     */
    public ServerOptions withCacheBytes(long value) {
        check("withCacheBytes", value, 0, Long.MAX_VALUE);
        return with(c -> c.cacheBytes = value);
    }

    /**
     * @param value the most new tokens one generation may ask for ({@code max_tokens}); also the default of chat
     *     completions, bounded by the room left in the model's context
     * @return a copy with that limit
     */
    public ServerOptions withMaxTokens(int value) {
        check("withMaxTokens", value, 1, 1 << 24);
        return with(c -> c.maxTokens = value);
    }

    /**
     * @param value the longest a request may take, waiting included
     * @return a copy with that limit
     */
    public ServerOptions withRequestTimeout(Duration value) {
        checkDuration("withRequestTimeout", value, Duration.ofMillis(1), Duration.ofDays(1));
        return with(c -> c.requestTimeout = value);
    }

    /**
     * @param value how long a connection may send or take nothing before it is closed (a slow or vanished client)
     * @return a copy with that limit
     */
    public ServerOptions withIdleTimeout(Duration value) {
        checkDuration("withIdleTimeout", value, Duration.ofMillis(1), Duration.ofDays(1));
        return with(c -> c.idleTimeout = value);
    }

    /**
     * @param value what a 429 answer's {@code Retry-After} header tells the client to wait (whole seconds, at least 1)
     * @return a copy with that delay
     */
    public ServerOptions withRetryAfter(Duration value) {
        checkDuration("withRetryAfter", value, Duration.ofSeconds(1), Duration.ofDays(1));
        return with(c -> c.retryAfter = value);
    }

    /**
     * @param value the keys a client may give as {@code Authorization: Bearer KEY}; none: no key is asked for. Each is
     *     1 to 1024 visible ASCII characters (no space or control character), as an HTTP header carries it
     * @return a copy with those keys
     */
    public ServerOptions withApiKeys(Collection<String> value) {
        Objects.requireNonNull(value, "ServerOptions.withApiKeys: argument value is null");
        List<String> keys = List.copyOf(value);
        for (int i = 0; i < keys.size(); i++) {
            String k = keys.get(i);
            if (k.isEmpty() || k.length() > 1024 || !k.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("ServerOptions.withApiKeys: argument value is refused: key " + (i + 1)
                        + " of " + keys.size() + " (" + k.length() + " characters) must be 1 to 1024 visible ASCII "
                        + "characters, without spaces");
            }
        }
        return with(c -> c.apiKeys = keys);
    }

    /** @return the address bound */
    public String host() {
        return v.host;
    }

    /** @return the port asked for, 0 for any free one */
    public int port() {
        return v.port;
    }

    /** @return the largest request body in bytes */
    public long maxBodyBytes() {
        return v.maxBodyBytes;
    }

    /** @return the most texts in one embeddings request */
    public int maxInputs() {
        return v.maxInputs;
    }

    /** @return the most texts the encoder runs in one gathered call */
    public int maxBatchTexts() {
        return v.maxBatchTexts;
    }

    /** @return how long a lone embeddings request waits for company */
    public Duration batchWindow() {
        return v.batchWindow;
    }

    /** @return the most embeddings requests waiting per encoder */
    public int maxQueuedEmbeddings() {
        return v.maxQueuedEmbeddings;
    }

    /** @return the generation slots: the most generations decoded together, one batched step for all */
    public int maxActiveGenerations() {
        return v.maxActiveGenerations;
    }

    /** @return the most generations waiting for a slot */
    public int maxQueuedGenerations() {
        return v.maxQueuedGenerations;
    }

    /** @return the most new tokens one generation may ask for */
    public int maxTokens() {
        return v.maxTokens;
    }

    /** @return the bytes of keys and values the prompt cache holds; 0 when there is none */
    public long cacheBytes() {
        return v.cacheBytes;
    }

    /** @return the longest a request may take */
    public Duration requestTimeout() {
        return v.requestTimeout;
    }

    /** @return how long an idle connection stays open */
    public Duration idleTimeout() {
        return v.idleTimeout;
    }

    /** @return the delay a 429 answer advises */
    public Duration retryAfter() {
        return v.retryAfter;
    }

    /** @return the keys a request must give one of (read-only); empty when none is asked for */
    public List<String> apiKeys() {
        return v.apiKeys;
    }

    private static void check(String method, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("ServerOptions." + method + ": argument value is " + value
                    + "; it must lie in [" + min + ", " + max + "]");
        }
    }

    private static void checkDuration(String method, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, "ServerOptions." + method + ": argument value is null");
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("ServerOptions." + method + ": argument value is " + value
                    + "; it must lie in [" + min + ", " + max + "]");
        }
    }

    @Override
    public String toString() {
        return "ServerOptions[" + v.host + ":" + v.port + ", maxBodyBytes=" + v.maxBodyBytes + ", maxInputs="
                + v.maxInputs + ", maxBatchTexts=" + v.maxBatchTexts + ", batchWindow=" + v.batchWindow
                + ", maxQueuedEmbeddings=" + v.maxQueuedEmbeddings + ", maxActiveGenerations=" + v.maxActiveGenerations
                + ", maxQueuedGenerations=" + v.maxQueuedGenerations + ", maxTokens=" + v.maxTokens + ", cacheBytes="
                + v.cacheBytes
                + ", requestTimeout=" + v.requestTimeout + ", idleTimeout=" + v.idleTimeout + ", retryAfter="
                + v.retryAfter + ", apiKeys=" + v.apiKeys.size() + "]";
    }
}
