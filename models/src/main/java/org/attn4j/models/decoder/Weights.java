package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.layers.RmsNorm;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.WeightCensus;

/**
 * Takes a decoder's parameters out of a state_dict by name and shape, binding each once into the model's scope
 * (matrices as {@link Weight}s in their storage type, vectors as tensors of the activations' dtype), and reports every
 * missing, mis-shaped and unexpected name at once, as PyTorch's strict {@code load_state_dict}.
 * Every parameter a decoder binds passes here: the building blocks it hands out ({@link Linear}, {@link Embedding},
 * {@link RmsNorm}, {@link LayerNorm}, bound over what it put in the model's scope) are what the forward passes use,
 * and {@link #census()} counts each one in the type it is held in. A block whose parameters are missing or mis-shaped
 * comes back null, its problem noted for {@link #finish}.
 *
 * <p>A matrix keeps its own storage type, or takes one type chosen for all, or the type a llama.cpp mix
 * ({@link QuantMix}) chooses by its role and layer, read from its Hugging Face name: {@code embed_tokens}
 * ({@code wte}), {@code lm_head}, {@code q_proj}, {@code k_proj}, {@code v_proj}, {@code qkv_proj}
 * ({@code c_attn}), {@code o_proj} ({@code attn.c_proj}), {@code gate_proj}, {@code up_proj} and
 * {@code gate_up_proj} ({@code c_fc}), {@code down_proj} ({@code mlp.c_proj}), {@code wpe} (kept as it is), in the
 * block of {@code layers.N.} ({@code h.N.}).
 */
final class Weights {
    private static final Pattern LAYER = Pattern.compile("(?:^|\\.)(?:layers|h)\\.(\\d+)\\.");

    private final Map<String, HostTensor> remaining;
    private final Scope scope;
    private final DType dtype;
    private final WeightType storage;
    private final QuantMix mix;
    private final int layers;
    private final boolean tied;
    private WeightCensus census;
    private final boolean conv1dAsLinear;
    private final boolean owned;
    private final List<String> problems = new ArrayList<>();

    /**
     * @param state the parameters by name
     * @param scope where they are bound
     * @param dtype the activations' dtype: vectors (biases, norms) are uploaded in it
     * @param storage every matrix's storage type, or null to keep each one's own (F64 narrowed to F32 unless the
     *     dtype is F64, which makes every matrix F64)
     * @param mix the llama.cpp mix that chooses each matrix's type, or null; not with {@code storage}
     * @param layers the model's blocks, for the mix
     * @param tied whether the LM head is the embedding, for the mix
     * @param name the census's name: the mix's, the storage type's, or how the file holds them
     * @param conv1dAsLinear whether GPT-2's Conv1D weights are already stored as {@code nn.Linear}'s
     *     {@code [out, in]} (GGUF files), rather than {@code [in, out]}
     * @param owned whether the loader owns the host tensors, so that each one's memory map is given back as soon
     *     as it is bound ({@link HostTensor#release()}) and loading holds one tensor's pages at a time
     */
    Weights(StateDict state, Scope scope, DType dtype, WeightType storage, QuantMix mix, int layers, boolean tied,
            String name, boolean conv1dAsLinear, boolean owned) {
        if (storage != null && mix != null) {
            throw new IllegalArgumentException("decoder: storage " + storage + " and mix " + mix + " both given; one"
                    + " chooses the matrices' types");
        }
        this.remaining = new TreeMap<>(state.asMap());
        this.scope = scope;
        this.dtype = dtype;
        this.storage = storage;
        this.mix = mix;
        this.layers = layers;
        this.tied = tied;
        this.census = new WeightCensus(name, Map.of(), 0);
        this.conv1dAsLinear = conv1dAsLinear;
        this.owned = owned;
    }

    /** Drops names that carry no parameters (buffers), if present. */
    void ignore(String name) {
        remaining.remove(name);
    }

    /**
     * Drops every name under a module that the model does not load (the vision tower of an image-text checkpoint
     * run as a text decoder).
     *
     * @param prefix the module's prefix, for example {@code vision_tower.}
     */
    void ignoreUnder(String prefix) {
        remaining.keySet().removeIf(name -> name.startsWith(prefix));
    }

    /**
     * Reads every name under {@code from} as under {@code to} (a decoder nested in a bigger checkpoint).
     *
     * @param from the prefix in the state_dict
     * @param to the prefix the decoder's names have
     * @throws IllegalArgumentException if a renamed name is already present
     */
    void rename(String from, String to) {
        List<String> names = remaining.keySet().stream().filter(name -> name.startsWith(from)).toList();
        for (String name : names) {
            String renamed = to + name.substring(from.length());
            if (remaining.containsKey(renamed)) {
                throw new IllegalArgumentException("decoder: the state_dict has both " + name + " and " + renamed);
            }
            remaining.put(renamed, remaining.remove(name));
        }
    }

    /** @return whether the state_dict has {@code name} (not yet taken) */
    boolean has(String name) {
        return remaining.containsKey(name);
    }

    /**
     * @param name the state_dict name
     * @param dims the expected shape
     * @return the uploaded tensor, or null (and a problem noted) if missing or mis-shaped
     */
    Tensor take(String name, int... dims) {
        HostTensor h = host(name, dims);
        if (h == null) {
            return null;
        }
        Tensor t = h.toTensor(scope, dtype);
        counted(h);
        done(h);
        return t;
    }

    /** Counts a vector, held as a tensor of the activations' dtype. */
    private void counted(HostTensor vector) {
        WeightType held = dtype == DType.F64 ? WeightType.F64 : WeightType.F32;
        census = census.with(held, vector.shape().size() * dtype.byteSize());
    }

    /**
     * @param name the state_dict name of a matrix that products or lookups read
     * @param rows its expected rows
     * @param columns its expected columns
     * @return the bound weight, or null (and a problem noted) if missing or mis-shaped
     */
    Weight matrix(String name, int rows, int columns) {
        HostTensor h = host(name, rows, columns);
        return h == null ? null : bind(name, h);
    }

    private Weight bind(String name, HostTensor h) {
        return bind(name, h, 1, null);
    }

    /**
     * @param tensors how many of the checkpoint's tensors {@code h} holds (two for a stacked gate and up)
     * @param chosen its storage type, or null for the one {@link #typeOf} chooses
     */
    private Weight bind(String name, HostTensor h, int tensors, WeightType chosen) {
        try {
            WeightType type = chosen != null ? chosen : typeOf(name, h);
            Weight w = h.toWeight(scope, type);
            census = census.with(type, w.byteSize());
            for (int i = 1; i < tensors; i++) {
                census = census.with(type, 0);
            }
            return w;
        } catch (IllegalArgumentException e) {
            problems.add(name + ": " + e.getMessage());
            return null;
        } finally {
            done(h);
        }
    }

    private WeightType typeOf(String name, HostTensor h) {
        WeightType own = h.type() == WeightType.F64 ? WeightType.F32 : h.type();
        if (dtype == DType.F64) {
            return WeightType.F64;
        }
        if (storage != null) {
            return storage;
        }
        if (mix == null) {
            return own;
        }
        QuantMix.Role role = role(name);
        if (!role.isQuantized()) {
            return own;
        }
        Matcher m = LAYER.matcher(name);
        int layer = m.find() ? Integer.parseInt(m.group(1)) : 0;
        return mix.typeOf(role, layer, layers, h.shape().dim(1), tied);
    }

    /** @return what a matrix is to llama.cpp's quantizer, by its Hugging Face name */
    static QuantMix.Role role(String name) {
        if (name.endsWith("embed_tokens.weight") || name.equals("wte.weight")) {
            return QuantMix.Role.TOKEN_EMBD;
        }
        if (name.equals("lm_head.weight")) {
            return QuantMix.Role.OUTPUT;
        }
        if (name.equals("wpe.weight")) {
            return QuantMix.Role.POSITION_EMBD;
        }
        String[] roles = {"q_proj.", "k_proj.", "v_proj.", "qkv_proj.", "attn.c_attn.", "o_proj.", "attn.c_proj.",
            "gate_proj.", "gate_up_proj.", "up_proj.", "mlp.c_fc.", "down_proj.", "mlp.c_proj."};
        QuantMix.Role[] as = {QuantMix.Role.ATTN_Q, QuantMix.Role.ATTN_K, QuantMix.Role.ATTN_V,
            QuantMix.Role.ATTN_QKV, QuantMix.Role.ATTN_QKV, QuantMix.Role.ATTN_OUTPUT, QuantMix.Role.ATTN_OUTPUT,
            QuantMix.Role.FFN_GATE, QuantMix.Role.FFN_UP, QuantMix.Role.FFN_UP, QuantMix.Role.FFN_UP,
            QuantMix.Role.FFN_DOWN, QuantMix.Role.FFN_DOWN};
        for (int i = 0; i < roles.length; i++) {
            if (name.contains("." + roles[i]) || name.startsWith(roles[i])) {
                return as[i];
            }
        }
        return QuantMix.Role.OTHER;
    }

    /** Gives back the memory map of a host tensor the loader owns, once it has been read for the last time. */
    private void done(HostTensor h) {
        if (owned) {
            h.release();
        }
    }

    /**
     * @param prefix the module name, for example {@code model.layers.0.self_attn.q_proj}
     * @param out output features
     * @param in input features
     * @param bias whether the module has {@code prefix.bias}
     * @return the {@code nn.Linear} of {@code prefix.weight} {@code [out, in]} (and {@code prefix.bias})
     */
    Linear projection(String prefix, int out, int in, boolean bias) {
        return linear(matrix(prefix + ".weight", out, in), bias ? take(prefix + ".bias", out) : null, bias);
    }

    private Linear linear(Weight weight, Tensor bias, boolean hasBias) {
        return weight == null || (hasBias && bias == null) ? null : Linear.bound(weight, bias, dtype);
    }

    /**
     * @param gate the module name of a gate projection
     * @param up the module name of the up projection it multiplies
     * @param out output features of each
     * @param in input features
     * @param bias whether both have biases
     * @return one projection over the gate's rows then the up projection's, stacked once here, for a gated product
     */
    Linear stacked(String gate, String up, int out, int in, boolean bias) {
        return stacked(new String[] {gate, up}, new int[] {out, out}, in, bias, null);
    }

    /**
     * The one storage type in which several matrices would be held, where they have one: each present with its
     * expected shape, held in the same type by the state_dict, and given the same type by the storage type or the
     * llama.cpp mix chosen. A mix gives {@code v_proj} more bits than {@code q_proj} in some layers; a GGUF file
     * holds them so.
     *
     * @param prefixes the module names, for example a block's {@code self_attn.q_proj}, {@code k_proj} and
     *     {@code v_proj}
     * @param rows each one's expected output features
     * @param in the input features of all
     * @return the type, or null where they would be held in different ones (or one is missing or mis-shaped)
     */
    WeightType sharedType(String[] prefixes, int[] rows, int in) {
        WeightType shared = null;
        WeightType held = null;
        for (int i = 0; i < prefixes.length; i++) {
            String name = prefixes[i] + ".weight";
            HostTensor h = remaining.get(name);
            if (h == null || !h.shape().equals(Shape.of(rows[i], in)) || (held != null && h.type() != held)) {
                return null;
            }
            WeightType type = typeOf(name, h);
            if (shared != null && type != shared) {
                return null;
            }
            held = h.type();
            shared = type;
        }
        return shared;
    }

    /**
     * @param prefixes the module names of projections of one input
     * @param outs each one's output features
     * @param in input features
     * @param bias whether each has a bias
     * @param type the stacked matrix's storage type ({@link #sharedType}), or null to choose it as for one matrix
     *     named by all of theirs
     * @return one projection over their rows, stacked once here in the order given
     */
    Linear stacked(String[] prefixes, int[] outs, int in, boolean bias, WeightType type) {
        Weight w = stack(prefixes, outs, in, type);
        Tensor b = null;
        if (bias) {
            List<HostTensor> parts = hosts(prefixes, ".bias", outs, 0);
            if (!parts.contains(null)) {
                b = HostTensor.concatRows(parts).toTensor(scope, dtype);
                parts.forEach(this::counted);
            }
            parts.stream().filter(h -> h != null).forEach(this::done);
        }
        return linear(w, b, bias);
    }

    private Weight stack(String[] prefixes, int[] outs, int in, WeightType type) {
        List<HostTensor> parts = hosts(prefixes, ".weight", outs, in);
        if (parts.contains(null)) {
            parts.stream().filter(h -> h != null).forEach(this::done);
            return null;
        }
        HostTensor stack = HostTensor.concatRows(parts);
        parts.forEach(this::done);
        String name = String.join("+", Arrays.stream(prefixes).map(p -> p + ".weight").toList());
        return bind(name, stack, parts.size(), type);
    }

    /** @return each prefix's tensor {@code [out]} ({@code in == 0}) or {@code [out, in]}, nulls where absent */
    private List<HostTensor> hosts(String[] prefixes, String suffix, int[] outs, int in) {
        List<HostTensor> parts = new ArrayList<>(prefixes.length);
        for (int i = 0; i < prefixes.length; i++) {
            parts.add(in == 0 ? host(prefixes[i] + suffix, outs[i]) : host(prefixes[i] + suffix, outs[i], in));
        }
        return parts;
    }

    /**
     * @param prefix the name of a GPT-2 {@code Conv1D}, whose weight is {@code [in, out]}
     * @param in input features
     * @param out output features
     * @return the same map as an {@code nn.Linear}, its weight transposed once here
     */
    Linear conv1d(String prefix, int in, int out) {
        if (conv1dAsLinear) {
            return projection(prefix, out, in, true);
        }
        HostTensor h = host(prefix + ".weight", in, out);
        Weight w = null;
        if (h != null) {
            HostTensor transposed = h.transpose();
            done(h);
            w = bind(prefix + ".weight", transposed);
        }
        return linear(w, take(prefix + ".bias", out), true);
    }

    /**
     * @param name the state_dict name
     * @param rows {@code V}
     * @param width {@code E}
     * @return the embedding table
     */
    Embedding table(String name, int rows, int width) {
        Weight w = matrix(name, rows, width);
        return w == null ? null : Embedding.bound(w);
    }

    /**
     * @param name the state_dict name of a weight {@code [d]}
     * @param d the normalised width
     * @param eps the epsilon
     * @param onePlus whether the norm multiplies by {@code 1 + w} (Gemma), which is then formed here once, in
     *     double, before the upload rounds it as transformers' float32 {@code 1.0 + weight.float()} does
     * @return the RMS norm
     */
    RmsNorm rms(String name, int d, double eps, boolean onePlus) {
        HostTensor h = host(name, d);
        if (h == null) {
            return null;
        }
        HostTensor weight = h;
        if (onePlus) {
            double[] v = h.data();
            for (int i = 0; i < v.length; i++) {
                v[i] += 1.0;
            }
            weight = new HostTensor(h.shape(), v);
        }
        Tensor t = weight.toTensor(scope, dtype);
        counted(h);
        done(h);
        return RmsNorm.bound(t, eps);
    }

    /**
     * @param prefix the module name ({@code prefix.weight}, {@code prefix.bias})
     * @param d the normalised width
     * @param eps the epsilon
     * @return the layer norm
     */
    LayerNorm layerNorm(String prefix, int d, double eps) {
        Tensor weight = take(prefix + ".weight", d);
        Tensor bias = take(prefix + ".bias", d);
        return weight == null || bias == null ? null : LayerNorm.bound(weight, bias, eps);
    }

    /** @return every parameter bound so far, counted by the type it is held in */
    WeightCensus census() {
        return census;
    }

    /** @return the element type parameters are uploaded in */
    DType dtype() {
        return dtype;
    }

    private HostTensor host(String name, int... dims) {
        HostTensor h = remaining.remove(name);
        Shape expected = Shape.of(dims);
        if (h == null) {
            problems.add("missing " + name + " " + expected);
            return null;
        }
        if (!h.shape().equals(expected)) {
            problems.add(name + " has shape " + h.shape() + ", expected " + expected);
            return null;
        }
        return h;
    }

    /** @throws IllegalArgumentException listing every problem and every unexpected name, if any */
    void finish(String model) {
        for (Map.Entry<String, HostTensor> e : remaining.entrySet()) {
            problems.add("unexpected " + e.getKey());
            done(e.getValue());
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(model + ": the state_dict does not fit the config: "
                    + String.join("; ", problems));
        }
    }
}
