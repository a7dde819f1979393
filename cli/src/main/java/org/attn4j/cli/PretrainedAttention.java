package org.attn4j.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.Shape;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * The demo's last step: the same sentence through the pretrained all-MiniLM-L6-v2 (the embedded copy, no download),
 * the attention weights of every head of one layer, over its WordPiece tokens. Unlike the seeded random weights of the
 * earlier steps, whose heads spread their attention almost evenly, trained heads attend to particular tokens: the
 * next or previous word, {@code [CLS]}, {@code [SEP]}.
 */
final class PretrainedAttention {
    /** The layer drawn: the third of six, where heads that follow neighbouring tokens stand out. */
    static final int LAYER = 2;

    private PretrainedAttention() {
    }

    /**
     * @param backend where the model runs
     * @param text the demo's sentence
     * @return the step, one panel per head
     * @throws IOException if the embedded model cannot be read
     */
    static Walkthrough.Step run(Backend backend, String text) throws IOException {
        try (SentenceEmbedder model = SentenceEmbedder.loadDefault(backend, EmbeddingOptions.defaults())) {
            List<String> tokens = model.tokens(text);
            double[][][] weights = model.attentionWeights(text, LAYER);
            List<Heatmap.Panel> panels = new ArrayList<>();
            for (int h = 0; h < weights.length; h++) {
                panels.add(new Heatmap.Panel("head " + (h + 1), tokens, tokens, weights[h]));
            }
            int heads = weights.length;
            Shape shape = Shape.of(heads, tokens.size(), tokens.size());
            return new Walkthrough.Step("Pretrained all-MiniLM-L6-v2, layer " + (LAYER + 1) + " of " + model.layers()
                    + " (trained weights, " + heads + " heads)",
                    List.of("tokens (WordPiece): " + String.join(" ", tokens),
                            "the same attention as step 5, with the weights sentence-transformers trained"),
                    List.of(new Walkthrough.Named("weights", shape, "[H, L, L] over the WordPiece tokens")),
                    "pretrained weights: all-MiniLM-L6-v2, layer " + (LAYER + 1) + " (" + heads + " heads)", panels);
        }
    }
}
