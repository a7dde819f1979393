package org.attn4j.models.parameters;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.attn4j.api.Shape;

/**
 * Named parameters in PyTorch {@code state_dict} form: an ordered, immutable map from names such as
 * {@code self_attn.in_proj_weight} or {@code layers.0.norm1.bias} to {@link HostTensor}s. Layers are built from
 * one and give theirs back with {@code stateDict()}; {@link org.attn4j.models.io.SafeTensors} reads and writes it.
 *
 * <p>Loading is strict, like PyTorch's {@code load_state_dict(strict=True)}: a layer's {@code load} fails with one
 * {@link StateDictException} that lists every missing name, every name it does not use, every shape mismatch and
 * every NaN or infinite value (unless {@link #allowingNonFinite()}), each under its full dotted name, also when the
 * dict was narrowed with {@link #select(String)}.
 */
public final class StateDict {
    private static final StateDict EMPTY = new StateDict(Map.of());

    private final Map<String, HostTensor> entries;
    private final String path;
    private final LoadTracker tracker;
    private final boolean nonFiniteAllowed;

    private StateDict(Map<String, HostTensor> entries) {
        this(entries, "", null, false);
    }

    private StateDict(Map<String, HostTensor> entries, String path, LoadTracker tracker, boolean nonFiniteAllowed) {
        this.entries = entries;
        this.path = path;
        this.tracker = tracker;
        this.nonFiniteAllowed = nonFiniteAllowed;
    }

    /** @return a state dict with no entries */
    public static StateDict empty() {
        return EMPTY;
    }

    /**
     * @param entries names and values, kept in iteration order; not modified (copied)
     * @return the state dict
     */
    public static StateDict of(Map<String, HostTensor> entries) {
        Map<String, HostTensor> copy = new LinkedHashMap<>();
        entries.forEach((k, v) -> {
            if (k == null || k.isEmpty() || v == null) {
                throw new IllegalArgumentException("StateDict.of: entry '" + k + "' has an empty name or no value");
            }
            copy.put(k, v);
        });
        return new StateDict(Collections.unmodifiableMap(copy));
    }

    /**
     * @param name a parameter name
     * @param value its value
     * @return a one-entry state dict
     */
    public static StateDict of(String name, HostTensor value) {
        return of(Map.of(name, value));
    }

    /** @return the names, in order */
    public List<String> names() {
        return List.copyOf(entries.keySet());
    }

    /** @return the entries as an unmodifiable ordered map */
    public Map<String, HostTensor> asMap() {
        return entries;
    }

    /** @return the number of entries */
    public int size() {
        return entries.size();
    }

    /**
     * @param name a parameter name
     * @return whether it is present
     */
    public boolean contains(String name) {
        return entries.containsKey(name);
    }

    /**
     * @param name a parameter name
     * @return its value
     * @throws IllegalArgumentException naming the missing parameter (with its full dotted name) and those present
     */
    public HostTensor get(String name) {
        HostTensor t = entries.get(name);
        if (t == null) {
            if (tracker != null) {
                tracker.missing(path + name, null);
                throw tracker.failNow();
            }
            throw new IllegalArgumentException("StateDict: parameter '" + path + name + "' is missing; present: "
                    + presentNames());
        }
        if (tracker != null) {
            tracker.used(path + name);
        }
        return t;
    }

    /**
     * @param name a parameter name
     * @param expected the shape the layer needs
     * @return its value
     * @throws IllegalArgumentException if it is missing or has another shape; while a layer loads, the problem is
     *     recorded instead (zeros of {@code expected} stand in) and reported with all others at the end
     */
    public HostTensor get(String name, Shape expected) {
        HostTensor t = entries.get(name);
        if (tracker != null) {
            if (t == null) {
                tracker.missing(path + name, expected);
                return placeholder(expected);
            }
            tracker.used(path + name);
            if (!t.shape().equals(expected)) {
                tracker.misShaped(path + name, t.shape(), expected);
                return placeholder(expected);
            }
            return t;
        }
        t = get(name);
        if (!t.shape().equals(expected)) {
            throw new IllegalArgumentException("StateDict: parameter '" + path + name + "' has shape " + t.shape()
                    + " but the layer needs " + expected);
        }
        return t;
    }

    private static HostTensor placeholder(Shape shape) {
        return HostTensor.of(new float[(int) shape.size()], shape.toArray());
    }

    private String presentNames() {
        List<String> names = new ArrayList<>();
        for (String k : entries.keySet()) {
            if (names.size() == 20) {
                names.add("… " + (entries.size() - 20) + " more");
                break;
            }
            names.add(path + k);
        }
        return names.toString();
    }

    /**
     * @param name a parameter name
     * @param expected the shape the layer needs
     * @return its value, or null if absent
     * @throws IllegalArgumentException if present with another shape
     */
    public HostTensor optional(String name, Shape expected) {
        return entries.containsKey(name) ? get(name, expected) : null;
    }

    /**
     * Selects a submodule's parameters, as PyTorch's {@code load_state_dict} does for a child module.
     *
     * @param prefix for example {@code "self_attn."} or {@code "layers.0."}
     * @return the entries whose names start with {@code prefix}, with the prefix removed
     */
    public StateDict select(String prefix) {
        Map<String, HostTensor> out = new LinkedHashMap<>();
        entries.forEach((k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return new StateDict(Collections.unmodifiableMap(out), path + prefix, tracker, nonFiniteAllowed);
    }

    /**
     * A base model's parameters from a checkpoint that may hold a task model around it, as {@code transformers}
     * loads a base model from a task model's file: when some name starts with {@code prefix}, the entries under it
     * with the prefix removed ({@link #select}), the names under the {@code head} prefixes dropped; else this state
     * dict, whole.
     *
     * @param module the base model's name for the message, for example {@code "BertModel"}
     * @param prefix the base model's prefix in a task model, for example {@code "bert."}
     * @param head the prefixes of the task model's other parameters, for example {@code "cls."}
     * @return the base model's entries
     * @throws IllegalArgumentException naming every entry under none of those prefixes, when some are under
     *     {@code prefix}
     */
    public StateDict base(String module, String prefix, String... head) {
        if (entries.keySet().stream().noneMatch(n -> n.startsWith(prefix))) {
            return this;
        }
        List<String> known = new ArrayList<>(List.of(prefix));
        known.addAll(List.of(head));
        List<String> stray = entries.keySet().stream().filter(n -> known.stream().noneMatch(n::startsWith)).toList();
        if (!stray.isEmpty()) {
            String outside = known.size() == 1 ? known.get(0) : String.join(", ", known.subList(0, known.size() - 1))
                    + " and " + known.get(known.size() - 1);
            throw new IllegalArgumentException("Error(s) in loading state_dict for " + module + ": unexpected ("
                    + stray.size() + ") outside " + outside + ": " + String.join(", ", stray));
        }
        return select(prefix);
    }

    /**
     * Builds a module strictly, like PyTorch's {@code load_state_dict(strict=True)}: {@code build} reads parameters
     * with {@link #get(String, Shape)} (a missing or mis-shaped one is recorded and zeros stand in) and
     * {@link #select(String)}; afterwards every name it did not read is unexpected, and every parameter it read is
     * checked for NaN and ±∞. A build nested in another one joins it, so the outermost module reports for the whole
     * tree. This is what every layer's {@code load} does; use it for a module of your own.
     *
     * @param module the module's name for the message, for example {@code "BertModel"}
     * @param build makes the module from the parameters it is given
     * @param <T> the module type
     * @return the module
     * @throws StateDictException listing every missing, unexpected, mis-shaped and non-finite parameter
     */
    public <T> T load(String module, Function<StateDict, T> build) {
        return LoadTracker.load(this, module, build);
    }

    /**
     * @return this state dict, whose NaN and infinite values a strict load accepts (by default it refuses them,
     *     naming the parameter and the index)
     */
    public StateDict allowingNonFinite() {
        return new StateDict(entries, path, tracker, true);
    }

    boolean nonFiniteAllowed() {
        return nonFiniteAllowed;
    }

    String path() {
        return path;
    }

    LoadTracker tracker() {
        return tracker;
    }

    StateDict tracked(LoadTracker t) {
        return new StateDict(entries, path, t, nonFiniteAllowed);
    }

    /**
     * @param prefix for example {@code "layers.0."}
     * @return every entry with {@code prefix} put in front of its name
     */
    public StateDict prefixed(String prefix) {
        Map<String, HostTensor> out = new LinkedHashMap<>();
        entries.forEach((k, v) -> out.put(prefix + k, v));
        return new StateDict(Collections.unmodifiableMap(out));
    }

    /**
     * @param other more entries, appended after these
     * @return the union
     * @throws IllegalArgumentException if a name occurs in both
     */
    public StateDict plus(StateDict other) {
        Map<String, HostTensor> out = new LinkedHashMap<>(entries);
        other.entries.forEach((k, v) -> {
            if (out.putIfAbsent(k, v) != null) {
                throw new IllegalArgumentException("StateDict.plus: parameter '" + k + "' occurs in both");
            }
        });
        return new StateDict(Collections.unmodifiableMap(out));
    }

    /**
     * @param name a parameter name
     * @param value its value
     * @return a copy with that entry added or replaced
     */
    public StateDict with(String name, HostTensor value) {
        Map<String, HostTensor> out = new LinkedHashMap<>(entries);
        out.put(name, value);
        return of(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StateDict s && entries.equals(s.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("StateDict{");
        entries.forEach((k, v) -> b.append(b.length() > 10 ? ", " : "").append(k).append(v.shape()));
        return b.append('}').toString();
    }
}
