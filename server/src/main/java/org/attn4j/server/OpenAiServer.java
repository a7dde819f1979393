package org.attn4j.server;

import io.javalin.Javalin;
import io.javalin.http.Context;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An HTTP server that speaks OpenAI's API for the models of a {@link ServedModels}, on Javalin (Jetty):
 * <pre>
 *   POST /v1/embeddings        encoders (concurrent requests gathered into one encoder batch)
 *   POST /v1/completions       decoders (whole or streamed as server-sent events)
 *   POST /v1/chat/completions  decoders with a chat template
 *   POST /v1/rerank, /rerank   cross-encoders ({@link RerankEndpoint})
 *   GET  /v1/models            every model; GET /v1/models/{name} one
 *   GET  /metrics              Prometheus' text format 0.0.4: requests, errors, tokens, queues, timings
 *                              ({@link Metrics})
 *   GET  /health               200 while the server runs: {"status": "ok", "models": [...],
 *                              "embeddings": {"running": texts, "waiting": requests},
 *                              "generations": {"running", "waiting", "abandoned": streams whose client left}}
 * </pre>
 * Every error is OpenAI's error object ({@code {"error": {"message", "type", "param", "code"}}}) with its status:
 * 400 a malformed body or a wrong parameter (named in {@code param}), 401 a missing or wrong API key, 404 an unknown
 * model or URL, 405 a wrong method, 408 a body that stopped coming (see {@link ServerOptions#idleTimeout()}), 413 a
 * body over {@link ServerOptions#maxBodyBytes()}, 429 a full queue (with {@code Retry-After}), 500 a failure of the
 * server, 503 a request past {@link ServerOptions#requestTimeout()}. It binds
 * {@link ServerOptions#host()}, {@code 127.0.0.1} unless told otherwise. With {@link ServerOptions#apiKeys()},
 * every endpoint but {@code /health} answers 401 ({@code invalid_api_key}) to a request without
 * {@code Authorization: Bearer KEY} and one of the keys (see {@link ApiKeys}); without, any {@code Authorization}
 * header is accepted and ignored.
 *
 * <p>Connections are kept alive between requests until {@link ServerOptions#idleTimeout()} passes with nothing sent
 * or read; every answer says so in {@code Keep-Alive: timeout=SECONDS}, so a client can drop a pooled connection
 * before the server closes it. A client may still send a request just as an idle connection closes: it then gets no
 * answer at all and should retry on a new connection (OkHttp does; the JDK's {@code HttpClient} does for GET, and for
 * every method with {@code -Djdk.httpclient.enableAllMethodRetry=true}). An answer after which the server closes the
 * connection (a body over the limit, stopped or cut short) says {@code Connection: close}.
 *
 * <p>The server does not own the models: close it, then the {@link ServedModels}.
 */
public final class OpenAiServer implements AutoCloseable {
    private static final String ERROR_WRITTEN = "attn4j.error-written";
    private static final Set<String> ROUTES = Set.of("/health", "/metrics", "/v1/models", "/v1/embeddings",
            "/v1/completions", "/v1/chat/completions", "/v1/rerank", "/rerank");

    private final Javalin app;
    private final ServerOptions options;
    private final Map<String, EmbeddingBatcher> batchers;
    private final ExecutorService responders;
    private final GenerationScheduler scheduler;
    private final Metrics metrics = new Metrics();
    private final long created = System.currentTimeMillis() / 1000;

    private OpenAiServer(ServedModels models, ServerOptions options) {
        this.options = options;
        Map<String, ServedModels.Encoder> encoders = new LinkedHashMap<>();
        Map<String, ServedModels.Decoder> decoders = new LinkedHashMap<>();
        Map<String, ServedModels.Reranker> rerankers = new LinkedHashMap<>();
        for (Map.Entry<String, Object> m : models.all().entrySet()) {
            if (m.getValue() instanceof ServedModels.Encoder e) {
                encoders.put(m.getKey(), e);
            } else if (m.getValue() instanceof ServedModels.Decoder d) {
                decoders.put(m.getKey(), d);
            } else if (m.getValue() instanceof ServedModels.Reranker r) {
                rerankers.put(m.getKey(), r);
            }
        }
        this.scheduler = new GenerationScheduler(options);
        GenerationEndpoint generation = new GenerationEndpoint(decoders, scheduler, options, metrics);
        List<String> names = models.names();
        this.batchers = new LinkedHashMap<>();
        AtomicInteger thread = new AtomicInteger();
        this.responders = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "attn4j-respond-" + thread.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (ServedModels.Encoder e : encoders.values()) {
            batchers.put(e.name(), new EmbeddingBatcher(e.name(), e.embedder(), options));
        }
        EmbeddingsEndpoint embeddings = new EmbeddingsEndpoint(encoders, batchers, options);
        metrics.gauge("attn4j_generations_running", "Generations holding a slot.", scheduler::running)
                .gauge("attn4j_generations_waiting", "Generations admitted and waiting for a slot.", scheduler::waiting)
                .gauge("attn4j_embeddings_running", "Texts the encoders are embedding.",
                        () -> batchers.values().stream().mapToInt(EmbeddingBatcher::running).sum())
                .gauge("attn4j_embeddings_waiting", "Embeddings requests waiting for an encoder.",
                        () -> batchers.values().stream().mapToInt(EmbeddingBatcher::waiting).sum())
                .promptCache(scheduler::promptCache, options.cacheBytes());
        this.app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.http.disableCompression();
            config.http.maxRequestSize = options.maxBodyBytes();
            config.http.prefer405over404 = true;
            config.requestLogger.http((ctx, millis) -> metrics.request(route(ctx.path()), ctx.statusCode()));
            config.jetty.addConnector((server, http) -> {
                http.setSendServerVersion(false);
                ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(http));
                c.setHost(options.host());
                c.setPort(options.port());
                c.setIdleTimeout(options.idleTimeout().toMillis());
                return c;
            });
        });
        String keepAlive = "timeout=" + options.idleTimeout().toSeconds();
        ApiKeys keys = new ApiKeys(options.apiKeys());
        app.before(ctx -> {
            ctx.header("Keep-Alive", keepAlive);
            if (keys.required() && !ctx.path().equals("/health")) {
                keys.check(ctx.header("Authorization"));
            }
        });
        app.get("/health", ctx -> json(ctx, 200, g -> {
            g.writeStringField("status", "ok");
            g.writeArrayFieldStart("models");
            for (String n : names) {
                g.writeString(n);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("embeddings");
            g.writeNumberField("running", batchers.values().stream().mapToInt(EmbeddingBatcher::running).sum());
            g.writeNumberField("waiting", batchers.values().stream().mapToInt(EmbeddingBatcher::waiting).sum());
            g.writeEndObject();
            g.writeObjectFieldStart("generations");
            g.writeNumberField("running", scheduler.running());
            g.writeNumberField("waiting", scheduler.waiting());
            g.writeNumberField("abandoned", generation.abandoned());
            g.writeEndObject();
        }));
        app.get("/metrics", ctx -> ctx.status(200).contentType(Metrics.CONTENT_TYPE).result(metrics.scrape()));
        app.get("/v1/models", ctx -> json(ctx, 200, g -> {
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("data");
            for (Map.Entry<String, Object> m : models.all().entrySet()) {
                g.writeStartObject();
                ModelJson.write(g, m.getKey(), m.getValue(), created);
                g.writeEndObject();
            }
            g.writeEndArray();
        }));
        app.get("/v1/models/{model}", ctx -> {
            String name = ctx.pathParam("model");
            Object m = models.all().get(name);
            if (m == null) {
                throw ApiException.of(404, "invalid_request_error", "model_not_found", "The model '" + name
                        + "' does not exist; models here: " + String.join(", ", names));
            }
            json(ctx, 200, g -> ModelJson.write(g, name, m, created));
        });
        app.post("/v1/embeddings", ctx -> {
            long deadline = System.nanoTime() + options.requestTimeout().toNanos();
            EmbeddingsEndpoint.Pending pending = embeddings.submit(JsonRequest.parse(body(ctx)), deadline);
            ctx.future(() -> pending.vectors()
                    .orTimeout(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                    .handleAsync((vectors, failure) -> {
                        if (failure == null) {
                            metrics.promptTokens(pending.encoder().name(),
                                    vectors.stream().mapToLong(v -> v.ids().length).sum());
                            ctx.status(200).contentType("application/json")
                                    .result(EmbeddingsJson.answer(pending, vectors));
                        } else {
                            pending.vectors().cancel(false);
                            error(ctx, failure);
                        }
                        return null;
                    }, responders));
        });
        app.post("/v1/completions", ctx -> generation.handle(ctx, JsonRequest.parse(body(ctx)),
                GenerationKind.COMPLETION, System.nanoTime() + options.requestTimeout().toNanos()));
        app.post("/v1/chat/completions", ctx -> generation.handle(ctx, JsonRequest.parse(body(ctx)),
                GenerationKind.CHAT, System.nanoTime() + options.requestTimeout().toNanos()));
        RerankEndpoint rerank = new RerankEndpoint(rerankers, options, metrics);
        for (String path : List.of("/v1/rerank", "/rerank")) {
            app.post(path, ctx -> ctx.status(200).contentType("application/json")
                    .result(rerank.answer(JsonRequest.parse(body(ctx)))));
        }
        app.exception(Exception.class, (e, ctx) -> error(ctx, e));
        app.error(404, ctx -> unmatched(ctx, 404, "invalid_request_error", "Invalid URL (" + ctx.method() + " "
                + ctx.path() + ")"));
        app.error(405, ctx -> unmatched(ctx, 405, "invalid_request_error", "Method " + ctx.method()
                + " is not allowed on " + ctx.path()));
    }

    /**
     * Starts a server; it answers until {@link #close()}.
     *
     * @param models what to serve (at least one model); the server uses them, the caller still owns them
     * @param options where to listen and the limits
     * @return the running server
     * @throws IllegalArgumentException if there is no model
     * @throws IllegalStateException if the address cannot be bound (the message says which and why)
     */
    public static OpenAiServer start(ServedModels models, ServerOptions options) {
        Objects.requireNonNull(models, "OpenAiServer.start: argument models is null");
        Objects.requireNonNull(options, "OpenAiServer.start: argument options is null");
        if (models.isEmpty()) {
            throw new IllegalArgumentException("OpenAiServer.start: there is no model to serve");
        }
        OpenAiServer server = new OpenAiServer(models, options);
        try {
            server.app.start();
        } catch (RuntimeException e) {
            server.close();
            throw new IllegalStateException("OpenAiServer.start: cannot listen on " + options.host() + ":"
                    + options.port() + ": " + ApiException.rootMessage(e), e);
        }
        return server;
    }

    /** @return the port it listens on (the one chosen when the options asked for 0) */
    public int port() {
        return app.port();
    }

    /** @return the address it is bound to */
    public String host() {
        return options.host();
    }

    /** @return the base URL clients are given, {@code http://HOST:PORT/v1} */
    public URI baseUri() {
        String h = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return URI.create("http://" + h + ":" + port() + "/v1");
    }

    /**
     * Stops listening, ends the requests in flight, stops the batchers and frees the prompt cache; the models stay
     * open.
     */
    @Override
    public void close() {
        try {
            app.stop();
        } finally {
            for (EmbeddingBatcher b : batchers.values()) {
                b.close();
            }
            responders.shutdownNow();
            scheduler.close();
        }
    }

    private byte[] body(Context ctx) {
        return RequestBody.read(ctx, options.maxBodyBytes());
    }

    private static void json(Context ctx, int status, JsonBody.Fields fields) {
        ctx.status(status).contentType("application/json").result(JsonBody.object(fields));
    }

    /** @return the route a path is served by, as written, or {@code other}: the {@code endpoint} of the metrics */
    private static String route(String path) {
        if (ROUTES.contains(path)) {
            return path;
        }
        return path.startsWith("/v1/models/") && path.indexOf('/', "/v1/models/".length()) < 0
                ? "/v1/models/{model}" : "other";
    }

    private void unmatched(Context ctx, int status, String type, String message) {
        if (ctx.attribute(ERROR_WRITTEN) == null) {
            error(ctx, ApiException.of(status, type, null, message));
        }
    }

    private void error(Context ctx, Throwable failure) {
        ApiException e = ApiException.from(failure);
        metrics.error(e);
        ctx.attribute(ERROR_WRITTEN, Boolean.TRUE);
        if (e.retryAfterSeconds() > 0) {
            ctx.header("Retry-After", Long.toString(e.retryAfterSeconds()));
        }
        if (!RequestBody.readToEnd(ctx)) {
            ctx.res().setHeader("Keep-Alive", null);
            ctx.header("Connection", "close");
        }
        ctx.status(e.status()).contentType("application/json").result(e.body());
    }
}
