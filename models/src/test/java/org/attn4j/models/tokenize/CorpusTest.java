package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CorpusTest {

    @Test
    void theCommittedCorpusIsWhatTheGeneratorWrites() throws IOException {
        String committed;
        try (InputStream in = Corpus.class.getResourceAsStream(Corpus.RESOURCE)) {
            committed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(Corpus.toJsonLines(Corpus.generate()), committed,
                "run Corpus.main from the models directory to write the corpus again");
        assertEquals(Corpus.generate().size(), Corpus.read().size());
    }
}
