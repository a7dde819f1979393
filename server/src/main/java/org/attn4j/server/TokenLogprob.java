package org.attn4j.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * A generated token's log-probability and the most likely tokens at its position, as OpenAI's {@code logprobs}
 * report them. Over the step's logits {@code l} ({@code [vocabSize]}), in double:
 * <pre>
 *   log p(i) = l_i − (m + log Σ_j exp(l_j − m)),   m = max_j l_j
 * </pre>
 * the model's own distribution, before the repetition penalty, temperature, top-k, top-p and min-p with which the
 * token was chosen (so a sampled token may have a low log-probability, and the report does not depend on the
 * sampling parameters). A token's text is what it decodes to alone, special tokens included; a token that holds only
 * part of a character decodes to U+FFFD, and its {@code bytes} are that text's UTF-8.
 *
 * @param text the token's text
 * @param logprob its log-probability
 * @param top the {@code n} most likely tokens at its position, most likely first (equal logits: lower id first)
 * @param offset where its text starts in the prompt's text followed by the reply's, in UTF-16 units (the legacy
 *     completions' {@code text_offset})
 */
record TokenLogprob(String text, double logprob, List<Alternative> top, int offset) {

    /**
     * One of the most likely tokens at a position.
     *
     * @param text its text
     * @param logprob its log-probability
     */
    record Alternative(String text, double logprob) {
        /** @return the text's UTF-8 bytes, OpenAI's {@code bytes} */
        byte[] bytes() {
            return text.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** @return the text's UTF-8 bytes, OpenAI's {@code bytes} */
    byte[] bytes() {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param token the chosen token
     * @param logits the logits it was chosen from, {@code [vocabSize]}
     * @param n how many of the most likely tokens to report, 0 to 20
     * @param tokenizer decodes the tokens
     * @param offset where the token's text starts
     * @return the token's log-probability and the {@code n} most likely
     */
    static TokenLogprob of(int token, float[] logits, int n, Tokenizer tokenizer, int offset) {
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l);
        }
        double sum = 0;
        for (float l : logits) {
            sum += Math.exp(l - max);
        }
        double logZ = max + Math.log(sum);
        int[] best = largest(logits, Math.min(n, logits.length));
        List<Alternative> top = new ArrayList<>(best.length);
        for (int id : best) {
            top.add(new Alternative(text(tokenizer, id), logits[id] - logZ));
        }
        return new TokenLogprob(text(tokenizer, token), logits[token] - logZ, List.copyOf(top), offset);
    }

    /** @return the ids of the {@code k} largest logits, largest first, equal ones by id */
    static int[] largest(float[] logits, int k) {
        int[] ids = new int[k];
        int held = 0;
        for (int i = 0; i < logits.length; i++) {
            if (held == k && (k == 0 || !(logits[i] > logits[ids[k - 1]]))) {
                continue;
            }
            int at = held < k ? held++ : k - 1;
            while (at > 0 && logits[i] > logits[ids[at - 1]]) {
                ids[at] = ids[at - 1];
                at--;
            }
            ids[at] = i;
        }
        return Arrays.copyOf(ids, held);
    }

    private static String text(Tokenizer tokenizer, int id) {
        return tokenizer.decode(new int[] {id}, false);
    }
}
