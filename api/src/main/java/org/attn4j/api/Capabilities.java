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
        ATTENTION_WEIGHTS,
        /**
         * Batch invariance: {@code linear} (over a weight of every storage type, with each epilogue), the norms and
         * attention give each row of a call the same bits whatever other rows share it, so that a decoder stepping
         * several sequences together gives each exactly what it gets alone; the TCK checks it. A backend whose
         * products add in an order that depends on the number of rows (a matrix-vector path for a few rows, a blocked
         * one for many) does not declare it.
         */
        BATCH_INVARIANT
    }

    private final String device;
    private final Set<DType> dtypes;
    private final Set<Feature> features;
    private final Set<WeightType> weightTypes;
    private final int maxThreads;

    private Capabilities(Builder b) {
        if (b.device == null || b.device.isBlank()) {
            throw new IllegalArgumentException("Capabilities: argument device is empty; name it, for example \"cpu\"");
        }
        if (!b.dtypes.contains(DType.F32)) {
            throw new IllegalArgumentException("Capabilities: argument dtypes " + b.dtypes + " lacks F32");
        }
        if (!b.weightTypes.contains(WeightType.F32)) {
            throw new IllegalArgumentException("Capabilities: argument weightTypes " + b.weightTypes + " lacks F32");
        }
        if (b.weightTypes.contains(WeightType.F64) && !b.dtypes.contains(DType.F64)) {
            throw new IllegalArgumentException("Capabilities: argument weightTypes " + b.weightTypes
                    + " holds F64 but dtypes " + b.dtypes + " lacks it");
        }
        if (b.maxThreads < 1) {
            throw new IllegalArgumentException("Capabilities: argument maxThreads is " + b.maxThreads);
        }
        this.device = b.device;
        this.dtypes = Collections.unmodifiableSet(EnumSet.copyOf(b.dtypes));
        this.features = Collections.unmodifiableSet(b.features.isEmpty() ? EnumSet.noneOf(Feature.class)
                : EnumSet.copyOf(b.features));
        Set<WeightType> types = EnumSet.copyOf(b.weightTypes);
        if (b.dtypes.contains(DType.F64)) {
            types.add(WeightType.F64);
        }
        types.add(WeightType.I8);
        this.weightTypes = Collections.unmodifiableSet(types);
        this.maxThreads = b.maxThreads;
    }

    /**
     * @param device where the data lives, for example {@code "cpu"} or {@code "cuda"}
     * @return a builder with dtype F32, weight type F32, no features and one thread
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

    /**
     * @return the {@link WeightType}s it holds as they are, in {@link WeightType} order; always contains
     *     {@link WeightType#F32} and {@link WeightType#I8} (every backend holds an I8 weight as it is, on the host,
     *     through the spi), and {@link WeightType#F64} exactly when {@link #dtypes()} does. A weight of another
     *     type is converted once, when it is created, to a wider form (F32, or a backend's own form that reads back
     *     the same numbers), never per call.
     */
    public Set<WeightType> weightTypes() {
        return weightTypes;
    }

    /**
     * @param type a storage type
     * @return whether weights of that type are held without conversion
     */
    public boolean supports(WeightType type) {
        return weightTypes.contains(type);
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
                && features.equals(c.features) && weightTypes.equals(c.weightTypes) && maxThreads == c.maxThreads;
    }

    @Override
    public int hashCode() {
        return (((device.hashCode() * 31 + dtypes.hashCode()) * 31 + features.hashCode()) * 31
                + weightTypes.hashCode()) * 31 + maxThreads;
    }

    @Override
    public String toString() {
        return "Capabilities[device=" + device + ", dtypes=" + dtypes + ", features=" + features + ", weightTypes="
                + weightTypes + ", maxThreads=" + maxThreads + "]";
    }

    /** Collects capabilities by name; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final String device;
        private final Set<DType> dtypes = EnumSet.of(DType.F32);
        private final Set<Feature> features = EnumSet.noneOf(Feature.class);
        private final Set<WeightType> weightTypes = EnumSet.of(WeightType.F32);
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
         * @param values the weight types held without conversion; replaces the default {@code F32}, and must
         *     contain it; {@code F64} is added with the F64 dtype, and refused without it
         * @return this builder
         */
        public Builder weightTypes(WeightType... values) {
            weightTypes.clear();
            Collections.addAll(weightTypes, values);
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
         * @throws IllegalArgumentException if the device is empty, F32 is missing from the dtypes or weight types,
         *     the weight types hold F64 without the F64 dtype, or maxThreads is below 1
         */
        public Capabilities build() {
            return new Capabilities(this);
        }
    }
}
