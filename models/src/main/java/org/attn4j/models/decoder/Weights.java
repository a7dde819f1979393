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
