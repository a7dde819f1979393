package org.attn4j.bench;

import java.util.Arrays;

/** Checks shared by the workload records. */
final class Workloads {

    private Workloads() {
    }

    static void requirePositive(String type, int... dims) {
        for (int d : dims) {
            if (d < 1) {
                throw new IllegalArgumentException(type + ": every dimension must be at least 1, got "
                        + Arrays.toString(dims));
            }
        }
    }
}
