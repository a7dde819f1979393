package org.attn4j.api;

/**
 * Whether a backend can run on this machine, and why.
 *
 * @param available true if {@link BackendProvider#create()} may be called
 * @param reason a human sentence: what was found, or what is missing and how to fix it
 */
public record Availability(boolean available, String reason) {

    /** Rejects a missing reason. */
    public Availability {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("Availability: argument reason is empty; say why");
        }
    }

    /**
     * @param note what was found, for example {@code "pure Java, 8 threads"}
     * @return an available result
     */
    public static Availability available(String note) {
        return new Availability(true, note);
    }

    /**
     * @param reason what is missing and how to fix it
     * @return an unavailable result
     */
    public static Availability unavailable(String reason) {
        return new Availability(false, reason);
    }
}
