package org.attn4j.tck;

/** The kinds of checks the kit makes. */
public enum Kind {
    /**
     * How the backend is wired: its provider is found by {@code ServiceLoader} from its own jar, its name,
     * priority and availability are sane, and its {@code Capabilities} say what it does; also that the api on the
     * class path is the one the kit was built for.
     */
    WIRING("wiring"),
    /** The backend against PyTorch float64 numbers committed with the kit. */
    GOLDEN("golden"),
    /**
     * The backend against another backend, its own F64, the kit's host reference or the reference composition, on
     * random inputs.
     */
    DIFFERENTIAL("differential"),
    /** Properties every correct attention satisfies, checked on the backend alone. */
    LAW("law"),
    /** The exception type (and the op named in its message) for a caller's mistake. */
    BAD_INPUT("bad-input"),
    /**
     * Whole models of the {@code models} module on the backend against committed reference outputs: the real
     * all-MiniLM-L6-v2 (when its jar is on the class path) and random-weight decoders.
     */
    MODEL("model");

    private final String label;

    Kind(String label) {
        this.label = label;
    }

    /** @return the lower-case label used in reports and test names */
    public String label() {
        return label;
    }
}
