package org.attn4j.tck;

/** The outcome of one conformance case. */
public enum Status {
    /** The backend ran the case and every number was within tolerance (or the right exception was thrown). */
    PASSED,
    /**
     * The case did not run: the backend is unavailable here, or it declares that it lacks an optional feature the
     * case needs. The reason is always reported; a skipped case never counts as passed.
     */
    SKIPPED,
    /** The backend ran the case and got it wrong, or threw where it should not. */
    FAILED
}
