package org.attn4j.api;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a backend can do, so that callers and the TCK can ask instead of catching exceptions: where its data lives,
 * its element types, how many threads one op may use, and a set of named {@link Feature}s. Build one by name:
 * <pre>{@code
 * Capabilities.builder("cuda").dtypes(DType.F32)
 *         .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS).build();
 * }</pre>
 * Adding a feature adds a constant to {@link Feature}; no provider that does not declare it changes.
 */
public final class Capabilities {

    /** Something a backend may or may not do, asked with {@link #has(Feature)}. */
    public enum Feature {
        /**
         * {@code Ops.attention} is the backend's own implementation (a fused kernel or a native path) rather than
         * the composed reference of {@code org.attn4j.api.spi.ReferenceAttention}; the TCK then checks the two agree.
         */
        FUSED_ATTENTION,
        /** Dropout, as an op and as an attention option. */
        DROPOUT,
        /** Attention can return its weights. */
        ATTENTION_WEIGHTS
    }

    private final String device;
    private final Set<DType> dtypes;
    private final Set<Feature> features;
    private final int maxThreads;

    private Capabilities(Builder b) {
        if (b.device == null || b.device.isBlank()) {
            throw new IllegalArgumentException("Capabilities: argument device is empty; name it, for example \"cpu\"");
        }
        if (!b.dtypes.contains(DType.F32)) {
            throw new IllegalArgumentException("Capabilities: argument dtypes " + b.dtypes + " lacks F32");
        }
        if (b.maxThreads < 1) {
            throw new IllegalArgumentException("Capabilities: argument maxThreads is " + b.maxThreads);
        }
        this.device = b.device;
        this.dtypes = Collections.unmodifiableSet(EnumSet.copyOf(b.dtypes));
        this.features = Collections.unmodifiableSet(b.features.isEmpty() ? EnumSet.noneOf(Feature.class)
                : EnumSet.copyOf(b.features));
        this.maxThreads = b.maxThreads;
    }

    /**
     * @param device where the data lives, for example {@code "cpu"} or {@code "cuda"}
     * @return a builder with dtype F32, no features and one thread
     */
    public static Builder builder(String device) {
        return new Builder(device);
    }

    /** @return where the data lives, for example {@code "cpu"} or {@code "cuda"} */
    public String device() {
        return device;
    }

    /** @return the element types its tensors support, in {@link DType} order; always contains {@link DType#F32} */
    public Set<DType> dtypes() {
        return dtypes;
    }

    /** @return the features it declares, in {@link Feature} order */
    public Set<Feature> features() {
        return features;
    }

    /** @return how many threads one op may use, at least 1 */
    public int maxThreads() {
        return maxThreads;
    }

    /**
     * @param feature a feature
     * @return whether the backend declares it
     */
    public boolean has(Feature feature) {
        return features.contains(feature);
    }

    /**
     * @param dtype an element type
     * @return whether tensors of that type are supported
     */
    public boolean supports(DType dtype) {
        return dtypes.contains(dtype);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Capabilities c && device.equals(c.device) && dtypes.equals(c.dtypes)
                && features.equals(c.features) && maxThreads == c.maxThreads;
    }

    @Override
    public int hashCode() {
        return ((device.hashCode() * 31 + dtypes.hashCode()) * 31 + features.hashCode()) * 31 + maxThreads;
    }

    @Override
    public String toString() {
        return "Capabilities[device=" + device + ", dtypes=" + dtypes + ", features=" + features + ", maxThreads="
                + maxThreads + "]";
    }

    /** Collects capabilities by name; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final String device;
        private final Set<DType> dtypes = EnumSet.of(DType.F32);
        private final Set<Feature> features = EnumSet.noneOf(Feature.class);
        private int maxThreads = 1;

        private Builder(String device) {
            this.device = device;
        }

        /**
         * @param values the element types supported; replaces the default {@code F32}, and must contain it
         * @return this builder
         */
        public Builder dtypes(DType... values) {
            dtypes.clear();
            Collections.addAll(dtypes, values);
            return this;
        }

        /**
         * @param values features to declare, added to those declared before
         * @return this builder
         */
        public Builder features(Feature... values) {
            Collections.addAll(features, values);
            return this;
        }

        /**
         * @param value how many threads one op may use, at least 1
         * @return this builder
         */
        public Builder maxThreads(int value) {
            maxThreads = value;
            return this;
        }

        /**
         * @return the capabilities
         * @throws IllegalArgumentException if the device is empty, F32 is missing or maxThreads is below 1
         */
        public Capabilities build() {
            return new Capabilities(this);
        }
    }
}
