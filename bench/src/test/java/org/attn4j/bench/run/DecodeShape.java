package org.attn4j.bench.run;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The JMH parameters of a decoding step: one new token's query against a cache of {@code cache} positions, in a
 * head shape named {@code h<heads>_d<headDim>} (as many kv heads as query heads) or
 * {@code h<heads>_kv<kvHeads>_d<headDim>} (grouped-query attention).
 */
@State(Scope.Thread)
public abstract class DecodeShape {
    @Param("512")
    public int cache;
    @Param("h12_d64")
    public String shape;

    private int part(char key) {
        for (String p : shape.split("_")) {
            if (p.charAt(0) == key && Character.isDigit(p.charAt(p.length() - 1))) {
                return Integer.parseInt(p.substring(key == 'k' ? 2 : 1));
            }
        }
        return -1;
    }

    /** @return query heads */
    int heads() {
        return part('h');
    }

    /** @return key/value heads */
    int kvHeads() {
        int kv = part('k');
        return kv < 0 ? heads() : kv;
    }

    /** @return the head dimension */
    int headDim() {
        return part('d');
    }
}
