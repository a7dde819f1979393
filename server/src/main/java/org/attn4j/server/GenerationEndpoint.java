package org.attn4j.server;

import io.javalin.http.Context;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.attn4j.models.generate.Generation;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}: a request is checked
 * ({@link GenerationRequest}), admitted and batched with the others ({@link GenerationScheduler}), run
 * ({@link GenerationRun}) and answered whole or as server-sent events ({@link GenerationJson},
 * {@link EventStream}).
 *
 * <p>A streamed reply whose client goes away stops at its next piece of text and counts as {@link #abandoned()};
 * one that runs past the per-request timeout ends with an error event and no {@code [DONE]}. A whole reply past the
 * timeout is a 503.
 */
final class GenerationEndpoint {
    private final Map<String, ServedModels.Decoder> decoders;
    private final GenerationScheduler scheduler;
    private final ServerOptions options;
    private final AtomicLong abandoned = new AtomicLong();

    GenerationEndpoint(Map<String, ServedModels.Decoder> decoders, GenerationScheduler scheduler,
                       ServerOptions options) {
        this.decoders = decoders;
        this.scheduler = scheduler;
        this.options = options;
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
        GenerationRequest request = GenerationRequest.parse(body, kind, decoders, options);
        try (GenerationScheduler.Ticket ticket = scheduler.admit()) {
            ticket.start(request.decoder().model(), request.prompt(), request.options(), deadlineNanos);
            if (request.stream()) {
                stream(ctx, request, kind, ticket, deadlineNanos);
            } else {
                whole(ctx, request, kind, ticket, deadlineNanos);
            }
        }
    }

    private static void whole(Context ctx, GenerationRequest request, GenerationKind kind,
                              GenerationScheduler.Ticket ticket, long deadlineNanos) {
        GenerationRun run = new GenerationRun(request);
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
        ctx.status(200).contentType("application/json").result(GenerationJson.whole(GenerationJson.id(kind), kind,
                request, text.toString(), run.finishReason(g), g));
    }

    private void stream(Context ctx, GenerationRequest request, GenerationKind kind, GenerationScheduler.Ticket ticket,
                        long deadlineNanos) {
        Optional<EventStream> opened = EventStream.open(ctx);
        if (opened.isEmpty()) {
            return;
        }
        EventStream events = opened.get();
        String id = GenerationJson.id(kind);
        if (kind == GenerationKind.CHAT && !events.send(GenerationJson.chunk(id, kind, request, "", true, null))) {
            return;
        }
        GenerationRun run = new GenerationRun(request);
        Generation g;
        try {
            g = run.run(ticket, deadlineNanos, piece -> {
                if (events.send(GenerationJson.chunk(id, kind, request, piece, false, null))) {
                    return true;
                }
                abandoned.incrementAndGet();
                return false;
            });
        } catch (RuntimeException e) {
            events.send(ApiException.from(e).body());
            return;
        }
        if (run.stopped()) {
            return;
        }
        if (run.timedOut()) {
            events.send(ApiException.timeout("The generation ran past the server's per-request timeout after "
                    + run.tokens() + " tokens").body());
            return;
        }
        String rest = run.finish();
        if (!rest.isEmpty() && !events.send(GenerationJson.chunk(id, kind, request, rest, false, null))) {
            return;
        }
        if (!events.send(GenerationJson.chunk(id, kind, request, "", false, run.finishReason(g)))) {
            return;
        }
        if (request.usageChunk()
                && !events.send(GenerationJson.usageChunk(id, kind, request, g.tokens().length))) {
            return;
        }
        events.done();
    }
}
