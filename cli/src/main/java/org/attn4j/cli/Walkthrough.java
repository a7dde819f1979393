package org.attn4j.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.text.Vocabulary;
import org.attn4j.models.tutorial.AttentionMasks;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.MultiHeadOptions;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.SelfAttention;
import org.attn4j.models.tutorial.SimplifiedSelfAttention;
import org.attn4j.models.tutorial.SinusoidalPositionalEncoding;
import org.attn4j.models.tutorial.TransformerEncoderLayer;

/**
 * The demo's computation, on any backend, in F32 inference, for one sentence of {@code L} words:
 * <ol>
 *   <li>vocabulary and embedding: ids of the words, {@code x = E[ids]}, {@code E [V, d]} uniform in
 *   {@code [-1, 1)} (seed {@code S});</li>
 *   <li>simplified self-attention: {@code softmax(x·xᵀ)·x}, no weights, no scaling;</li>
 *   <li>scaled self-attention: {@code softmax(Q·Kᵀ/sqrt(d))·V}, {@code Q = x·W_q} etc. with {@code W [d, d]}
 *   uniform in {@code [0, 1)} as in Raschka's {@code SelfAttention_v1} (seed {@code S+1});</li>
 *   <li>causal attention: the same weights, key {@code j} hidden from query {@code i} when {@code j > i};</li>
 *   <li>multi-head attention: PyTorch's {@code nn.MultiheadAttention(d, H)} with its initialisation
 *   (seed {@code S+2}), weights per head;</li>
 *   <li>a transformer block: {@code x + PE} (sinusoidal positions) through PyTorch's post-norm
 *   {@code nn.TransformerEncoderLayer(d, H, 4d, relu)} (seed {@code S+3}), the weights of its attention per
 *   head.</li>
 * </ol>
 * Each step reports its tensors' shapes as the backend returned them and its weights as word-labelled panels.
 */
final class Walkthrough {
    static final String DEFAULT_TEXT = "Life is short, eat dessert first";

    /**
     * A tensor of a step, for the shape table.
     *
     * @param name as the formula names it
     * @param shape its shape
     * @param what one phrase
     */
    record Named(String name, Shape shape, String what) {
    }

    /**
     * One step, as printed and drawn.
     *
     * @param title for example {@code "Scaled self-attention"}
     * @param formula lines of math
     * @param tensors inputs, parameters and outputs with their shapes
     * @param heatmapBand the heatmap row its panels go in (consecutive steps with the same band share a row), or
     *     null if it has no weights
     * @param weights one panel per head, rows and columns labelled with the words
     */
    record Step(String title, List<String> formula, List<Named> tensors, String heatmapBand,
                List<Heatmap.Panel> weights) {
    }

    private Walkthrough() {
    }

    /**
     * @param text a sentence
     * @return its words, as the vocabulary splits them
     */
    static List<String> words(String text) {
        return Vocabulary.tokenize(text, false);
    }

    /**
     * @param backend where to compute
     * @param text a sentence with at least one word
     * @param dim {@code d}, at least 1
     * @param heads {@code H}, dividing {@code d}
     * @param seed {@code S}
     * @return the steps in order
     */
    static List<Step> run(Backend backend, String text, int dim, int heads, long seed) {
        List<String> words = words(text);
        Vocabulary vocabulary = Vocabulary.fromText(text);
        int[] ids = vocabulary.encode(text);
        int length = words.size();
        String random = "random weights, seed " + seed;
        String single = "single-head attention (" + random + ")";
        List<Step> steps = new ArrayList<>();
        try (Scope scope = backend.newScope()) {
            Embedding embedding = Embedding.random(vocabulary.size(), dim, seed);
            Tensor x = embedding.forward(scope, ids, Shape.of(length), DType.F32);
            steps.add(new Step("Vocabulary and embedding", List.of(
                    "words (punctuation dropped): " + String.join(" ", words),
                    "vocabulary (sorted, numbered): " + IntStream.range(0, vocabulary.size())
                            .mapToObj(i -> vocabulary.word(i) + "=" + i).collect(Collectors.joining(" ")),
                    "ids = " + Arrays.toString(ids) + ",  x = E[ids]"),
                    List.of(new Named("E", Shape.of(vocabulary.size(), dim), "embedding table, uniform in [-1, 1)"),
                            new Named("x", x.shape(), "one row per word")), null, List.of()));

            AttentionResult simplified = SimplifiedSelfAttention.forward(scope, x);
            steps.add(new Step("Simplified self-attention (no trainable weights)",
                    List.of("weights = softmax(x·xᵀ),  context = weights·x"),
                    List.of(new Named("x", x.shape(), "input"),
                            new Named("weights", simplified.weights().shape(), "softmax over each row"),
                            new Named("context", simplified.output().shape(), "one context vector per word")),
                    single, List.of(panel("simplified", simplified.weights(), words))));

            SplittableRandom r = new SplittableRandom(seed + 1);
            StateDict qkv = StateDict.empty();
            for (String name : List.of("W_query", "W_key", "W_value")) {
                qkv = qkv.with(name, HostTensor.of(r.doubles((long) dim * dim, 0, 1).toArray(), dim, dim));
            }
            SelfAttention attention = SelfAttention.loadXW(qkv);
            AttentionResult scaled = attention.forward(scope, x);
            steps.add(new Step("Scaled self-attention (trainable W_q, W_k, W_v)",
                    List.of("Q = x·W_q,  K = x·W_k,  V = x·W_v",
                            "weights = softmax(Q·Kᵀ / sqrt(d_k)),  context = weights·V"),
                    List.of(new Named("W_q, W_k, W_v", Shape.of(dim, dim), "uniform in [0, 1)"),
                            new Named("weights", scaled.weights().shape(), "softmax over each row"),
                            new Named("context", scaled.output().shape(), "")),
                    single, List.of(panel("scaled", scaled.weights(), words))));

            AttentionResult causal = attention.withCausal(true).forward(scope, x);
            steps.add(new Step("Causal self-attention (a word sees only itself and earlier words)",
                    List.of("weights = softmax(Q·Kᵀ / sqrt(d_k) + M),  M[i][j] = -inf where j > i"),
                    List.of(new Named("weights", causal.weights().shape(), "zero above the diagonal"),
                            new Named("context", causal.output().shape(), "")),
                    single, List.of(panel("causal", causal.weights(), words))));

            MultiHeadAttention mha = MultiHeadAttention.random(dim, heads, seed + 2);
            AttentionResult multi = mha.forward(scope, x, x, x,
                    MultiHeadOptions.defaults().withAverageAttnWeights(false));
            String headCount = heads + (heads == 1 ? " head" : " heads");
            steps.add(new Step("Multi-head attention (" + headCount + " of " + dim / heads + ")",
                    List.of("head_h = softmax(Q_h·K_hᵀ / sqrt(d/H))·V_h,  Q_h = x·W_q,hᵀ + b_q,h  (likewise K, V)",
                            "out = concat(head_1, …, head_H)·W_oᵀ + b_o"),
                    List.of(new Named("in_proj_weight", mha.stateDict().get("in_proj_weight").shape(),
                                    "W_q, W_k, W_v stacked"),
                            new Named("out_proj.weight", mha.stateDict().get("out_proj.weight").shape(), "W_o"),
                            new Named("weights", multi.weights().shape(), "[H, L, L], one matrix per head"),
                            new Named("out", multi.output().shape(), "")),
                    "multi-head attention (" + headCount + "; " + random + ")", heads(multi.weights(), words, heads)));

            TransformerEncoderLayer block = TransformerEncoderLayer.random(
                    TransformerEncoderLayer.Config.of(dim, heads, 4, Activation.RELU, false), seed + 3);
            Tensor positioned = new SinusoidalPositionalEncoding(length, dim).forward(scope, x);
            Tensor y = block.forward(scope, positioned);
            AttentionResult inner = block.selfAttention().forward(scope, positioned, AttentionMasks.NONE, true,
                    RunMode.INFERENCE);
            steps.add(new Step("Transformer block (post-norm, as in \"Attention is all you need\")",
                    List.of("p = x + PE  (sinusoidal positions),  h = LayerNorm(p + MultiHead(p))",
                            "y = LayerNorm(h + W_2·relu(W_1·h + b_1) + b_2)"),
                    List.of(new Named("p", positioned.shape(), "words with their positions"),
                            new Named("linear1.weight", block.stateDict().get("linear1.weight").shape(), "W_1"),
                            new Named("linear2.weight", block.stateDict().get("linear2.weight").shape(), "W_2"),
                            new Named("weights", inner.weights().shape(), "of the block's attention"),
                            new Named("y", y.shape(), "same shape as x: blocks stack")),
                    "transformer block attention (" + headCount + "; " + random + ")",
                    heads(inner.weights(), words, heads)));
        }
        return steps;
    }

    private static List<Heatmap.Panel> heads(Tensor weights, List<String> words, int heads) {
        double[] all = weights.toDoubleArray();
        List<Heatmap.Panel> panels = new ArrayList<>(heads);
        for (int h = 0; h < heads; h++) {
            panels.add(panel("head " + (h + 1), all, words, h));
        }
        return panels;
    }

    private static Heatmap.Panel panel(String title, Tensor weights, List<String> words) {
        return panel(title, weights.toDoubleArray(), words, 0);
    }

    /** Matrix {@code index} of row-major weights {@code [.., L, L]}, labelled with the words. */
    private static Heatmap.Panel panel(String title, double[] all, List<String> words, int index) {
        int n = words.size();
        double[][] w = new double[n][n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(all, index * n * n + i * n, w[i], 0, n);
        }
        return new Heatmap.Panel(title, words, words, w);
    }
}
