package org.attn4j.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/** Models the tests share, loaded once per JVM on the EJML backend. */
final class Fixtures {
    static final String MINILM = "all-minilm-l6-v2";

    private static SentenceEmbedder minilm;

    private Fixtures() {
    }

    /** @return the embedded all-MiniLM-L6-v2 (mean pooling, normalised, 256 tokens); shared, so never closed */
    static synchronized SentenceEmbedder minilm() {
        if (minilm == null) {
            try {
                minilm = SentenceEmbedder.loadDefault(Backends.load("ejml"), EmbeddingOptions.defaults());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return minilm;
    }

    /**
     * @param matryoshka the sizes to allow for {@code dimensions}
     * @return a registry serving the shared MiniLM; the tests close the servers, never this registry
     */
    static ServedModels encoders(int... matryoshka) {
        return new ServedModels().addEncoder(MINILM, minilm(), matryoshka);
    }
}
