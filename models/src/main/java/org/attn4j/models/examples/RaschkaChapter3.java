package org.attn4j.models.examples;

import java.io.PrintStream;
import java.util.List;
import java.util.SplittableRandom;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.PerHeadMultiHeadAttention;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.SelfAttention;
import org.attn4j.models.tutorial.SimplifiedSelfAttention;

/**
 * The walk-through of Raschka's <i>Build a Large Language Model (From Scratch)</i>, chapter 3, on its six-token
 * sentence "Your journey starts with one step" with 3-d embeddings: simplified attention for the query
 * "journey" (context {@code [0.4419, 0.6515, 0.5683]}), then for all tokens, then trainable weights, causal
 * attention with dropout, and multi-head attention. The book's trainable weights come from PyTorch's random
 * generator; here they come from a seeded {@link SplittableRandom} in {@code [0, 1)}, so those later numbers differ
 * from the book's while every formula is the same.
 */
public final class RaschkaChapter3 {
    /** The tokens of the sentence. */
    public static final String[] TOKENS = {"Your", "journey", "starts", "with", "one", "step"};
    /** Their 3-d embeddings, as printed in the book. */
    public static final double[][] INPUTS = {
        {0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
        {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}};

    private RaschkaChapter3() {
    }

    /**
     * @param scope where the tensor is created
     * @param dtype its element type
     * @return the inputs, {@code [6, 3]}
     */
    public static Tensor inputs(Scope scope, DType dtype) {
        double[] flat = new double[18];
        for (int i = 0; i < 6; i++) {
            System.arraycopy(INPUTS[i], 0, flat, 3 * i, 3);
        }
        return scope.tensor(flat, Shape.of(6, 3), dtype);
    }

    /**
     * Section 3.3.1: the context vector of the query "journey" under attention without weights.
     *
     * @param scope receives the result
     * @param dtype the element type to compute in
     * @return {@code z(2)}, {@code [3]}
     */
    public static Tensor journeyContext(Scope scope, DType dtype) {
        return SimplifiedSelfAttention.forwardQuery(scope, inputs(scope, dtype), 1).output();
    }

    /**
     * Prints the walk-through.
     *
     * @param backend where to compute
     * @param out where to print
     */
    public static void run(Backend backend, PrintStream out) {
        try (Scope s = backend.newScope()) {
            Tensor x = inputs(s, DType.F32);
            out.println("== Raschka, chapter 3, on \"" + String.join(" ", TOKENS) + "\" (backend " + backend.name()
                    + ")");
            out.println("inputs [6, 3]:\n" + Printer.format(x, 2));

            out.println("\n-- 3.3.1 simplified self-attention for the query x(2) = \"journey\"");
            AttentionResult journey = SimplifiedSelfAttention.forwardQuery(s, x, 1);
            out.println("attention weights alpha_2: " + Printer.format(journey.weights(), 4));
            out.println("context vector z(2):       " + Printer.format(journey.output(), 4));

            out.println("\n-- 3.3.2 all context vectors, softmax(X·Xᵀ)·X");
            AttentionResult all = SimplifiedSelfAttention.forward(s, x);
            out.println("attention weights [6, 6]:\n" + Printer.format(all.weights(), 4));
            out.println("context vectors [6, 3]:\n" + Printer.format(all.output(), 4));

            out.println("\n-- 3.4 self-attention with trainable weights, d_in = 3, d_out = 2");
            SelfAttention sa = SelfAttention.loadXW(uniform(new SplittableRandom(123), "W_query", "W_key",
                    "W_value", 3, 2));
            AttentionResult z2 = sa.forwardQuery(s, x, 1);
            out.println("query q(2) = x(2)·W_q:     " + Printer.format(sa.queries(s, journey(s, x)), 4));
            out.println("attention weights alpha_2: " + Printer.format(z2.weights(), 4));
            out.println("context vector z(2):       " + Printer.format(z2.output(), 4));
            out.println("all context vectors [6, 2]:\n" + Printer.format(sa.forward(s, x).output(), 4));

            out.println("\n-- 3.5 causal attention, then dropout 0.5 on the weights (training, seed 123)");
            SelfAttention causal = sa.withCausal(true).withDropout(0.5);
            out.println("causal weights [6, 6]:\n" + Printer.format(causal.forward(s, x).weights(), 4));
            Tensor batch = s.ops().concat(List.of(s.ops().reshape(x, 1, 6, 3),
                    s.ops().reshape(x, 1, 6, 3)), 0);
            AttentionResult dropped = causal.forward(s, batch, batch, RunMode.training(123));
            out.println("batch of two, weights after dropout (item 0):\n"
                    + Printer.format(s.ops().split(dropped.weights(), new int[] {1, 1}, 0).get(0), 4));
            out.println("context vectors [2, 6, 2], item 0:\n"
                    + Printer.format(s.ops().split(dropped.output(), new int[] {1, 1}, 0).get(0), 4));

            out.println("\n-- 3.6 multi-head attention, 2 heads of d_out = 2, stacked and projected by W_o");
            SplittableRandom r = new SplittableRandom(7);
            StateDict heads = StateDict.empty();
            for (int h = 0; h < 2; h++) {
                heads = heads.plus(uniform(r, "W_query.weight", "W_key.weight", "W_value.weight", 2, 3)
                        .prefixed("heads." + h + "."));
            }
            heads = heads.with("W_o.weight", HostTensor.of(r.doubles(8, -0.5, 0.5).toArray(), 2, 4))
                    .with("W_o.bias", HostTensor.of(new double[2], 2));
            AttentionResult mh = PerHeadMultiHeadAttention.load(heads, 2, true).forward(s, batch);
            out.println("per-head causal weights of item 0 [2, 6, 6]:\n"
                    + Printer.format(s.ops().split(mh.weights(), new int[] {1, 1}, 0).get(0), 4));
            out.println("output [2, 6, 2], item 0:\n"
                    + Printer.format(s.ops().split(mh.output(), new int[] {1, 1}, 0).get(0), 4));
            MultiHeadAttention fused = MultiHeadAttention.random(3, 1, 11);
            out.println("nn.MultiheadAttention(3, 1) layout, output [6, 3]:\n"
                    + Printer.format(fused.forward(s, x).output(), 4));
        }
    }

    private static Tensor journey(Scope s, Tensor x) {
        return s.ops().split(x, new int[] {1, 1, 4}, 0).get(1);
    }

    private static StateDict uniform(SplittableRandom r, String q, String k, String v, int rows, int cols) {
        return StateDict.of(q, HostTensor.of(r.doubles(rows * cols).toArray(), rows, cols))
                .with(k, HostTensor.of(r.doubles(rows * cols).toArray(), rows, cols))
                .with(v, HostTensor.of(r.doubles(rows * cols).toArray(), rows, cols));
    }

    /**
     * Runs the walk-through on the backend {@link Backends#load()} selects.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        run(Backends.load(), System.out);
    }
}
