package org.attn4j.server;

import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.attn4j.models.generate.Generation;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}: a request is checked
 * ({@link GenerationRequest}), admitted and batched with the others ({@link GenerationScheduler}), run
 * ({@link GenerationRun}), its text read into reasoning, content and function calls ({@link ChatReply}) and answered
 * whole or as server-sent events ({@link GenerationJson}, {@link EventStream}).
 *
 * <p>A streamed reply whose client goes away stops at its next piece of text and counts as {@link #abandoned()};
 * one that runs past the per-request timeout ends with an error event and no {@code [DONE]}. A whole reply past the
 * timeout is a 503.
 */
final class GenerationEndpoint {
    private final Map<String, ServedModels.Decoder> decoders;
    private final GenerationScheduler scheduler;
    private final ServerOptions options;
    private final Metrics metrics;
    private static final ChatReply.Delta NOTHING = new ChatReply.Delta("", "", List.of());
    private final AtomicLong abandoned = new AtomicLong();

    GenerationEndpoint(Map<String, ServedModels.Decoder> decoders, GenerationScheduler scheduler,
                       ServerOptions options, Metrics metrics) {
        this.decoders = decoders;
        this.scheduler = scheduler;
        this.options = options;
        this.metrics = metrics;
    }

    /** @return how many streamed generations stopped early because their client went away */
    long abandoned() {
        return abandoned.get();
    }

    /**
     * Answers one request on the calling (server) thread.
     *
     * @param ctx the exchange
     * @param body the request body
     * @param kind which endpoint
     * @param deadlineNanos when the request stops being wanted ({@link System#nanoTime()})
     * @throws ApiException for a bad request, a full house (429) or the deadline passing before the first turn
     */
    void handle(Context ctx, JsonRequest body, GenerationKind kind, long deadlineNanos) throws InterruptedException {
        long arrival = System.nanoTime();
        GenerationRequest request = GenerationRequest.parse(body, kind, decoders, options);
        try (GenerationScheduler.Ticket ticket = scheduler.admit()) {
            ticket.start(request.decoder().model(), request.prompt(), request.options(), request.logprobs() >= 0,
                    deadlineNanos);
            GenerationRun run = new GenerationRun(request);
            try {
                if (request.stream()) {
                    stream(ctx, request, kind, run, ticket, deadlineNanos);
                } else {
                    whole(ctx, request, kind, run, ticket, deadlineNanos);
                }
            } finally {
                String model = request.decoder().name();
                metrics.promptTokens(model, request.prompt().length);
                metrics.completionTokens(model, run.tokens());
                metrics.generation(arrival, run.firstTokenNanos(), run.lastTokenNanos(), run.tokens());
            }
        }
    }

    private static void whole(Context ctx, GenerationRequest request, GenerationKind kind, GenerationRun run,
                              GenerationScheduler.Ticket ticket, long deadlineNanos) {
        StringBuilder text = new StringBuilder();
        Generation g = run.run(ticket, deadlineNanos, piece -> {
            text.append(piece);
            return true;
        });
        if (run.timedOut()) {
            throw ApiException.timeout("The generation ran past the server's per-request timeout after "
                    + run.tokens() + " tokens");
        }
        text.append(run.finish());
        ChatReply.Delta reply = ChatReply.whole(request.reply(), text.toString());
        ctx.status(200).contentType("application/json").result(GenerationJson.whole(GenerationJson.id(kind), kind,
                request, reply, finishReason(run, g, reply), g, run.takeLogprobs(), ticket.cachedTokens()));
    }

    private void stream(Context ctx, GenerationRequest request, GenerationKind kind, GenerationRun run,
                        GenerationScheduler.Ticket ticket, long deadlineNanos) {
        Optional<EventStream> opened = EventStream.open(ctx);
        if (opened.isEmpty()) {
            return;
        }
        EventStream events = opened.get();
        String id = GenerationJson.id(kind);
        if (kind == GenerationKind.CHAT
                && !events.send(GenerationJson.chunk(id, kind, request, NOTHING, true, null, null))) {
            return;
        }
        ChatReply reply = new ChatReply(request.reply());
        Generation g;
        try {
            g = run.run(ticket, deadlineNanos, piece -> {
                ChatReply.Delta delta = reply.next(piece);
                if (delta.isEmpty()
                        || events.send(GenerationJson.chunk(id, kind, request, delta, false, null, run.takeLogprobs()))) {
                    return true;
                }
                abandoned.incrementAndGet();
                return false;
            });
        } catch (RuntimeException e) {
            events.send(errorEvent(ApiException.from(e)));
            return;
        }
        if (run.stopped()) {
            return;
        }
        if (run.timedOut()) {
            events.send(errorEvent(ApiException.timeout("The generation ran past the server's per-request timeout "
                    + "after " + run.tokens() + " tokens")));
            return;
        }
        ChatReply.Delta rest = reply.finish(run.finish());
        List<TokenLogprob> held = run.takeLogprobs();
        if ((!rest.isEmpty() || !held.isEmpty())
                && !events.send(GenerationJson.chunk(id, kind, request, rest, false, null, held))) {
            return;
        }
        if (!events.send(GenerationJson.chunk(id, kind, request, NOTHING, false, finishReason(run, g, rest), null))) {
            return;
        }
        if (request.usageChunk()
                && !events.send(GenerationJson.usageChunk(id, kind, request, g.tokens().length,
                ticket.cachedTokens()))) {
            return;
        }
        events.done();
    }

    /** @return {@code tool_calls} when the reply called functions, else the run's reason */
    private static String finishReason(GenerationRun run, Generation g, ChatReply.Delta reply) {
        return reply.calls().isEmpty() ? run.finishReason(g) : "tool_calls";
    }

    /** @return the error event that ends a stream, counted as an error */
    private byte[] errorEvent(ApiException e) {
        metrics.error(e);
        return e.body();
    }
}
