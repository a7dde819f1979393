package org.attn4j.bench.run;

/**
 * A library's single-precision matrix product, prepared on seeded operands so that a call only multiplies.
 * Each method allocates the operands and returns one call of the benchmark.
 */
interface GemmPeer {

    /**
     * @param m rows of the left operand and of the result
     * @param n columns of the right operand and of the result
     * @param k the inner dimension
     * @return a call computing one {@code [m, k]·[k, n]} product
     */
    Runnable product(int m, int n, int k);

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
     *     BenchData#threads()} threads), {@code "ejml-backend"} (the EJML backend's {@code Ops.matmul}, whose F32
     *     products run on its SIMD SGEMM in a JVM with the Vector API) or {@code "nd4j"} (ND4J's {@code mmul}, on
     *     whichever BLAS ND4J loaded)
     * @return that peer
     */
    static GemmPeer named(String name) {
        return switch (name) {
            case "ejml" -> new EjmlGemm(false);
            case "ejml-mt" -> new EjmlGemm(true);
            case "ejml-backend" -> new BackendGemm();
            case "nd4j" -> new Nd4jGemm();
            default -> throw new IllegalArgumentException("GemmPeer: unknown implementation '" + name
                    + "'; expected ejml, ejml-mt, ejml-backend or nd4j");
        };
    }
}
