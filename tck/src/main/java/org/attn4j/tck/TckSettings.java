package org.attn4j.tck;

import java.util.EnumSet;
import java.util.Set;

/**
 * How the kit runs; pass your own to {@link TckOptions#withSettings} or return it from
 * {@link BackendTck#settings()} to change it.
 *
 * @param seed the seed of every random input of the laws and differential checks
 * @param kinds which kinds of checks to plan
 */
public record TckSettings(long seed, Set<Kind> kinds) {

    /** Copies the kinds. */
    public TckSettings {
        kinds = Set.copyOf(kinds);
    }

    /** @return seed 20240607 and every kind of check */
    public static TckSettings defaults() {
        return new TckSettings(20240607L, EnumSet.allOf(Kind.class));
    }
}
