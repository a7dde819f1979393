package org.attn4j.tck;

/** The four kinds of checks the kit makes. */
public enum Kind {
    /** The backend against PyTorch float64 numbers committed with the kit. */
    GOLDEN("golden"),
    /** The backend against another backend, another dtype, or the reference composition, on random inputs. */
    DIFFERENTIAL("differential"),
    /** Properties every correct attention satisfies, checked on the backend alone. */
    LAW("law"),
    /** The exception type (and the op named in its message) for a caller's mistake. */
    BAD_INPUT("bad-input");

    private final String label;

    Kind(String label) {
        this.label = label;
    }

    /** @return the lower-case label used in reports and test names */
    public String label() {
        return label;
    }
}
