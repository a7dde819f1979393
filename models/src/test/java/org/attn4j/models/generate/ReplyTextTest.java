package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.Test;

/**
 * A reply's text when the model picks ids past the tokenizer, as checkpoints whose embedding is padded (Qwen2.5,
 * Phi-3) can: those ids give no text and the rest streams and decodes as without them.
 */
class ReplyTextTest {

    @Test
    void idsWithoutATokenGiveNoTextAndTheRestDecodesAsWithoutThem() throws IOException {
        Tokenizer t = Tokenizer.fromFolder(ChatModelTest.folder());
        int[] words = t.encode("Hi \uD83D\uDE00 there, caf\u00e9!", false).ids();
        int past = t.vocabSize();
        List<Integer> mixed = new ArrayList<>();
        for (int i = 0; i < words.length; i++) {
            mixed.add(words[i]);
            if (i % 2 == 0) {
                mixed.add(past + i);
            }
        }
        ReplyText reply = new ReplyText(t);
        StringBuilder streamed = new StringBuilder();
        for (int id : mixed) {
            String piece = reply.next(id);
            if (id >= past) {
                assertEquals("", piece, "id " + id + " has no token");
            }
            streamed.append(piece);
        }
        streamed.append(reply.finish());
        assertEquals(t.decode(words), reply.text());
        assertEquals(reply.text(), streamed.toString());
    }
}
