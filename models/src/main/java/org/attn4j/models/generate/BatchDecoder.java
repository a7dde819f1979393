package org.attn4j.models.generate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;

/**
 * Continuous batching: many generations over one model, advanced together, one {@link CausalLM#step} per
 * {@link #step()}. A generation joins between steps with a cache of its own; in each step every generation still
 * prefilling contributes the next chunk of its prompt (at most {@link #prefillChunk()} tokens) and every decoding one
 * its last token, so that a long prompt is read a chunk at a time between decoding steps instead of stalling them.
 * A generation leaves when it ends (a stop token, its token limit, its listener returning {@code false}) or when
 * {@link Sequence#leave()} is called, and its cache is freed.
 *
 * <p>What a generation produces does not depend on the others: its chunks are cut from its own prompt alone, and
 * on a backend that declares {@link Capabilities.Feature#BATCH_INVARIANT} every op of a step gives a row the same
 * bits whatever rows share it, so its logits, and its tokens under the same options and seed, are bit-identical alone
 * and in any batch. On a backend that does not declare it, each step runs every generation in a call of its own
 * (the weights then read once per generation), which keeps that promise at the cost of the batching. With a prefill
 * chunk at least as long as the prompt, a generation's tokens equal {@link Generator#generate}'s.
 *
 * <p>With a {@link PromptCache}, a generation joins with the keys and values of the longest whole-chunk prefix of its
 * prompt that an earlier prompt of this model and chunk shared ({@link Sequence#cachedTokens()}) and reads only the
 * rest; once it has read its prompt, its whole chunks are kept for those that follow. Its logits and tokens are the
 * same bits as without the cache (see {@link PromptCache} for why).
 *
 * <pre>{@code
 * try (BatchDecoder batch = new BatchDecoder(model, 256)) {
 *     BatchDecoder.Sequence a = batch.join(promptA, options, id -> true);
 *     BatchDecoder.Sequence b = batch.join(promptB, options, id -> true);
 *     while (batch.active() > 0) {
 *         batch.step();
 *     }
 *     int[] tokensA = a.generation().tokens();
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one thread joins, steps and closes. Listeners run on it, inside {@link #step()}, and should
 * only hand the token on.
 */
public final class BatchDecoder implements AutoCloseable {
    private final CausalLM model;
    private final int prefillChunk;
    private final boolean together;
    private final PromptCache prompts;
    private final List<Sequence> active = new ArrayList<>();

    /**
     * @param model the model every generation runs on
     * @param prefillChunk the most prompt tokens one generation runs in one step, at least 1
     */
    public BatchDecoder(CausalLM model, int prefillChunk) {
        this(model, prefillChunk, null);
    }

    /**
     * @param model the model every generation runs on
     * @param prefillChunk the most prompt tokens one generation runs in one step, at least 1
     * @param prompts where prompts' keys and values are kept and looked up, shared with other decoders if need be;
     *     null for none
     */
    public BatchDecoder(CausalLM model, int prefillChunk, PromptCache prompts) {
        this.prompts = prompts;
        this.model = Objects.requireNonNull(model, "BatchDecoder: argument model is null");
        if (prefillChunk < 1) {
            throw new IllegalArgumentException("BatchDecoder: argument prefillChunk is " + prefillChunk
                    + "; it must be at least 1");
        }
        this.prefillChunk = prefillChunk;
        this.together = model.backend().capabilities().has(Capabilities.Feature.BATCH_INVARIANT);
    }

    /** @return the most prompt tokens one generation runs in one step */
    public int prefillChunk() {
        return prefillChunk;
    }

    /** @return how many generations take part in the next step */
    public int active() {
        return active.size();
    }

    /**
     * Adds a generation, which takes part from the next step on, with a cache of room for the prompt and the most
     * tokens the options allow, holding what the prompt cache has of its prompt. One whose options allow no new
     * token ends at once, without a step.
     *
     * @param prompt at least one token id, each in {@code [0, V)}
     * @param options how to choose tokens and when to stop
     * @param listener receives each new token (not a stop token) in the step that made it; returning {@code false}
     *     ends the generation
     * @return the generation's handle
     * @throws IllegalArgumentException if the prompt is empty or holds an id outside the vocabulary
     */
    public Sequence join(int[] prompt, GenerationOptions options, TokenListener listener) {
        if (prompt == null || prompt.length == 0) {
            throw new IllegalArgumentException("BatchDecoder.join: argument prompt is empty; give at least one token");
        }
        int vocab = model.config().vocabSize();
        for (int i = 0; i < prompt.length; i++) {
            if (prompt[i] < 0 || prompt[i] >= vocab) {
                throw new IllegalArgumentException("BatchDecoder.join: argument prompt holds id " + prompt[i]
                        + " at " + i + ", outside [0, " + vocab + ")");
            }
        }
        Sequence s = new Sequence(prompt.clone(), Objects.requireNonNull(options,
                "BatchDecoder.join: argument options is null"), Objects.requireNonNull(listener,
                "BatchDecoder.join: argument listener is null"));
        if (s.limit == 0) {
            s.finish(StopReason.LENGTH, -1);
        } else {
            s.cache = model.newCache(1, Generator.capacity(prompt.length, options));
            if (prompts != null) {
                try {
                    s.cached = prompts.restore(model, prefillChunk, s.prompt, s.cache);
                } catch (RuntimeException e) {
                    s.free();
                    throw e;
                }
                s.read = s.cached;
            }
            active.add(s);
        }
        return s;
    }

    /**
     * Runs one step over every active generation: the next prompt chunk of each one still prefilling, the last
     * token of each decoding one; each generation whose prompt is now read has its prompt kept in the prompt cache,
     * picks a token and hands it to its listener, and those that end leave. Does nothing when none is active.
     *
     * @throws RuntimeException what the model throws; every generation of the step then ends without a
     *     {@link Sequence#generation()} (it stays null), its cache freed, and the exception is thrown on
     */
    public void step() {
        active.removeIf(s -> s.finished);
        if (active.isEmpty()) {
            return;
        }
        int b = active.size();
        int[][] ids = new int[b][];
        List<KvCache> caches = new ArrayList<>(b);
        for (int r = 0; r < b; r++) {
            Sequence s = active.get(r);
            ids[r] = s.next();
            caches.add(s.cache);
        }
        float[] logits;
        try (Scope scope = model.backend().newScope()) {
            if (together) {
                logits = model.step(scope, ids, caches).toFloatArray();
            } else {
                float[][] rows = new float[b][];
                for (int r = 0; r < b; r++) {
                    rows[r] = model.step(scope, new int[][] {ids[r]}, List.of(caches.get(r))).toFloatArray();
                }
                logits = new float[b * rows[0].length];
                for (int r = 0; r < b; r++) {
                    System.arraycopy(rows[r], 0, logits, r * rows[r].length, rows[r].length);
                }
            }
        } catch (RuntimeException e) {
            for (Sequence s : active) {
                s.free();
            }
            active.clear();
            throw e;
        }
        int vocab = logits.length / b;
        for (int r = 0; r < b; r++) {
            Sequence s = active.get(r);
            boolean prefilling = s.read < s.prompt.length;
            s.read += ids[r].length;
            if (prefilling && s.read == s.prompt.length && prompts != null) {
                prompts.store(model, prefillChunk, s.prompt, s.cache);
            }
            if (s.read == s.prompt.length + s.count) {
                s.take(Arrays.copyOfRange(logits, r * vocab, (r + 1) * vocab));
            }
        }
        active.removeIf(s -> s.finished);
    }

    /** Ends every active generation as cancelled and frees its cache. */
    @Override
    public void close() {
        for (Sequence s : active) {
            s.finish(StopReason.CANCELLED, -1);
        }
        active.clear();
    }

    /**
     * One generation of a {@link BatchDecoder}: its prompt, its sampler and cache, what it has produced. Its methods
     * are for the decoder's thread.
     */
    public final class Sequence {
        private final int[] prompt;
        private final GenerationOptions options;
        private final TokenListener listener;
        private final Sampler sampler;
        private final int limit;
        private final int[] all;
        private KvCache cache;
        private int read;
        private int cached;
        private int count;
        private boolean finished;
        private Generation generation;

        private Sequence(int[] prompt, GenerationOptions options, TokenListener listener) {
            this.prompt = prompt;
            this.options = options;
            this.listener = listener;
            this.sampler = new Sampler(options);
            int l = options.maxNewTokens();
            if (options.maxLength() > 0) {
                l = Math.min(l, Math.max(0, options.maxLength() - prompt.length));
            }
            this.limit = l;
            this.all = Arrays.copyOf(prompt, prompt.length + l);
        }

        /** @return whether the generation has ended */
        public boolean finished() {
            return finished;
        }

        /** @return how many of its prompt's positions it took from the prompt cache instead of running them */
        public int cachedTokens() {
            return cached;
        }

        /** @return whether it is still reading its prompt */
        public boolean prefilling() {
            return !finished && read < prompt.length;
        }

        /** @return what it produced and why it ended, or null while it runs */
        public Generation generation() {
            return generation;
        }

        /** Ends the generation as cancelled before the next step; does nothing once it has ended. */
        public void leave() {
            if (!finished) {
                finish(StopReason.CANCELLED, -1);
            }
        }

        /** @return the tokens this step runs: the next chunk of the prompt, or the last token */
        private int[] next() {
            if (read < prompt.length) {
                return Arrays.copyOfRange(prompt, read, Math.min(prompt.length, read + prefillChunk));
            }
            return new int[] {all[prompt.length + count - 1]};
        }

        /** Picks a token from the logits of its last position, as {@link Generator#generate} does. */
        private void take(float[] logits) {
            int length = prompt.length + count;
            int token = sampler.pick(logits, all, length, count);
            if (token < 0) {
                finish(StopReason.GRAMMAR, -1);
                return;
            }
            if (options.stops(token)) {
                finish(StopReason.STOP_TOKEN, token);
                return;
            }
            all[length] = token;
            count++;
            if (!listener.onToken(token, logits)) {
                finish(StopReason.CANCELLED, -1);
            } else if (count >= limit) {
                finish(StopReason.LENGTH, -1);
            }
        }

        private void finish(StopReason reason, int stop) {
            finished = true;
            generation = new Generation(Arrays.copyOfRange(all, prompt.length, prompt.length + count), reason, stop,
                    prompt.length);
            free();
        }

        private void free() {
            finished = true;
            if (cache != null) {
                cache.close();
                cache = null;
            }
        }
    }
}
