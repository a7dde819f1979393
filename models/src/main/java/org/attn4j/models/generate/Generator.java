package org.attn4j.models.generate;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;

/**
 * Generation with a key/value cache: the prompt runs through the model once, then each new token alone, its
 * keys and values appended to the cache. Every chosen token is handed to a listener as soon as it exists.
 *
 * <pre>{@code
 * int[] out = Generator.generate(model, prompt, GenerationOptions.defaults().withMaxNewTokens(16),
 *         id -> System.out.print(id + " "));
 * ChatResponse reply = Generator.chat(chatModel, List.of(Message.user("Hi!")), chatModel.defaults(),
 *         (id, text) -> { System.out.print(text); return true; });
 * }</pre>
 */
public final class Generator {

    private Generator() {
    }

    /**
     * @param model the model
     * @param prompt at least one token id
     * @param options how to choose tokens and when to stop
     * @param onToken called with each generated token, in order, before the next one is computed; not called for
     *     a stop token
     * @return the generated tokens (without the prompt and without a stop token)
     */
    public static int[] generate(CausalLM model, int[] prompt, GenerationOptions options, IntConsumer onToken) {
        checkPrompt(prompt);
        try (KvCache cache = model.newCache(1, capacity(prompt.length, options))) {
            return stream(model, cache, prompt, options, listener(onToken)).tokens();
        }
    }

    /**
     * Generates into a cache the caller owns, starting at the cache's current length (so that a conversation
     * can continue, or a prefix be reused after {@link KvCache#truncate}). The repetition penalty sees only
     * {@code prompt}, not what the cache held before; {@link #stream} sees the whole sequence.
     *
     * @param model the model
     * @param cache its cache, batch 1, with room for the prompt and the new tokens
     * @param prompt at least one token id, following what the cache holds
     * @param options how to choose tokens and when to stop
     * @param onToken called with each generated token
     * @return the generated tokens
     */
    public static int[] generate(CausalLM model, KvCache cache, int[] prompt, GenerationOptions options,
                                 IntConsumer onToken) {
        checkPrompt(prompt);
        int held = cache.length();
        int[] sequence = new int[held + prompt.length];
        System.arraycopy(prompt, 0, sequence, held, prompt.length);
        return run(model, cache, sequence, held, options, listener(onToken)).tokens();
    }

    /**
     * Generates after a sequence of which the cache holds a prefix: the ids past the cache's length run through the
     * model first, then one new token at a time, each handed to the listener, which may stop the generation. The
     * repetition penalty and {@link GenerationOptions#maxLength()} see the whole sequence. A server generates with
     * this: the ids of a rendered conversation in, the tokens streamed out with why generation ended.
     *
     * @param model the model
     * @param cache its cache, batch 1, holding the K/V of {@code sequence}'s first {@code cache.length()} ids (none
     *     for a fresh cache) and room for the rest and the new tokens
     * @param sequence the whole sequence so far, longer than what the cache holds
     * @param options how to choose tokens and when to stop
     * @param listener receives each new token; returning {@code false} stops generation
     * @return the new tokens, why generation ended and the prompt's length ({@code sequence.length})
     * @throws IllegalArgumentException if the cache holds all of the sequence or more, or lacks room
     */
    public static Generation stream(CausalLM model, KvCache cache, int[] sequence, GenerationOptions options,
                                    TokenListener listener) {
        Objects.requireNonNull(sequence, "generate: argument sequence is null");
        if (cache.length() >= sequence.length) {
            throw new IllegalArgumentException("generate: the cache holds " + cache.length() + " positions but the"
                    + " sequence has " + sequence.length + "; at least one new token must run");
        }
        return run(model, cache, sequence, cache.length(), options, Objects.requireNonNull(listener,
                "generate: argument listener is null"));
    }

    /**
     * Answers a conversation with a chat model: the messages rendered by the checkpoint's chat template with a
     * generation prompt, encoded without added special tokens (the template carries them, as transformers'
     * {@code apply_chat_template} does), generated with {@code options}, stopping at the checkpoint's end-of-turn
     * and end-of-sequence ids; the listener receives each token with the text it completes.
     *
     * @param model the chat model
     * @param messages the conversation, the last message usually the user's
     * @param options how to choose tokens and when to stop ({@link ChatModel#defaults()} is what the checkpoint
     *     intends)
     * @param listener receives each token and its text; returning {@code false} stops generation
     * @return the reply, its tokens, why it ended and the token counts
     * @throws org.attn4j.models.chat.ChatTemplateException if the template cannot render the conversation
     */
    public static ChatResponse chat(ChatModel model, List<Message> messages, GenerationOptions options,
                                    ChatListener listener) {
        return model.chat(messages, options, listener);
    }

    private static Generation run(CausalLM model, KvCache cache, int[] sequence, int held, GenerationOptions options,
                                  TokenListener listener) {
        Sampler sampler = new Sampler(options);
        int limit = options.maxNewTokens();
        if (options.maxLength() > 0) {
            limit = Math.min(limit, Math.max(0, options.maxLength() - sequence.length));
        }
        int[] all = Arrays.copyOf(sequence, sequence.length + limit);
        int length = sequence.length;
        int count = 0;
        int[][] next = {Arrays.copyOfRange(sequence, held, sequence.length)};
        StopReason reason = StopReason.LENGTH;
        int stop = -1;
        while (count < limit) {
            float[] logits;
            try (Scope scope = model.backend().newScope()) {
                Tensor row = model.next(scope, next, cache);
                logits = row.toFloatArray();
            }
            int token = sampler.pick(logits, all, length, count);
            if (token < 0) {
                reason = StopReason.GRAMMAR;
                break;
            }
            if (options.stops(token)) {
                reason = StopReason.STOP_TOKEN;
                stop = token;
                break;
            }
            all[length++] = token;
            count++;
            if (!listener.onToken(token, logits)) {
                reason = StopReason.CANCELLED;
                break;
            }
            next = new int[][] {{token}};
        }
        return new Generation(Arrays.copyOfRange(all, sequence.length, length), reason, stop, sequence.length);
    }

    /** @return room for the prompt and the most tokens the options allow */
    static int capacity(int prompt, GenerationOptions options) {
        int limit = options.maxNewTokens();
        if (options.maxLength() > 0) {
            limit = Math.min(limit, Math.max(0, options.maxLength() - prompt));
        }
        return prompt + Math.max(1, limit);
    }

    private static void checkPrompt(int[] prompt) {
        if (prompt == null || prompt.length == 0) {
            throw new IllegalArgumentException("generate: argument prompt is empty; give at least one token");
        }
    }

    private static TokenListener listener(IntConsumer onToken) {
        Objects.requireNonNull(onToken, "generate: argument onToken is null");
        return id -> {
            onToken.accept(id);
            return true;
        };
    }
}
