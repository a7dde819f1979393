package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;

/**
 * Takes a decoder's parameters out of a state_dict by name and shape, uploading each once into the model's scope,
 * and reports every missing, mis-shaped and unexpected name at once, as PyTorch's strict {@code load_state_dict}.
 * Every parameter a decoder binds passes here: the projections, tables and norms it hands out are what the
 * forward passes use.
 */
final class Weights {
    private final Map<String, HostTensor> remaining;
    private final Scope scope;
    private final DType dtype;
    private final List<String> problems = new ArrayList<>();

    Weights(StateDict state, Scope scope, DType dtype) {
        this.remaining = new TreeMap<>(state.asMap());
        this.scope = scope;
        this.dtype = dtype;
    }

    /** Drops names that carry no parameters (buffers), if present. */
    void ignore(String name) {
        remaining.remove(name);
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
        return h == null ? null : h.toTensor(scope, dtype);
    }

    /**
     * @param name the state_dict name of a Conv1D weight {@code [in, out]}
     * @param in its input size
     * @param out its output size
     * @return the weight transposed to {@code nn.Linear}'s {@code [out, in]}, uploaded
     */
    Tensor takeTransposed(String name, int in, int out) {
        HostTensor h = host(name, in, out);
        return h == null ? null : h.transpose().toTensor(scope, dtype);
    }

    /**
     * @param prefix the module name, for example {@code model.layers.0.self_attn.q_proj}
     * @param out output features
     * @param in input features
     * @param bias whether the module has {@code prefix.bias}
     * @return the {@code nn.Linear} of {@code prefix.weight} {@code [out, in]} (and {@code prefix.bias})
     */
    Projection projection(String prefix, int out, int in, boolean bias) {
        return new Projection(take(prefix + ".weight", out, in), bias ? take(prefix + ".bias", out) : null);
    }

    /**
     * @param prefix the name of a GPT-2 {@code Conv1D}, whose weight is {@code [in, out]}
     * @param in input features
     * @param out output features
     * @return the same map as an {@code nn.Linear}, its weight transposed once here
     */
    Projection conv1d(String prefix, int in, int out) {
        return new Projection(takeTransposed(prefix + ".weight", in, out), take(prefix + ".bias", out));
    }

    /**
     * @param name the state_dict name
     * @param rows {@code V}
     * @param width {@code E}
     * @return the embedding table
     */
    TokenTable table(String name, int rows, int width) {
        return new TokenTable(take(name, rows, width));
    }

    /**
     * @param name the state_dict name of a weight {@code [d]}
     * @param d the normalised width
     * @param eps the epsilon
     * @param onePlus whether the norm multiplies by {@code 1 + w} (Gemma), which is then formed here once, in
     *     double, before the upload rounds it as transformers' float32 {@code 1.0 + weight.float()} does
     * @return the RMS norm
     */
    Norm rms(String name, int d, double eps, boolean onePlus) {
        HostTensor h = host(name, d);
        if (h == null) {
            return Norm.NONE;
        }
        if (onePlus) {
            double[] v = h.data();
            for (int i = 0; i < v.length; i++) {
                v[i] += 1.0;
            }
            h = new HostTensor(h.shape(), v);
        }
        return Norm.rms(h.toTensor(scope, dtype), eps);
    }

    /**
     * @param prefix the module name ({@code prefix.weight}, {@code prefix.bias})
     * @param d the normalised width
     * @param eps the epsilon
     * @return the layer norm
     */
    Norm layerNorm(String prefix, int d, double eps) {
        return Norm.layer(take(prefix + ".weight", d), take(prefix + ".bias", d), eps);
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
        for (String name : remaining.keySet()) {
            problems.add("unexpected " + name);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(model + ": the state_dict does not fit the config: "
                    + String.join("; ", problems));
        }
    }
}
