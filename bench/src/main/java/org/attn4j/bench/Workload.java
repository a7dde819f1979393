package org.attn4j.bench;

/** What one benchmark computes: its shape and how many floating-point operations it counts. */
public sealed interface Workload permits AttentionWorkload, GemmWorkload {

    /** @return the floating-point operations one call counts, by the formula its type documents */
    double flops();

    /** @return a short human label of the shape, for example {@code "B=1 H=12 L=2048 d=64 causal"} */
    String label();
}
