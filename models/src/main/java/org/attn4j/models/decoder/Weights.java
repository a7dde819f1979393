package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;

/**
 * Takes a decoder's parameters out of a state_dict by name and shape, binding each once into the model's scope
 * (matrices as {@link Weight}s in their storage type, vectors as tensors of the activations' dtype), and reports every
 * missing, mis-shaped and unexpected name at once, as PyTorch's strict {@code load_state_dict}.
 */
final class Weights {
    private final Map<String, HostTensor> remaining;
    private final Scope scope;
    private final DType dtype;
    private final WeightType storage;
    private final boolean owned;
    private final List<String> problems = new ArrayList<>();

    /**
     * @param state the parameters by name
     * @param scope where they are bound
     * @param dtype the activations' dtype
     * @param storage every matrix's storage type, or null to keep each one's own (F64 narrowed to F32 unless the
     *     dtype is F64, which makes every matrix F64)
     * @param owned whether the loader owns the host tensors, so that each one's memory map is given back as soon
     *     as it is bound ({@link HostTensor#release()}) and loading holds one tensor's pages at a time
     */
    Weights(StateDict state, Scope scope, DType dtype, WeightType storage, boolean owned) {
        this.remaining = new TreeMap<>(state.asMap());
        this.scope = scope;
        this.dtype = dtype;
        this.storage = storage;
        this.owned = owned;
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
        if (h == null) {
            return null;
        }
        Tensor t = h.toTensor(scope, dtype);
        done(h);
        return t;
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

    /**
     * @param names the state_dict names of matrices of one width, stacked in this order into one weight (a gate
     *     and an up projection read by one gated product, for example)
     * @param rows the expected rows of each
     * @param columns their expected columns
     * @return the bound stack, or null (and the problems noted) if any is missing or mis-shaped
     */
    Weight stacked(List<String> names, int rows, int columns) {
        List<HostTensor> parts = new ArrayList<>();
        for (String name : names) {
            parts.add(host(name, rows, columns));
        }
        if (parts.contains(null)) {
            return null;
        }
        HostTensor stack = HostTensor.concatRows(parts);
        parts.forEach(this::done);
        return bind(String.join("+", names), stack);
    }

    /**
     * @param name the state_dict name of a Conv1D weight {@code [in, out]}
     * @param in its input size
     * @param out its output size
     * @return the weight transposed to {@code nn.Linear}'s {@code [out, in]}, bound
     */
    Weight matrixTransposed(String name, int in, int out) {
        HostTensor h = host(name, in, out);
        if (h == null) {
            return null;
        }
        HostTensor transposed = h.transpose();
        done(h);
        return bind(name, transposed);
    }

    private Weight bind(String name, HostTensor h) {
        WeightType type = dtype == DType.F64 ? WeightType.F64 : storage != null ? storage
                : h.type() == WeightType.F64 ? WeightType.F32 : h.type();
        try {
            return h.toWeight(scope, type);
        } catch (IllegalArgumentException e) {
            problems.add(name + ": " + e.getMessage());
            return null;
        } finally {
            done(h);
        }
    }

    /** Gives back the memory map of a host tensor the loader owns, once it has been read for the last time. */
    private void done(HostTensor h) {
        if (owned) {
            h.release();
        }
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
