package org.attn4j.models.decoder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.attn4j.api.Activation;
import org.attn4j.api.RopeLayout;

/**
 * The hyper-parameters of a decoder, read strictly from a Hugging Face {@code config.json} by its family's reader
 * ({@link Type}): every key that changes the numbers is honoured, with transformers' default where it is absent;
 * keys that change nothing are named and ignored; any other key or an unsupported value is refused in one
 * {@link IllegalArgumentException} that names the key, the value and the file. Which keys each family honours and
 * ignores is written in its reader's javadoc ({@link Gpt2}, {@link Llama}, {@link Mistral}, {@link Qwen2},
 * {@link Qwen3}, {@link Gemma}, {@link Gemma2}, {@link Gemma3}, {@link Phi3}).
 *
 * <pre>{@code
 * DecoderConfig config = DecoderConfig.read(Path.of("Llama-3.2-1B"));   // rope_scaling llama3, tied embeddings
 * System.out.println(config.type() + " " + config.layers() + " layers of " + config.heads() + " heads");
 * }</pre>
 */
public final class DecoderConfig {
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

    /** The families this package loads, by {@code model_type}. */
    public enum Type {
        /** GPT-2: learned positions, LayerNorm, GELU MLP, Conv1D weights, LM head tied to {@code wte}. */
        GPT2("gpt2", Gpt2::read, Gpt2::bind),
        /** Llama 2 and 3.x (and SmolLM, TinyLlama): RoPE, RMSNorm, SwiGLU MLP, grouped-query attention. */
        LLAMA("llama", Llama::read, Llama::bind),
        /** Mistral: Llama's blocks with a sliding window. */
        MISTRAL("mistral", Mistral::read, Llama::bind),
        /** Qwen2 and Qwen2.5: Llama's blocks with q/k/v biases and optional sliding windows on upper layers. */
        QWEN2("qwen2", Qwen2::read, Llama::bind),
        /** Qwen3: Llama's blocks with an RMSNorm per head on queries and keys. */
        QWEN3("qwen3", Qwen3::read, Llama::bind),
        /** Gemma: Llama's blocks with scaled embeddings, {@code 1 + w} norms and a tanh-GELU gate. */
        GEMMA("gemma", Gemma::read, Llama::bind),
        /** Gemma 2: Gemma with soft-capping, alternating local and global layers, and norms around both halves. */
        GEMMA2("gemma2", Gemma2::read, Gemma2::bind),
        /**
         * Gemma 3 ({@code gemma3_text}): Gemma 2's blocks with per-head q/k norms, five local layers to each global
         * one, a rotary base per kind of layer, and no soft-capping.
         */
        GEMMA3("gemma3_text", Gemma3::read, Gemma3::bind),
        /**
         * Gemma 3's image-text checkpoints ({@code gemma3}): the decoder of {@code text_config} run on text alone,
         * the vision tower not loaded.
         */
        GEMMA3_IMAGE_TEXT("gemma3", Gemma3::readImageText, Gemma3::bindTextOfImageText),
        /** Phi-3 (and Phi-3.5, Phi-4-mini): Llama's blocks with fused qkv and gate-up projections, LongRoPE. */
        PHI3("phi3", Phi3::read, Llama::bind);

        private final String modelType;
        private final Function<ConfigJson, DecoderConfig> reader;
        private final BiFunction<DecoderConfig, Weights, DecoderStack> binder;

        Type(String modelType, Function<ConfigJson, DecoderConfig> reader,
             BiFunction<DecoderConfig, Weights, DecoderStack> binder) {
            this.modelType = modelType;
            this.reader = reader;
            this.binder = binder;
        }

        /** @return transformers' {@code model_type} */
        public String modelType() {
            return modelType;
        }

        DecoderStack bind(DecoderConfig config, Weights weights) {
            return binder.apply(config, weights);
        }
    }

    private final Type type;
    private final String source;
    private final int vocabSize;
    private final int hidden;
    private final int layers;
    private final int heads;
    private final int kvHeads;
    private final int headDim;
    private final int intermediate;
    private final double eps;
    private final int maxPositions;
    private final boolean tiedEmbeddings;
    private final Activation activation;
    private final boolean qkvBias;
    private final boolean outputBias;
    private final boolean mlpBias;
    private final double attentionScale;
    private final boolean scaleByInverseLayer;
    private final double attentionSoftcap;
    private final double finalSoftcap;
    private final int[] windows;
    private final RopeScaling[] rope;
    private final int recomputeBeyond;

    private DecoderConfig(Builder b) {
        this.type = b.type;
        this.source = b.source;
        this.vocabSize = b.vocabSize;
        this.hidden = b.hidden;
        this.layers = b.layers;
        this.heads = b.heads;
        this.kvHeads = b.kvHeads;
        this.headDim = b.headDim;
        this.intermediate = b.intermediate;
        this.eps = b.eps;
        this.maxPositions = b.maxPositions;
        this.tiedEmbeddings = b.tiedEmbeddings;
        this.activation = b.activation;
        this.qkvBias = b.qkvBias;
        this.outputBias = b.outputBias;
        this.mlpBias = b.mlpBias;
        this.attentionScale = b.attentionScale;
        this.scaleByInverseLayer = b.scaleByInverseLayer;
        this.attentionSoftcap = b.attentionSoftcap;
        this.finalSoftcap = b.finalSoftcap;
        this.windows = b.windows == null ? new int[b.layers] : b.windows.clone();
        this.rope = b.rope == null ? null : b.rope.clone();
        this.recomputeBeyond = b.recomputeBeyond;
        String where = "decoder: " + source + ": ";
        if (vocabSize < 1 || hidden < 1 || layers < 1 || heads < 1 || kvHeads < 1 || headDim < 1 || intermediate < 1
                || maxPositions < 1) {
            throw new IllegalArgumentException(where + "sizes must be positive: vocab " + vocabSize + ", hidden "
                    + hidden + ", layers " + layers + ", heads " + heads + ", kv heads " + kvHeads + ", head size "
                    + headDim + ", intermediate " + intermediate + ", positions " + maxPositions);
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException(where + "num_attention_heads " + heads
                    + " must be a multiple of num_key_value_heads " + kvHeads);
        }
        if (!(eps >= 0)) {
            throw new IllegalArgumentException(where + "the norm epsilon " + eps + " must be at least 0");
        }
        if (windows.length != layers || Arrays.stream(windows).anyMatch(w -> w < 0)) {
            throw new IllegalArgumentException(where + "windows " + Arrays.toString(windows) + " must be one per"
                    + " layer, each at least 0");
        }
    }

    /**
     * Reads {@code folder/config.json}.
     *
     * @param folder a Hugging Face model folder
     * @return its config
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not valid JSON, not a family attn4j loads, or carries a key or a
     *     value attn4j would not honour (all of them named in one message)
     */
    public static DecoderConfig read(Path folder) throws IOException {
        Path file = folder.resolve("config.json");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("decoder: " + folder + " has no config.json");
        }
        return parse(Files.readAllBytes(file), file.toString());
    }

    /**
     * Parses the bytes of a {@code config.json} already read.
     *
     * @param configJson the file's bytes
     * @param where where they came from, for messages
     * @return the config
     * @throws IllegalArgumentException as {@link #read(Path)}
     */
    public static DecoderConfig parse(byte[] configJson, String where) {
        Object parsed;
        try {
            parsed = JSON.readValue(configJson, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("decoder: " + where + " is not valid JSON (or names a key twice): "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("decoder: " + where + " could not be parsed from memory", e);
        }
        if (!(parsed instanceof Map<?, ?> json)) {
            throw new IllegalArgumentException("decoder: " + where + " is not a JSON object");
        }
        return of(json, where);
    }

    /**
     * @param json a parsed {@code config.json}
     * @param where where it came from, for messages
     * @return the config
     * @throws IllegalArgumentException if it is not a family attn4j loads or carries a key or a value attn4j would
     *     not honour (all of them named in one message)
     */
    public static DecoderConfig of(Map<?, ?> json, String where) {
        Object modelType = json.get("model_type");
        for (Type t : Type.values()) {
            if (t.modelType.equals(modelType)) {
                return t.reader.apply(ConfigJson.of(json, where, t.modelType));
            }
        }
        throw new IllegalArgumentException("decoder: " + where + " has model_type " + modelType + "; supported are "
                + Arrays.stream(Type.values()).map(Type::modelType).collect(Collectors.joining(", ")));
    }

    /** @return the family */
    public Type type() {
        return type;
    }

    /** @return where the config came from */
    public String source() {
        return source;
    }

    /** @return {@code V}, the vocabulary size */
    public int vocabSize() {
        return vocabSize;
    }

    /** @return {@code E}, the width of the residual stream */
    public int hidden() {
        return hidden;
    }

    /** @return the number of blocks */
    public int layers() {
        return layers;
    }

    /** @return query heads */
    public int heads() {
        return heads;
    }

    /** @return key/value heads, dividing {@link #heads()} */
    public int kvHeads() {
        return kvHeads;
    }

    /** @return the size of one head ({@code head_dim}, else {@code hidden / heads}) */
    public int headDim() {
        return headDim;
    }

    /** @return the MLP's inner width */
    public int intermediate() {
        return intermediate;
    }

    /** @return the norm epsilon */
    public double eps() {
        return eps;
    }

    /** @return the longest sequence: GPT-2's learned positions; the others' trained context */
    public int maxPositions() {
        return maxPositions;
    }

    /** @return whether the LM head is the token embedding */
    public boolean tiedEmbeddings() {
        return tiedEmbeddings;
    }

    /**
     * @param layer a block
     * @return how many of the most recent keys its queries see, themselves included; 0 for all
     */
    public int window(int layer) {
        return windows[layer];
    }

    /** @return the MLP's activation */
    Activation activation() {
        return activation;
    }

    /** @return whether the query, key and value projections have biases */
    boolean qkvBias() {
        return qkvBias;
    }

    /** @return whether the output projection has a bias */
    boolean outputBias() {
        return outputBias;
    }

    /** @return whether the MLP's projections have biases */
    boolean mlpBias() {
        return mlpBias;
    }

    /**
     * @param layer a block
     * @return the factor of {@code q·kᵀ}: {@code 1/sqrt(headDim)} unless the family says otherwise
     */
    double attentionScale(int layer) {
        double scale = Double.isNaN(attentionScale) ? 1.0 / Math.sqrt(headDim) : attentionScale;
        return scaleByInverseLayer ? scale / (layer + 1) : scale;
    }

    /** @return the soft-cap of the attention logits (Gemma 2's; Gemma 3's when set); 0 for none */
    double attentionSoftcap() {
        return attentionSoftcap;
    }

    /** @return the soft-cap of the final logits (Gemma 2's; Gemma 3's when set); 0 for none */
    double finalSoftcap() {
        return finalSoftcap;
    }

    /**
     * @param layer a block
     * @return its rotary embedding schedule, or null for GPT-2's learned positions
     */
    RopeScaling rope(int layer) {
        return rope == null ? null : rope[layer];
    }

    /**
     * @return Phi-3's length at which transformers drops its cache and runs the whole sequence again (the first
     *     forward that passes {@code original_max_position_embeddings} with a cache holding no more than it); 0
     *     for never. Until then the keys of a position depend on its prefix alone; a forward that passes it
     *     rewrites every earlier position's
     */
    public int recomputeBeyond() {
        return recomputeBeyond;
    }

    DecoderStack bind(Weights weights) {
        return type.bind(this, weights);
    }

    @Override
    public String toString() {
        return type.modelType + "[vocab " + vocabSize + ", hidden " + hidden + ", " + layers + " layers, " + heads
                + " heads over " + kvHeads + " kv heads of " + headDim + ", intermediate " + intermediate + "]";
    }

    /** The values a family's reader fills in; {@link #build()} checks that they fit together. */
    static final class Builder {
        final Type type;
        final String source;
        int vocabSize;
        int hidden;
        int layers;
        int heads;
        int kvHeads;
        int headDim;
        int intermediate;
        double eps;
        int maxPositions;
        boolean tiedEmbeddings;
        Activation activation = Activation.SILU;
        boolean qkvBias;
        boolean outputBias;
        boolean mlpBias;
        double attentionScale = Double.NaN;
        boolean scaleByInverseLayer;
        double attentionSoftcap;
        double finalSoftcap;
        int[] windows;
        RopeScaling[] rope;
        int recomputeBeyond;

        Builder(Type type, ConfigJson c) {
            this.type = type;
            this.source = c.where();
        }

        DecoderConfig build() {
            return new DecoderConfig(this);
        }
    }

    /**
     * The sizes, norm epsilon and tying that the Llama lineage (Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma 2,
     * Gemma 3, Phi-3) spells alike: {@code vocab_size}, {@code hidden_size}, {@code intermediate_size},
     * {@code num_hidden_layers}, {@code num_attention_heads}, {@code num_key_value_heads} (default: the attention
     * heads), {@code head_dim} (default {@code hidden_size / num_attention_heads}), {@code rms_norm_eps},
     * {@code max_position_embeddings}, {@code tie_word_embeddings}, each with the family's transformers default.
     *
     * @param b the builder to fill
     * @param c the config
     * @param d the family's defaults
     */
    static void readLlamaLineage(Builder b, ConfigJson c, LineageDefaults d) {
        b.vocabSize = c.integer("vocab_size", d.vocabSize);
        b.hidden = c.integer("hidden_size", d.hidden);
        b.intermediate = c.integer("intermediate_size", d.intermediate);
        b.layers = c.integer("num_hidden_layers", d.layers);
        b.heads = c.integer("num_attention_heads", d.heads);
        b.kvHeads = c.integer("num_key_value_heads", d.kvHeads > 0 ? d.kvHeads : b.heads);
        Integer headDim = c.optionalInteger("head_dim");
        b.headDim = headDim != null ? headDim : d.headDim > 0 ? d.headDim
                : b.heads > 0 ? b.hidden / b.heads : 0;
        if (headDim == null && d.headDim == 0 && b.heads > 0 && b.hidden % b.heads != 0) {
            c.problem("hidden_size", b.hidden, "is not a multiple of num_attention_heads " + b.heads
                    + " and head_dim is not given");
        }
        b.eps = c.number("rms_norm_eps", d.eps);
        b.maxPositions = c.integer("max_position_embeddings", d.maxPositions);
        b.tiedEmbeddings = c.bool("tie_word_embeddings", d.tied);
        b.windows = new int[Math.max(0, b.layers)];
    }

    /**
     * The rotary embedding of each layer from {@code rope_theta}, {@code partial_rotary_factor} (where the family
     * rotates part of a head) and {@code rope_scaling} / {@code rope_parameters} ({@link RopeScaling}).
     *
     * @param b the builder, sizes read
     * @param c the config
     * @param d the family's defaults
     * @param layerTypes each layer's type, for parameters given per type
     */
    static void readRope(Builder b, ConfigJson c, LineageDefaults d, String[] layerTypes) {
        double theta = c.number("rope_theta", d.theta);
        double partial = 1.0;
        if (d.partialAllowed) {
            partial = c.number("partial_rotary_factor", 1.0);
        } else {
            c.neutral("partial_rotary_factor", 1.0);
        }
        b.rope = RopeScaling.read(c, new RopeScaling.Defaults(theta, partial, Math.max(2, b.headDim),
                Math.max(1, b.maxPositions), d.original, d.layout, d.partialAllowed), layerTypes);
    }

    /**
     * @param layers the number of layers
     * @return every layer {@code full_attention}
     */
    static String[] fullAttention(int layers) {
        String[] types = new String[Math.max(0, layers)];
        Arrays.fill(types, "full_attention");
        return types;
    }

    /**
     * A family's transformers defaults for the keys {@link #readLlamaLineage} and {@link #readRope} read, by name:
     * {@link #of} starts from transformers' {@code LlamaConfig} defaults and a family changes those that differ.
     * <pre>{@code
     * LineageDefaults d = LineageDefaults.of(x -> {
     *     x.intermediate = 14336;           // Mistral's
     *     x.kvHeads = 8;
     * });
     * }</pre>
     * A value is filled once, inside {@link #of}, and only read afterwards.
     */
    static final class LineageDefaults {
        /** {@code vocab_size} */
        int vocabSize = 32000;
        /** {@code hidden_size} */
        int hidden = 4096;
        /** {@code intermediate_size} */
        int intermediate = 11008;
        /** {@code num_hidden_layers} */
        int layers = 32;
        /** {@code num_attention_heads} */
        int heads = 32;
        /** {@code num_key_value_heads}, or 0 for the attention heads */
        int kvHeads;
        /** {@code head_dim}, or 0 for {@code hidden / heads} */
        int headDim;
        /** {@code rms_norm_eps} */
        double eps = 1e-6;
        /** {@code max_position_embeddings} */
        int maxPositions = 2048;
        /** {@code tie_word_embeddings} */
        boolean tied;
        /** {@code rope_theta} */
        double theta = 10000.0;
        /** a top-level {@code original_max_position_embeddings} that wins (Phi-3), or null */
        Integer original;
        /** the rotary pair layout */
        RopeLayout layout = RopeLayout.HALF_SPLIT;
        /** whether the family rotates part of a head ({@code partial_rotary_factor}) */
        boolean partialAllowed;

        private LineageDefaults() {
        }

        /**
         * @param family sets the values in which the family differs from Llama
         * @return the family's defaults
         */
        static LineageDefaults of(Consumer<LineageDefaults> family) {
            LineageDefaults d = new LineageDefaults();
            family.accept(d);
            return d;
        }
    }

    /**
     * Reads an activation name ({@code hidden_act} and its kin).
     *
     * @param c the config
     * @param key the key
     * @param fallback the family's default name
     * @param supported the names this family's transformers code computes
     * @return the activation
     */
    static Activation activation(ConfigJson c, String key, String fallback, List<String> supported) {
        String name = c.string(key, fallback);
        Activation a = supported.contains(name) ? ofHuggingFace(name) : null;
        if (a == null) {
            c.problem(key, name, "is not supported; supported are " + supported);
            return ofHuggingFace(fallback);
        }
        return a;
    }

    /**
     * @param name a Hugging Face activation name ({@code hidden_act}, {@code activation_function})
     * @return the activation, or null if attn4j does not compute it
     */
    static Activation ofHuggingFace(String name) {
        return switch (name) {
            case "relu" -> Activation.RELU;
            case "gelu" -> Activation.GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
            case "silu", "swish" -> Activation.SILU;
            default -> null;
        };
    }

    /**
     * Reads {@code layer_types} (Qwen2, Qwen3, Gemma 2, Gemma 3), checking each entry.
     *
     * @param c the config
     * @param layers the number of layers
     * @param fallback the types transformers derives when the key is absent
     * @return one type per layer
     */
    static String[] layerTypes(ConfigJson c, int layers, String[] fallback) {
        List<String> given = c.strings("layer_types");
        if (given == null) {
            return fallback;
        }
        if (given.size() != layers || !RopeScaling.LAYER_TYPES.containsAll(given)) {
            c.problem("layer_types", given, "must name full_attention or sliding_attention for each of the "
                    + layers + " layers");
            return fallback;
        }
        return given.toArray(new String[0]);
    }
}
