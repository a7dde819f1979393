package org.attn4j.models.decoder;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;

/**
 * The rotary embedding of one layer type as Hugging Face transformers computes it ({@code ROPE_INIT_FUNCTIONS} of
 * {@code modeling_rope_utils.py}), from {@code rope_theta}, {@code partial_rotary_factor}, the head size and
 * {@code rope_scaling} (or its newer spelling {@code rope_parameters}), in double precision where transformers
 * computes in float32. With {@code dim = int(head_dim · partial_rotary_factor)} and
 * {@code ω_i = base^(-2i/dim)}:
 * <ul>
 *   <li>{@code default}: {@code ω_i};</li>
 *   <li>{@code linear}: {@code ω_i / factor};</li>
 *   <li>{@code dynamic} (NTK): {@code ω_i} of {@code base · (factor·s/max − (factor − 1))^(dim/(dim−2))} with
 *       {@code s = max(seq_len, max_position_embeddings)}: it depends on the sequence length of each forward;</li>
 *   <li>{@code yarn}: a ramp between {@code ω_i} and {@code ω_i / factor} over the correction range of
 *       {@code beta_fast}, {@code beta_slow} (32, 1) and {@code original_max_position_embeddings}, rounded out
 *       unless {@code truncate} is false; attention scaling {@code attention_factor}, else
 *       {@code mscale(factor, mscale) / mscale(factor, mscale_all_dim)} when both are given, else
 *       {@code 0.1·ln(factor) + 1} ({@code factor} defaults to {@code max / original});</li>
 *   <li>{@code longrope} ({@code su}): {@code ω_i / long_factor[i]} when the sequence passes
 *       {@code original_max_position_embeddings}, else {@code ω_i / short_factor[i]}; attention scaling
 *       {@code attention_factor}, else {@code sqrt(1 + ln(factor) / ln(original))} for
 *       {@code factor = max / original > 1} (or the given {@code factor});</li>
 *   <li>{@code llama3}: {@code ω_i} for wavelengths below {@code original / high_freq_factor}, {@code ω_i / factor}
 *       above {@code original / low_freq_factor}, a smooth interpolation between.</li>
 * </ul>
 * A top-level {@code original_max_position_embeddings} (Phi-3's) wins over the one inside the parameters, as in
 * transformers' {@code standardize_rope_params}.
 */
final class RopeScaling {
    private static final List<String> KINDS = List.of("default", "linear", "dynamic", "yarn", "longrope", "llama3");
    /** The layer types a {@code rope_parameters} object may be keyed by. */
    static final Set<String> LAYER_TYPES = Set.of("full_attention", "sliding_attention");

    private final String kind;
    private final RopeLayout layout;
    private final double base;
    private final int dim;
    private final int maxPositions;
    private final double factor;
    private final int original;
    private final RotaryEmbedding fixed;
    private final RotaryEmbedding longer;

    private RopeScaling(String kind, RopeLayout layout, double base, int dim, int maxPositions, double factor,
                        int original, RotaryEmbedding fixed, RotaryEmbedding longer) {
        this.kind = kind;
        this.layout = layout;
        this.base = base;
        this.dim = dim;
        this.maxPositions = maxPositions;
        this.factor = factor;
        this.original = original;
        this.fixed = fixed;
        this.longer = longer;
    }

    /** @return which features form a pair */
    RopeLayout layout() {
        return layout;
    }

    /** @return {@code rope_theta} */
    double base() {
        return base;
    }

    /** @return the rotated features of a head, {@code 2·pairs} */
    int dim() {
        return dim;
    }

    /** Where a family's rotary settings come from, besides the parameters object. */
    record Defaults(double theta, double partialRotaryFactor, int headDim, int maxPositions, Integer original,
                    RopeLayout layout, boolean partialAllowed) {
    }

    /**
     * Reads {@code rope_scaling} or {@code rope_parameters} (possibly one object per layer type) and the
     * top-level keys the family passed in {@code defaults}.
     *
     * @param c the config
     * @param defaults the family's top-level values
     * @param layerTypes the type of each layer ({@code full_attention} or {@code sliding_attention})
     * @return the rotary embedding of each layer; null entries only after a problem was noted in {@code c}
     */
    static RopeScaling[] read(ConfigJson c, Defaults defaults, String[] layerTypes) {
        ConfigJson scaling = c.section("rope_scaling");
        ConfigJson parameters = c.section("rope_parameters");
        if (scaling != null && parameters != null) {
            c.problem("rope_parameters", c.raw("rope_parameters"), "is given beside rope_scaling; give one of them");
            parameters.ignore(parameters.keys().toArray(new String[0]));
            parameters = null;
        }
        ConfigJson given = scaling != null ? scaling : parameters;
        RopeScaling[] out = new RopeScaling[layerTypes.length];
        if (given != null && !given.keys().isEmpty() && LAYER_TYPES.containsAll(given.keys())) {
            for (String type : given.keys()) {
                ConfigJson one = given.section(type);
                RopeScaling r = one == null ? null : of(c, one, defaults);
                for (int i = 0; i < out.length; i++) {
                    if (layerTypes[i].equals(type)) {
                        out[i] = r;
                    }
                }
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] == null) {
                    c.problem(given == scaling ? "rope_scaling" : "rope_parameters", "{...}",
                            "has no parameters for layer " + i + " of type " + layerTypes[i]);
                    return out;
                }
            }
            given.unknownKeys();
            return out;
        }
        RopeScaling r = of(c, given, defaults);
        Arrays.fill(out, r);
        return out;
    }

    private static RopeScaling of(ConfigJson top, ConfigJson p, Defaults d) {
        String kind = "default";
        double theta = d.theta();
        double partial = d.partialRotaryFactor();
        if (p != null) {
            String type = p.string("rope_type", null);
            String legacy = p.string("type", null);
            if (type != null && legacy != null && !type.equals(legacy)) {
                p.problem("type", legacy, "disagrees with rope_type \"" + type + "\"");
            }
            kind = type != null ? type : legacy != null ? legacy : "default";
            if (kind.equals("su")) {
                kind = "longrope";
            }
            theta = p.number("rope_theta", theta);
            if (d.partialAllowed()) {
                partial = p.number("partial_rotary_factor", partial);
            } else {
                p.neutral("partial_rotary_factor", 1.0);
            }
        }
        ConfigJson at = p != null ? p : top;
        if (!(theta > 0)) {
            at.problem("rope_theta", theta, "must be positive");
            theta = 10000.0;
        }
        int dim = (int) (d.headDim() * partial);
        if (!(partial > 0 && partial <= 1) || dim < 2 || dim % 2 != 0) {
            at.problem("partial_rotary_factor", partial, "gives " + dim + " rotated features of a head of "
                    + d.headDim() + "; they must be even and at least 2");
            dim = Math.max(2, d.headDim() - d.headDim() % 2);
        }
        if (!KINDS.contains(kind)) {
            p.problem("rope_type", kind, "is not supported; supported are " + KINDS + " (and su for longrope)");
            kind = "default";
        }
        int original = d.maxPositions();
        double factor = 1.0;
        RotaryEmbedding fixed;
        RotaryEmbedding longer = null;
        switch (kind) {
            case "linear" -> {
                factor = positive(p, "factor", null);
                fixed = scaled(d.layout(), theta, dim, 1.0 / factor, 1.0);
            }
            case "dynamic" -> {
                factor = positive(p, "factor", null);
                p.ignore("original_max_position_embeddings");
                fixed = null;
            }
            case "yarn" -> {
                original = original(p, d);
                factor = positive(p, "factor", (double) d.maxPositions() / original);
                fixed = yarn(p, d.layout(), theta, dim, factor, original);
            }
            case "longrope" -> {
                original = original(p, d);
                double[] shortFactor = factors(p, "short_factor", dim);
                double[] longFactor = factors(p, "long_factor", dim);
                Double given = p.optionalNumber("factor");
                factor = given != null ? given : (double) d.maxPositions() / original;
                Double attention = p.optionalNumber("attention_factor");
                double scaling = attention != null ? attention
                        : factor <= 1.0 ? 1.0 : Math.sqrt(1 + Math.log(factor) / Math.log(original));
                fixed = divided(d.layout(), theta, dim, shortFactor, scaling);
                longer = divided(d.layout(), theta, dim, longFactor, scaling);
            }
            case "llama3" -> {
                original = original(p, d);
                factor = positive(p, "factor", null);
                double low = positive(p, "low_freq_factor", null);
                double high = positive(p, "high_freq_factor", null);
                fixed = llama3(d.layout(), theta, dim, factor, low, high, original);
            }
            default -> fixed = RotaryEmbedding.of(d.layout(), theta, dim);
        }
        if (p != null) {
            p.unknownKeys();
        }
        return new RopeScaling(kind, d.layout(), theta, dim, d.maxPositions(), factor, original, fixed, longer);
    }

    /**
     * @param layout which features form a pair
     * @param theta the base, positive
     * @param dim the rotated features of a head, even
     * @param maxPositions {@code max_position_embeddings}
     * @return the {@code default} embedding of base {@code theta}, unscaled (Gemma 3's local layers)
     */
    static RopeScaling unscaled(RopeLayout layout, double theta, int dim, int maxPositions) {
        return new RopeScaling("default", layout, theta, dim, maxPositions, 1.0, maxPositions,
                RotaryEmbedding.of(layout, theta, dim), null);
    }

    private static int original(ConfigJson p, Defaults d) {
        if (d.original() != null) {
            p.ignore("original_max_position_embeddings");
            return d.original();
        }
        int original = p.integer("original_max_position_embeddings", d.maxPositions());
        if (original < 1) {
            p.problem("original_max_position_embeddings", original, "must be at least 1");
            return d.maxPositions();
        }
        return original;
    }

    private static double positive(ConfigJson p, String key, Double fallback) {
        Double v = p.optionalNumber(key);
        if (v == null && fallback == null) {
            p.problem(key, null, "is required by rope_type " + p.raw("rope_type"));
            return 1.0;
        }
        double value = v == null ? fallback : v;
        if (!(value > 0)) {
            p.problem(key, value, "must be positive");
            return 1.0;
        }
        return value;
    }

    private static double[] factors(ConfigJson p, String key, int dim) {
        double[] v = p.numbers(key);
        if (v == null || v.length != dim / 2) {
            p.problem(key, v == null ? null : v.length + " numbers", "must hold " + dim / 2
                    + " numbers, one per rotated pair");
            double[] ones = new double[dim / 2];
            Arrays.fill(ones, 1.0);
            return ones;
        }
        return v;
    }

    /** {@code 1 / base^(2i/dim)} as transformers forms it. */
    private static double[] inverse(double base, int dim) {
        double[] f = new double[dim / 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = 1.0 / Math.pow(base, 2.0 * i / dim);
        }
        return f;
    }

    private static RotaryEmbedding scaled(RopeLayout layout, double base, int dim, double times, double scaling) {
        double[] f = inverse(base, dim);
        for (int i = 0; i < f.length; i++) {
            f[i] *= times;
        }
        return RotaryEmbedding.ofInverseFrequencies(layout, f).withAttentionScaling(scaling);
    }

    private static RotaryEmbedding divided(RopeLayout layout, double base, int dim, double[] by, double scaling) {
        double[] f = new double[dim / 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = 1.0 / (by[i] * Math.pow(base, 2.0 * i / dim));
        }
        return RotaryEmbedding.ofInverseFrequencies(layout, f).withAttentionScaling(scaling);
    }

    private static RotaryEmbedding yarn(ConfigJson p, RopeLayout layout, double base, int dim, double factor,
                                        int original) {
        Double attention = p.optionalNumber("attention_factor");
        Double mscale = p.optionalNumber("mscale");
        Double mscaleAllDim = p.optionalNumber("mscale_all_dim");
        Double betaFast = p.optionalNumber("beta_fast");
        Double betaSlow = p.optionalNumber("beta_slow");
        boolean truncate = p.bool("truncate", true);
        double scaling;
        if (attention != null) {
            scaling = attention;
        } else if (mscale != null && mscale != 0 && mscaleAllDim != null && mscaleAllDim != 0) {
            scaling = mscale(factor, mscale) / mscale(factor, mscaleAllDim);
        } else {
            scaling = mscale(factor, 1.0);
        }
        double fast = betaFast == null || betaFast == 0 ? 32 : betaFast;
        double slow = betaSlow == null || betaSlow == 0 ? 1 : betaSlow;
        double low = correctionDim(fast, dim, base, original);
        double high = correctionDim(slow, dim, base, original);
        if (truncate) {
            low = Math.floor(low);
            high = Math.ceil(high);
        }
        low = Math.max(low, 0);
        high = Math.min(high, dim - 1);
        if (low == high) {
            high += 0.001;
        }
        double[] f = new double[dim / 2];
        for (int i = 0; i < f.length; i++) {
            double ramp = Math.min(1.0, Math.max(0.0, (i - low) / (high - low)));
            double extrapolation = 1 - ramp;
            double position = Math.pow(base, 2.0 * i / dim);
            f[i] = 1.0 / (factor * position) * (1 - extrapolation) + 1.0 / position * extrapolation;
        }
        if (!(scaling > 0)) {
            p.problem("attention_factor", scaling, "must be positive");
            scaling = 1.0;
        }
        return RotaryEmbedding.ofInverseFrequencies(layout, f).withAttentionScaling(scaling);
    }

    private static double mscale(double scale, double m) {
        return scale <= 1 ? 1.0 : 0.1 * m * Math.log(scale) + 1.0;
    }

    private static double correctionDim(double rotations, int dim, double base, int original) {
        return dim * Math.log(original / (rotations * 2 * Math.PI)) / (2 * Math.log(base));
    }

    private static RotaryEmbedding llama3(RopeLayout layout, double base, int dim, double factor, double low,
                                          double high, int original) {
        double lowWavelength = original / low;
        double highWavelength = original / high;
        double[] f = inverse(base, dim);
        for (int i = 0; i < f.length; i++) {
            double wavelength = 2 * Math.PI / f[i];
            double scaled = wavelength > lowWavelength ? f[i] / factor : f[i];
            if (!(wavelength < highWavelength) && !(wavelength > lowWavelength)) {
                double smooth = (original / wavelength - low) / (high - low);
                scaled = (1 - smooth) * scaled / factor + smooth * scaled;
            }
            f[i] = scaled;
        }
        return RotaryEmbedding.ofInverseFrequencies(layout, f);
    }

    /** @return whether the embedding depends on the sequence length of a forward (dynamic, longrope) */
    boolean changesWithLength() {
        return fixed == null || longer != null;
    }

    /** @return the rope type, transformers' name ({@code su} read as {@code longrope}) */
    String kind() {
        return kind;
    }

    /**
     * @param sequenceLength one past the largest position of a forward (transformers' {@code max(position_ids) + 1})
     * @return the embedding that forward uses
     */
    RotaryEmbedding at(int sequenceLength) {
        if (longer != null) {
            return sequenceLength > original ? longer : fixed;
        }
        if (fixed != null) {
            return fixed;
        }
        double s = Math.max(sequenceLength, maxPositions);
        double scaledBase = base * Math.pow(factor * s / maxPositions - (factor - 1), (double) dim / (dim - 2));
        return RotaryEmbedding.ofInverseFrequencies(layout, inverse(scaledBase, dim));
    }

    /** @return how many features of a head are rotated */
    int dimension() {
        return dim;
    }

    /** @return the position past which longrope switches to its long factors; 0 for other kinds */
    int longThreshold() {
        return longer != null ? original : 0;
    }
}
