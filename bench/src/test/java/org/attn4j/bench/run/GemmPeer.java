package org.attn4j.bench.run;

/**
 * A library's single-precision matrix product, prepared on seeded operands so that a call only multiplies.
 * Each method allocates the operands and returns one call of the benchmark.
 */
interface GemmPeer {

    /**
     * @param n the size
     * @return a call computing one {@code [n, n]·[n, n]} product
     */
    Runnable square(int n);

    /**
     * @param heads {@code H}
     * @param length {@code L}
     * @param headDim {@code d}
     * @return a call computing, for each head, {@code s = q·kᵀ} ({@code [L, d]·[d, L]}) then {@code s·v}
     *     ({@code [L, L]·[L, d]}): attention's products without its softmax
     */
    Runnable attentionShaped(int heads, int length, int headDim);

    /**
     * @param name {@code "ejml"} (one thread), {@code "ejml-mt"} (EJML's concurrent ops on {@link
     *     BenchData#threads()} threads) or {@code "nd4j"} (ND4J's {@code mmul}, on whichever BLAS ND4J loaded)
     * @return that peer
     */
    static GemmPeer named(String name) {
        return switch (name) {
            case "ejml" -> new EjmlGemm(false);
            case "ejml-mt" -> new EjmlGemm(true);
            case "nd4j" -> new Nd4jGemm();
            default -> throw new IllegalArgumentException("GemmPeer: unknown implementation '" + name
                    + "'; expected ejml, ejml-mt or nd4j");
        };
    }
}
