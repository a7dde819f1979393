package org.attn4j.models.tutorial;

/**
 * Whether a forward pass trains (dropout on, with a seed) or infers (dropout off), as PyTorch's
 * {@code module.train()} / {@code module.eval()} but passed explicitly so that a layer holds no mutable state.
 * Each dropout site of a layer draws its mask from {@link #seedFor(int)}, so the same mode and input give the
 * same output on every backend.
 *
 * @param training whether dropout is applied
 * @param seed the seed the dropout masks derive from (ignored in inference)
 */
public record RunMode(boolean training, long seed) {
    /** Inference: no dropout anywhere. */
    public static final RunMode INFERENCE = new RunMode(false, 0L);

    /**
     * @param seed the seed of the dropout masks
     * @return a training mode
     */
    public static RunMode training(long seed) {
        return new RunMode(true, seed);
    }

    /**
     * @param p a layer's dropout probability
     * @return whether dropout with {@code p} is applied in this mode
     */
    public boolean drops(double p) {
        return training && p > 0;
    }

    /**
     * The seed of dropout site {@code site}: site 0 is {@link #seed()} itself, so a layer with one dropout site
     * uses the seed exactly as given; later sites are decorrelated by the splitmix64 finaliser.
     *
     * @param site a layer-local index of the dropout site, at least 0
     * @return the seed for that site
     */
    public long seedFor(int site) {
        return site == 0 ? seed : mix(seed + site * 0x9E3779B97F4A7C15L);
    }

    /**
     * @param index the index of a sub-layer, for example a block of an encoder stack
     * @return the mode for that sub-layer: the same training flag and a seed from a stream disjoint from
     *     {@link #seedFor(int)}'s, so that no two dropout sites of a stack share a mask
     */
    public RunMode child(int index) {
        return new RunMode(training, mix(seed + (index + 1L) * 0xD1B54A32D192ED03L));
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
