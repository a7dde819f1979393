package org.attn4j.server;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.models.generate.Generation;
import org.attn4j.models.generate.StopReason;
import org.attn4j.models.tokenize.DecodeStream;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * One request's generation as its thread sees it: the tokens the {@link GenerationScheduler}'s batched steps produce,
 * each decoded to text, passed through the stop strings and handed to a {@link Sink}. It ends at a stop id, a stop
 * string, {@code maxNewTokens}, the deadline ({@link #timedOut()}) or when the sink refuses a piece
 * ({@link #stopped()}). When the request asks for log-probabilities, each token's ({@link TokenLogprob}, from the
 * logits it was chosen from) is kept until {@link #takeLogprobs()}. Not thread-safe: the request's thread runs it.
 */
final class GenerationRun {
    /** Receives the text a run lets through, in order. */
    @FunctionalInterface
    interface Sink {
        /** @return false once the text cannot be delivered (the client is gone): the run stops */
        boolean accept(String text);
    }

    private final GenerationRequest request;
    private final DecodeStream decode;
    private final Tokenizer tokenizer;
    private final StopStrings stops;
    private int tokens;
    private long firstTokenNanos;
    private long lastTokenNanos;
    private final List<TokenLogprob> logprobs = new ArrayList<>();
    private int textOffset;
    private boolean timedOut;
    private boolean stopped;

    GenerationRun(GenerationRequest request) {
        this.request = request;
        this.tokenizer = request.decoder().tokenizer();
        this.decode = new DecodeStream(tokenizer, true, request.context());
        this.stops = new StopStrings(request.stops());
        this.textOffset = request.logprobs() >= 0 ? tokenizer.decode(request.prompt(), true).length() : 0;
    }

    /**
     * Receives the generation's tokens from the scheduler as they come, turns them into text and hands it to the
     * sink; the ticket must hold a slot ({@link GenerationScheduler.Ticket#start}). Cancels the generation when the
     * sink refuses, a stop string ends the text, the deadline passes or the thread is interrupted.
     *
     * @param ticket the request's place in the scheduler
     * @param deadlineNanos when the request stops being wanted ({@link System#nanoTime()})
     * @param sink where the text goes
     * @return the generated ids and why the model stopped ({@link StopReason#CANCELLED} when this run ended it)
     * @throws RuntimeException what the model threw
     */
    Generation run(GenerationScheduler.Ticket ticket, long deadlineNanos, Sink sink) {
        List<Integer> produced = new ArrayList<>();
        while (true) {
            Object event;
            try {
                event = ticket.next(deadlineNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopped = true;
                return cancel(ticket, produced);
            }
            if (event == null) {
                timedOut = true;
                return cancel(ticket, produced);
            }
            if (event instanceof Generation g) {
                return g;
            }
            GenerationScheduler.Chosen chosen = (GenerationScheduler.Chosen) event;
            int token = chosen.token();
            if (chosen.logits() != null) {
                TokenLogprob t = TokenLogprob.of(token, chosen.logits(), request.logprobs(), tokenizer, textOffset);
                textOffset += t.text().length();
                logprobs.add(t);
            }
            produced.add(token);
            String text = next(token);
            if (!text.isEmpty() && !sink.accept(text)) {
                stopped = true;
                return cancel(ticket, produced);
            }
            if (stops.stopped()) {
                return cancel(ticket, produced);
            }
        }
    }

    private Generation cancel(GenerationScheduler.Ticket ticket, List<Integer> produced) {
        ticket.cancel();
        return new Generation(produced.stream().mapToInt(Integer::intValue).toArray(), StopReason.CANCELLED, -1,
                request.prompt().length);
    }

    private String next(int token) {
        lastTokenNanos = System.nanoTime();
        if (tokens == 0) {
            firstTokenNanos = lastTokenNanos;
        }
        tokens++;
        return stops.next(tokenizer.token(token).isEmpty() ? "" : decode.next(token));
    }

    /** @return the text held back until the run ended (an incomplete character, a possible stop string's start) */
    String finish() {
        return stops.next(decode.finish()) + stops.finish();
    }

    /** @return {@code stop} for a stop id or stop string, else {@code length} */
    String finishReason(Generation g) {
        return stops.stopped() || g.stopReason() == StopReason.STOP_TOKEN
                || g.stopReason() == StopReason.GRAMMAR ? "stop" : "length";
    }

    /** @return how many tokens were generated */
    int tokens() {
        return tokens;
    }

    /** @return when the first token was chosen ({@link System#nanoTime()}); meaningful once {@link #tokens()} > 0 */
    long firstTokenNanos() {
        return firstTokenNanos;
    }

    /** @return when the last token so far was chosen ({@link System#nanoTime()}) */
    long lastTokenNanos() {
        return lastTokenNanos;
    }

    /**
     * @return the log-probabilities of the tokens generated since the last call (all of them at the first), in
     *     order; empty when the request asked for none
     */
    List<TokenLogprob> takeLogprobs() {
        List<TokenLogprob> out = List.copyOf(logprobs);
        logprobs.clear();
        return out;
    }

    /** @return whether the run ended at the deadline */
    boolean timedOut() {
        return timedOut;
    }

    /** @return whether the run ended because its sink refused a piece or its thread was interrupted */
    boolean stopped() {
        return stopped;
    }
}
