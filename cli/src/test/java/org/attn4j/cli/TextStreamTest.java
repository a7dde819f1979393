package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.Test;

/** {@link TextStream} with the byte-level BPE of the gpt2_tiny fixture, whose 'é' is two tokens. */
class TextStreamTest {

    private static Tokenizer tokenizer() throws IOException {
        try {
            return Tokenizer.fromJson(Path.of(TextStreamTest.class.getResource("decoders/gpt2_tiny/tokenizer.json")
                    .toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> pieces(Tokenizer t, int... ids) {
        List<String> out = new ArrayList<>();
        TextStream stream = new TextStream(t, out::add);
        for (int id : ids) {
            stream.accept(id);
        }
        stream.finish();
        return out;
    }

    @Test
    void aCharacterSplitOverTwoTokensIsPrintedOnceBothHaveCome() throws IOException {
        Tokenizer t = tokenizer();
        int[] ids = t.encode("café!").ids();
        assertEquals(6, ids.length);
        assertEquals(List.of("c", "a", "f", "é", "!"), pieces(t, ids));
    }

    @Test
    void anUnfinishedSequenceAtTheEndBecomesOneReplacementCharacter() throws IOException {
        Tokenizer t = tokenizer();
        int[] ids = t.encode("café").ids();
        assertEquals(List.of("c", "a", "f", "\uFFFD"), pieces(t, ids[0], ids[1], ids[2], ids[3]));
    }

    @Test
    void theJoinedPiecesOfRandomIdsEqualTheirDecodedText() throws IOException {
        Tokenizer t = tokenizer();
        Random random = new Random(17);
        for (int trial = 0; trial < 200; trial++) {
            int[] ids = random.ints(1 + random.nextInt(20), 0, t.vocabSize()).toArray();
            assertEquals(t.decode(ids), String.join("", pieces(t, ids)), "trial " + trial);
        }
    }
}
