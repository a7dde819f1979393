package org.attn4j.bench;

/** The groups of measurements one run makes; each becomes a table of the report. */
public enum Suite {
    /** Attention on every CPU backend and on ONNX Runtime, B=1 H=12 d=64 over several lengths, causal and not. */
    ATTENTION("Attention"),
    /** The 6-token, 16-dimension, one-head attention: the cost of one call. */
    TOY("Toy shape (call overhead)"),
    /** L = 16384 attention, once per backend, in a JVM limited to {@code -Xmx2g}. */
    LONG_SEQUENCE("Long sequence in -Xmx2g"),
    /** Square SGEMM: the machine's matrix-product rate on the same threads. */
    SQUARE_GEMM("SGEMM, square"),
    /** The products of a BERT-base-sized encoder layer at 4096 tokens: projections and the feed-forward pair. */
    BERT_GEMM("SGEMM, BERT-shaped"),
    /** The products attention is made of, per head, without softmax: each library's GEMM on matching sizes. */
    ATTENTION_GEMM("SGEMM, attention-shaped");

    private final String title;

    Suite(String title) {
        this.title = title;
    }

    /** @return the heading of this suite's table */
    public String title() {
        return title;
    }
}
