package org.attn4j.models.generate;

import java.util.Arrays;
import org.attn4j.models.tokenize.DecodeStream;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * The text of a reply as its tokens come, special tokens left out. An id the tokenizer has no token for gives no text,
 * as transformers' {@code decode} skips it: real checkpoints pad their embedding past the tokenizer (Qwen2.5 has
 * 151,936 rows for 151,665 tokens, Phi-3 32,064 for 32,011), and the model may pick such a row. Not thread-safe: one
 * per reply.
 */
final class ReplyText {
    private final Tokenizer tokenizer;
    private final DecodeStream stream;
    private int[] known = new int[16];
    private int count;

    ReplyText(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
        this.stream = new DecodeStream(tokenizer, true);
    }

    /**
     * @param id the next token of the reply
     * @return the text it completes, empty while a character is unfinished or for an id without a token
     */
    String next(int id) {
        if (tokenizer.token(id).isEmpty()) {
            return "";
        }
        if (count == known.length) {
            known = Arrays.copyOf(known, 2 * count);
        }
        known[count++] = id;
        return stream.next(id);
    }

    /** @return the text held back at the end: an unfinished character's bytes, as U+FFFD */
    String finish() {
        return stream.finish();
    }

    /** @return the whole reply's text, decoded at once */
    String text() {
        return tokenizer.decode(Arrays.copyOf(known, count));
    }
}
