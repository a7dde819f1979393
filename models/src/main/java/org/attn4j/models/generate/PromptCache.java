package org.attn4j.models.generate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;

/**
 * The keys and values of prompts already read, kept so that a later prompt starting with the same tokens (a chat's
 * system prompt and earlier turns, the same request again) copies them instead of running them through the model
 * again. It holds at most {@link #maxBytes()} bytes of keys and values, and when a new prompt does not fit, drops
 * the least recently used prompts first.
 *
 * <p><b>Reuse is exact.</b> A {@link BatchDecoder} reads a prompt in chunks of {@code c} tokens cut at positions
 * {@code 0, c, 2c, …}, and what a chunk computes depends only on its tokens and on the keys and values of the
 * positions before it (on a backend that declares batch invariance, whatever other sequences share the step; on the
 * others each sequence runs alone). So the cache keeps, of each prompt read with chunk {@code c}, the positions of
 * its whole chunks only, {@code m = c·⌊n/c⌋} of {@code n}, and gives a new prompt of the same model and chunk
 * {@code p} of them, the longest whole-chunk prefix it shares with a kept prompt, never its last token (whose logits
 * choose the first new token):
 * <pre>
 *   p = c · ⌊min(shared prefix, n' − 1) / c⌋
 * </pre>
 * The new prompt then reads chunks {@code [p, p + c), …}: the very computations it would run without the cache, on
 * the very keys and values, so its logits and tokens are the same bits with and without reuse. The tokens a
 * sequence generates are computed one at a time, not as a prompt's chunk would compute them, and are not kept.
 *
 * <p>Phi-3 with LongRoPE ({@link org.attn4j.models.decoder.DecoderConfig#recomputeBeyond()} {@code B > 0}) rotates
 * every position anew, with its long factors, in the forward whose sequence first passes {@code B}; a kept prompt
 * longer than {@code B} therefore holds long-factor keys even for its first positions. Such a prompt lends a prefix
 * {@code p ≤ B} only to a prompt longer than {@code B} (whose own pass over {@code B} runs every position again, as
 * without the cache); a prefix {@code p > B} ends past the whole chunk in which both prompts passed {@code B}, the same
 * tokens in the same forward, and is lent as any other.
 *
 * <p>Thread-safe: every method holds the cache's lock; a copy runs under it.
 */
public final class PromptCache implements AutoCloseable {
    private final long maxBytes;
    private final List<Entry> entries = new ArrayList<>();
    private long bytes;
    private long clock;
    private long hits;
    private long misses;
    private long reusedTokens;
    private long evictions;
    private boolean closed;

    /**
     * @param maxBytes the most bytes of keys and values it holds, at least 1
     */
    public PromptCache(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("PromptCache: argument maxBytes is " + maxBytes
                    + "; it must be at least 1");
        }
        this.maxBytes = maxBytes;
    }

    /** @return the most bytes of keys and values it holds */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Copies into an empty cache the keys and values of the longest prefix of {@code prompt} that a kept prompt of
     * the same model and chunk shares, in whole chunks and short of the prompt's last token, and counts a hit (some
     * positions copied) or a miss.
     *
     * @param model the model the prompt runs on
     * @param chunk the prefill chunk the prompt is read with, at least 1
     * @param prompt the prompt's token ids
     * @param into an empty cache of {@code model}, batch 1, with room for the prompt; modified
     * @return how many of the prompt's positions it now holds, {@code p} above: 0 when nothing is shared
     */
    public synchronized int restore(CausalLM model, int chunk, int[] prompt, KvCache into) {
        check("restore", model, chunk, prompt);
        Objects.requireNonNull(into, "PromptCache.restore: argument into is null");
        Entry best = null;
        int reused = 0;
        for (Entry e : entries) {
            if (e.model != model || e.chunk != chunk) {
                continue;
            }
            int p = Math.min(shared(e.tokens, prompt, e.tokens.length), prompt.length - 1) / chunk * chunk;
            int beyond = model.config().recomputeBeyond();
            if (beyond > 0 && p <= beyond && e.longFactors && prompt.length <= beyond) {
                continue;
            }
            if (p > reused) {
                best = e;
                reused = p;
            }
        }
        if (best == null) {
            misses++;
            return 0;
        }
        best.kv.copyTo(into, reused);
        best.used = ++clock;
        hits++;
        reusedTokens += reused;
        return reused;
    }

    /**
     * Keeps the keys and values of a prompt's whole chunks, {@code c·⌊n/c⌋} positions copied from {@code from}, as
     * the most recently used; drops the kept prompts it extends, and then the least recently used until it fits.
     * Does nothing if a kept prompt already holds those positions (it becomes the most recently used), if the prompt
     * has no whole chunk, or if the positions alone exceed {@link #maxBytes()}.
     *
     * @param model the model the prompt ran on
     * @param chunk the prefill chunk it was read with, at least 1
     * @param prompt its token ids
     * @param from the cache it was read into, batch 1, holding at least the whole chunks; not modified
     */
    public synchronized void store(CausalLM model, int chunk, int[] prompt, KvCache from) {
        check("store", model, chunk, prompt);
        Objects.requireNonNull(from, "PromptCache.store: argument from is null");
        int m = Math.min(prompt.length, from.length()) / chunk * chunk;
        if (m == 0) {
            return;
        }
        for (Entry e : entries) {
            if (e.model == model && e.chunk == chunk && e.tokens.length >= m && shared(e.tokens, prompt, m) == m) {
                e.used = ++clock;
                return;
            }
        }
        long size = from.bytes() / from.capacity() * m;
        if (size > maxBytes) {
            return;
        }
        entries.removeIf(e -> {
            boolean extended = e.model == model && e.chunk == chunk && shared(e.tokens, prompt, m) == e.tokens.length;
            if (extended) {
                drop(e);
            }
            return extended;
        });
        while (bytes + size > maxBytes) {
            Entry oldest = entries.get(0);
            for (Entry e : entries) {
                if (e.used < oldest.used) {
                    oldest = e;
                }
            }
            entries.remove(oldest);
            drop(oldest);
            evictions++;
        }
        KvCache kept = model.newCache(1, m);
        try {
            from.copyTo(kept, m);
        } catch (RuntimeException e) {
            kept.close();
            throw e;
        }
        int beyond = model.config().recomputeBeyond();
        entries.add(new Entry(model, chunk, Arrays.copyOf(prompt, m), beyond > 0 && prompt.length > beyond, kept,
                size, ++clock));
        bytes += size;
    }

    /**
     * Drops every kept prompt of a model, for example before the model is closed.
     *
     * @param model the model
     */
    public synchronized void forget(CausalLM model) {
        entries.removeIf(e -> {
            if (e.model == model) {
                drop(e);
                return true;
            }
            return false;
        });
    }

    /** @return what it holds and how it has served, at this moment */
    public synchronized Stats stats() {
        return new Stats(bytes, entries.size(), hits, misses, reusedTokens, evictions);
    }

    /** Drops every kept prompt and frees its memory; the cache then keeps nothing more. */
    @Override
    public synchronized void close() {
        closed = true;
        entries.forEach(this::drop);
        entries.clear();
    }

    private void drop(Entry e) {
        bytes -= e.bytes;
        e.kv.close();
    }

    private void check(String method, CausalLM model, int chunk, int[] prompt) {
        if (closed) {
            throw new IllegalStateException("PromptCache." + method + ": the cache is closed");
        }
        Objects.requireNonNull(model, "PromptCache." + method + ": argument model is null");
        if (chunk < 1) {
            throw new IllegalArgumentException("PromptCache." + method + ": argument chunk is " + chunk
                    + "; it must be at least 1");
        }
        if (prompt == null || prompt.length == 0) {
            throw new IllegalArgumentException("PromptCache." + method + ": argument prompt is empty");
        }
    }

    /** @return how many of the first {@code limit} ids {@code a} and {@code b} share */
    private static int shared(int[] a, int[] b, int limit) {
        int n = Math.min(limit, Math.min(a.length, b.length));
        int i = Arrays.mismatch(a, 0, n, b, 0, n);
        return i < 0 ? n : i;
    }

    /**
     * What a {@link PromptCache} holds and how it has served.
     *
     * @param bytes the bytes of keys and values it holds
     * @param entries how many prompts it keeps
     * @param hits restores that copied some positions
     * @param misses restores that found no shared whole chunk
     * @param reusedTokens the positions all hits copied
     * @param evictions prompts dropped to make room
     */
    public record Stats(long bytes, int entries, long hits, long misses, long reusedTokens, long evictions) {
    }

    /**
     * A kept prompt: its whole chunks' ids and their keys and values, whether those were rotated with LongRoPE's long
     * factors (the prompt passed {@code recomputeBeyond}), and when it was last used.
     */
    private static final class Entry {
        private final CausalLM model;
        private final int chunk;
        private final int[] tokens;
        private final boolean longFactors;
        private final KvCache kv;
        private final long bytes;
        private long used;

        private Entry(CausalLM model, int chunk, int[] tokens, boolean longFactors, KvCache kv, long bytes,
                      long used) {
            this.model = model;
            this.chunk = chunk;
            this.tokens = tokens;
            this.longFactors = longFactors;
            this.kv = kv;
            this.bytes = bytes;
            this.used = used;
        }
    }
}
