package org.attn4j.models.decoder;

import java.util.Arrays;
import java.util.function.IntConsumer;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;

/**
 * Generation with a key/value cache: the prompt runs through the model once, then each new token alone, its
 * keys and values appended to the cache. Every chosen token is handed to a listener as soon as it exists.
 *
 * <pre>{@code
 * int[] out = Generator.generate(model, prompt, GenerationOptions.defaults().withMaxNewTokens(16),
 *         id -> System.out.print(id + " "));
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
        if (prompt == null || prompt.length == 0) {
            throw new IllegalArgumentException("generate: argument prompt is empty; give at least one token");
        }
        int capacity = prompt.length + Math.max(1, options.maxNewTokens());
        try (KvCache cache = model.newCache(1, capacity)) {
            return generate(model, cache, prompt, options, onToken);
        }
    }

    /**
     * Generates into a cache the caller owns, starting at the cache's current length (so that a conversation
     * can continue, or a prefix be reused after {@link KvCache#truncate}).
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
        Sampler sampler = new Sampler(options);
        int[] out = new int[options.maxNewTokens()];
        int count = 0;
        int[][] next = {prompt.clone()};
        while (count < options.maxNewTokens()) {
            float[] logits;
            try (Scope scope = model.backend().newScope()) {
                Tensor row = model.next(scope, next, cache);
                logits = row.toFloatArray();
            }
            int token = sampler.pick(logits);
            if (options.stops(token)) {
                break;
            }
            out[count++] = token;
            onToken.accept(token);
            next = new int[][] {{token}};
        }
        return Arrays.copyOf(out, count);
    }
}
