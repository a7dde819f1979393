package org.attn4j.bench;

/**
 * One performance goal and what a run reached.
 *
 * @param goal what is wanted, in words
 * @param ratio true if {@code reached} is a ratio, false if it is 1 for done and 0 for not done
 * @param threshold the least value of {@code reached} that meets it
 * @param reached the value the run reached; NaN when it was not measured
 * @param detail which measurements gave the value
 */
public record Target(String goal, boolean ratio, double threshold, double reached, String detail) {

    /** @return whether the run reached the threshold */
    public boolean met() {
        return reached >= threshold;
    }

    /** @return whether the run measured what the goal needs */
    public boolean measured() {
        return !Double.isNaN(reached);
    }
}
