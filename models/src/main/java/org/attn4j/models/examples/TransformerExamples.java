package org.attn4j.models.examples;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.text.Vocabulary;
import org.attn4j.models.tutorial.AttentionMasks;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.MultiHeadOptions;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.SinusoidalPositionalEncoding;
import org.attn4j.models.tutorial.TransformerEncoder;
import org.attn4j.models.tutorial.TransformerEncoderLayer;

/**
 * Runnable examples: Raschka's chapter-3 walk-through ({@link RaschkaChapter3}), then a sentence taken through a
 * vocabulary, an embedding, the sinusoidal positional encoding, masked multi-head attention and an encoder stack of
 * post-norm and pre-norm blocks. Run with {@code mvn -pl models exec:java} (the test class path supplies a backend)
 * or {@code java -cp ... org.attn4j.models.examples.TransformerExamples}; {@code -Dattn4j.backend=NAME} picks a
 * backend.
 */
public final class TransformerExamples {
    /** The text the vocabulary is built from. */
    public static final String TEXT = "Your journey starts with one step. The step starts the journey; one journey,"
            + " with attention, is all you need!";

    private TransformerExamples() {
    }

    /**
     * @param backend where to compute
     * @param out where to print
     */
    public static void run(Backend backend, PrintStream out) {
        RaschkaChapter3.run(backend, out);
        out.println("\n== A sentence through a transformer encoder (random weights, seed 42)");
        Vocabulary vocab = Vocabulary.fromText(TEXT);
        out.println("vocabulary (" + vocab.size() + " words, sorted): " + vocab.words());
        String[] sentences = {"Your journey starts with one step", "attention is all you need"};
        int[] first = vocab.encode(sentences[0]);
        int[] second = vocab.encode(sentences[1]);
        int length = first.length;
        int[] ids = new int[2 * length];
        System.arraycopy(first, 0, ids, 0, length);
        System.arraycopy(second, 0, ids, length, second.length);
        out.println("ids: " + Arrays.toString(first) + " and " + Arrays.toString(second)
                + " padded to " + length + " with id 0");
        int d = 8;
        try (Scope s = backend.newScope()) {
            Embedding embedding = Embedding.random(vocab.size(), d, 42);
            Tensor x = embedding.forward(s, ids, Shape.of(2, length), DType.F32);
            x = new SinusoidalPositionalEncoding(64, d).forward(s, x);
            out.println("embedded + positions: " + x.shape());

            AttentionMasks masks = AttentionMasks.NONE.withKeyPadding(
                    Mask.keyPadding(new int[] {first.length, second.length}, length)).withCausal(true);
            MultiHeadAttention mha = MultiHeadAttention.random(d, 2, 42);
            AttentionResult r = mha.forward(s, x, x, x,
                    MultiHeadOptions.defaults().withMasks(masks).withAverageAttnWeights(false));
            out.println("causal multi-head attention with key padding, weights of sentence 2, head 0 [6, 6]:\n"
                    + Printer.format(s.ops().split(s.ops().reshape(r.weights(), 4, length, length),
                            new int[] {2, 1, 1}, 0).get(1), 3));

            TransformerEncoder encoder = TransformerEncoder.of(List.of(
                    TransformerEncoderLayer.random(TransformerEncoderLayer.Config.of(d, 2, 4, Activation.RELU, false),
                            1),
                    TransformerEncoderLayer.random(TransformerEncoderLayer.Config.of(d, 2, 4, Activation.GELU, true),
                            2)), null);
            Tensor encoded = encoder.forward(s, x, AttentionMasks.NONE.withKeyPadding(
                    Mask.keyPadding(new int[] {first.length, second.length}, length)), RunMode.INFERENCE);
            out.println("post-norm ReLU block then pre-norm GELU block, output " + encoded.shape()
                    + ", sentence 1, token \"journey\": "
                    + Printer.format(s.ops().split(s.ops().reshape(encoded, 2 * length, d),
                            new int[] {1, 1, 2 * length - 2}, 0).get(1), 4));
        }
    }

    /**
     * Runs every example on the backend {@link Backends#load()} selects.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        run(Backends.load(), System.out);
    }
}
