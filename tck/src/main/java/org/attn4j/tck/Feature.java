package org.attn4j.tck;

import java.util.Optional;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;

/**
 * What a case needs from a backend. A required feature is part of the contract: a backend that lacks it fails.
 * An optional feature is asked of {@link Capabilities}: a backend that declares it lacks one gets the cases that
 * need it reported {@link Status#SKIPPED} with the reason, never passed. {@link #OPTIONAL_REAL_MODEL} is asked of the
 * class path instead, by the case itself.
 */
public enum Feature {
    /** F32 tensors and every op on them. Every backend computes F32. */
    REQUIRED_F32(true, "F32"),
    /** F64 tensors ({@link Capabilities#dtypes()} contains F64). */
    OPTIONAL_F64(false, "F64"),
    /** Dropout as an op and as an attention option ({@link Capabilities.Feature#DROPOUT}). */
    OPTIONAL_DROPOUT(false, "dropout"),
    /** Attention that returns its weights ({@link Capabilities.Feature#ATTENTION_WEIGHTS}). */
    OPTIONAL_RETURNED_WEIGHTS(false, "returned attention weights"),
    /** A fused attention kernel instead of the reference composition ({@link Capabilities.Feature#FUSED_ATTENTION}). */
    OPTIONAL_FUSED_ATTENTION(false, "fused attention"),
    /**
     * A row of {@code linear}, the norms and attention is the same bits whatever rows share the call
     * ({@link Capabilities.Feature#BATCH_INVARIANT}).
     */
    OPTIONAL_BATCH_INVARIANCE(false, "batch invariance"),
    /**
     * A real model's weights, which the kit does not ship: the case runs when its jar is on the class path and is
     * skipped, naming the artifact, when it is not. No backend lacks it.
     */
    OPTIONAL_REAL_MODEL(false, "the real model on the class path");

    private final boolean required;
    private final String description;

    Feature(boolean required, String description) {
        this.required = required;
        this.description = description;
    }

    /** @return true if every backend must have it */
    public boolean required() {
        return required;
    }

    /** @return a short human name */
    public String description() {
        return description;
    }

    /**
     * @param dtype an element type
     * @return the feature that covers it
     */
    public static Feature of(DType dtype) {
        return dtype == DType.F64 ? OPTIONAL_F64 : REQUIRED_F32;
    }

    /**
     * @param capabilities what a backend declares
     * @return empty if the backend has this feature, else why it is skipped
     */
    public Optional<String> lackedBy(Capabilities capabilities) {
        String declared = switch (this) {
            case REQUIRED_F32 -> null;
            case OPTIONAL_F64 -> capabilities.supports(DType.F64) ? null
                    : "Capabilities.dtypes() is " + capabilities.dtypes();
            case OPTIONAL_DROPOUT -> lacks(capabilities, Capabilities.Feature.DROPOUT);
            case OPTIONAL_RETURNED_WEIGHTS -> lacks(capabilities, Capabilities.Feature.ATTENTION_WEIGHTS);
            case OPTIONAL_FUSED_ATTENTION -> capabilities.has(Capabilities.Feature.FUSED_ATTENTION) ? null
                    : "Capabilities.features() lacks FUSED_ATTENTION, so its attention is the reference composition";
            case OPTIONAL_BATCH_INVARIANCE -> lacks(capabilities, Capabilities.Feature.BATCH_INVARIANT);
            case OPTIONAL_REAL_MODEL -> null;
        };
        return declared == null ? Optional.empty()
                : Optional.of("the backend declares no " + description + " support (" + declared + ")");
    }

    private static String lacks(Capabilities capabilities, Capabilities.Feature feature) {
        return capabilities.has(feature) ? null : "Capabilities.features() lacks " + feature;
    }
}
