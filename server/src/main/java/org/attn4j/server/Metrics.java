package org.attn4j.server;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.attn4j.models.generate.PromptCache;

/**
 * What a server has done, in Prometheus' text exposition format 0.0.4 ({@code GET /metrics}):
 * <pre>
 *   attn4j_requests_total{endpoint, status}          counter: answered requests by route and HTTP status
 *   attn4j_errors_total{code, status}                counter: error answers (and error events ending a stream) by
 *                                                     status and OpenAI error code (the error type when it has none)
 *   attn4j_prompt_tokens_total{model}                counter: tokens read (prompts, embedded texts, rerank pairs)
 *   attn4j_completion_tokens_total{model}            counter: tokens generated
 *   attn4j_generations_running, _waiting             gauges: generations holding a slot, waiting for one
 *   attn4j_embeddings_running, _waiting              gauges: texts in the encoders, requests waiting
 *   attn4j_time_to_first_token_seconds               histogram: from a generation's arrival to its first token
 *   attn4j_generation_tokens_per_second              histogram: a generation's (tokens − 1) ÷ seconds from its
 *                                                     first token to its last, for generations of 2 tokens or more
 *   attn4j_prompt_cache_bytes, _entries              gauges: keys and values the prompt cache holds, prompts kept
 *   attn4j_prompt_cache_max_bytes                    gauge: its bound ({@code --cache-bytes})
 *   attn4j_prompt_cache_hits_total, _misses_total    counters: generations that did or did not reuse a prompt
 *   attn4j_prompt_cache_tokens_total                 counter: prompt tokens reused instead of read
 *   attn4j_prompt_cache_evictions_total              counter: prompts dropped to make room
 * </pre>
 * An {@code endpoint} is a route as it is written ({@code /v1/models/{model}}), or {@code other} for a URL no route
 * serves, so that the number of series stays bounded whatever clients send. Counters only grow; a histogram's
 * {@code _bucket} lines are cumulative and end at {@code le="+Inf"}, equal to its {@code _count}. The prompt cache's
 * series exist only on a server that keeps one. Kept in a registry of
 * Prometheus' Java client, which writes the format; thread-safe.
 */
final class Metrics {
    /** The content type of {@link #scrape()}. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final double[] FIRST_TOKEN_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60};
    private static final double[] RATE_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Counter requests = Counter.builder().name("attn4j_requests_total")
            .help("Requests answered, by route and HTTP status.").labelNames("endpoint", "status").register(registry);
    private final Counter errors = Counter.builder().name("attn4j_errors_total")
            .help("Error answers and stream error events, by HTTP status and error code.")
            .labelNames("status", "code").register(registry);
    private final Counter promptTokens = Counter.builder().name("attn4j_prompt_tokens_total")
            .help("Tokens read: prompts, embedded texts, reranked pairs.").labelNames("model").register(registry);
    private final Counter completionTokens = Counter.builder().name("attn4j_completion_tokens_total")
            .help("Tokens generated.").labelNames("model").register(registry);
    private final Histogram firstToken = Histogram.builder().name("attn4j_time_to_first_token_seconds")
            .help("Seconds from a generation request's arrival to its first token.").classicOnly()
            .classicUpperBounds(FIRST_TOKEN_BUCKETS).register(registry);
    private final Histogram tokensPerSecond = Histogram.builder().name("attn4j_generation_tokens_per_second")
            .help("A generation's tokens after the first per second, from its first token to its last.")
            .classicOnly().classicUpperBounds(RATE_BUCKETS).register(registry);

    /**
     * Adds a gauge; call before the server answers.
     *
     * @param name its metric name
     * @param help its {@code # HELP} text
     * @param value read at every scrape
     * @return this
     */
    Metrics gauge(String name, String help, IntSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsInt()))
                .register(registry);
        return this;
    }

    /**
     * Adds the prompt cache's gauges and counters, read at every scrape; call before the server answers.
     *
     * @param stats the cache's figures now, or null when the server keeps no cache (then nothing is added)
     * @param maxBytes its bound
     * @return this
     */
    Metrics promptCache(Supplier<PromptCache.Stats> stats, long maxBytes) {
        if (stats.get() == null) {
            return this;
        }
        longGauge("attn4j_prompt_cache_bytes", "Bytes of keys and values the prompt cache holds.",
                () -> stats.get().bytes());
        longGauge("attn4j_prompt_cache_entries", "Prompts the prompt cache keeps.", () -> stats.get().entries());
        longGauge("attn4j_prompt_cache_max_bytes", "The most bytes the prompt cache holds.", () -> maxBytes);
        longCounter("attn4j_prompt_cache_hits", "Generations that reused a kept prompt's keys and values.",
                () -> stats.get().hits());
        longCounter("attn4j_prompt_cache_misses", "Generations that found no kept prompt to reuse.",
                () -> stats.get().misses());
        longCounter("attn4j_prompt_cache_tokens", "Prompt tokens reused from the prompt cache instead of read.",
                () -> stats.get().reusedTokens());
        longCounter("attn4j_prompt_cache_evictions", "Prompts dropped from the prompt cache to make room.",
                () -> stats.get().evictions());
        return this;
    }

    private void longGauge(String name, String help, LongSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong()))
                .register(registry);
    }

    private void longCounter(String name, String help, LongSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong()))
                .register(registry);
    }

    /** Counts an answered request: its route ({@code other} for none) and status. */
    void request(String endpoint, int status) {
        requests.labelValues(endpoint, Integer.toString(status)).inc();
    }

    /** Counts an error answer or an error event: its status and code. */
    void error(ApiException e) {
        errors.labelValues(Integer.toString(e.status()), e.code() != null ? e.code() : e.type()).inc();
    }

    /** Counts tokens read for a model. */
    void promptTokens(String model, long tokens) {
        promptTokens.labelValues(model).inc(tokens);
    }

    /** Counts tokens generated by a model. */
    void completionTokens(String model, long tokens) {
        completionTokens.labelValues(model).inc(tokens);
    }

    /**
     * Records a finished generation's timing.
     *
     * @param arrivalNanos when the request arrived ({@link System#nanoTime()})
     * @param firstTokenNanos when its first token was chosen
     * @param lastTokenNanos when its last token was chosen
     * @param tokens how many tokens it generated; with none, nothing is recorded
     */
    void generation(long arrivalNanos, long firstTokenNanos, long lastTokenNanos, int tokens) {
        if (tokens < 1) {
            return;
        }
        firstToken.observe((firstTokenNanos - arrivalNanos) / 1e9);
        if (tokens >= 2 && lastTokenNanos > firstTokenNanos) {
            tokensPerSecond.observe((tokens - 1) / ((lastTokenNanos - firstTokenNanos) / 1e9));
        }
    }

    /** @return every metric, in the text exposition format, {@code \n}-terminated lines */
    String scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
