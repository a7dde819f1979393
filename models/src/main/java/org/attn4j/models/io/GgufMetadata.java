package org.attn4j.models.io;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A GGUF file's {@code <arch>.*} metadata read key by key, strictly, as the decoder's {@code ConfigJson} reads a
 * {@code config.json}: every key a reader takes is marked, and {@link #finish()} refuses, in one message, every
 * {@code <arch>.*} key no reader took and every key outside the namespaces that describe the file
 * ({@code general.}), its tokenizer ({@code tokenizer.}), how it was quantized ({@code quantize.}) and how it was
 * split ({@code split.}, with {@code split.count} at most 1). Keys are named relative to the architecture
 * ({@code "rope.freq_base"} is {@code llama.rope.freq_base} in a llama file).
 */
public final class GgufMetadata {
    private final Gguf.Contents gguf;
    private final String arch;
    private final Set<String> taken = new HashSet<>();

    /**
     * @param gguf a GGUF file's contents
     * @param arch its {@code general.architecture}
     */
    public GgufMetadata(Gguf.Contents gguf, String arch) {
        this.gguf = gguf;
        this.arch = arch;
    }

    /** @return {@code general.architecture} */
    public String arch() {
        return arch;
    }

    /** @return the full key name of {@code key} */
    public String name(String key) {
        return arch + "." + key;
    }

    /** @return whether the file has {@code <arch>.key} (marks nothing) */
    public boolean has(String key) {
        return gguf.has(name(key));
    }

    /**
     * @param key a key
     * @return its value, a positive int
     * @throws IllegalArgumentException if it is absent, not an integer or not positive
     */
    public int count(String key) {
        taken.add(key);
        long v = integer(name(key));
        if (v < 1 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("gguf: metadata " + name(key) + " is " + v
                    + "; a positive int was expected");
        }
        return (int) v;
    }

    /**
     * @param key a key
     * @param fallback its value when absent
     * @return its value, a positive int
     */
    public int count(String key, int fallback) {
        return has(key) ? count(key) : mark(key, fallback);
    }

    /**
     * @param key a key
     * @param fallback its value when absent
     * @return its integer value, at least 0
     */
    public long natural(String key, long fallback) {
        taken.add(key);
        if (!has(key)) {
            return fallback;
        }
        long v = integer(name(key));
        if (v < 0) {
            throw new IllegalArgumentException("gguf: metadata " + name(key) + " is " + v + "; at least 0 was expected");
        }
        return v;
    }

    /**
     * @param key a key
     * @return its numeric value, or null when absent
     * @throws IllegalArgumentException if it is not a finite number
     */
    public Double number(String key) {
        taken.add(key);
        if (!has(key)) {
            return null;
        }
        try {
            double v = gguf.number(name(key));
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("gguf: metadata " + name(key) + " is " + v
                        + "; a finite number was expected");
            }
            return v;
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * @param key a key
     * @param fallback its value when absent
     * @return its numeric value
     */
    public double number(String key, double fallback) {
        Double v = number(key);
        return v == null ? fallback : v;
    }

    /**
     * @param key a key
     * @return its string value, or null when absent
     */
    public String string(String key) {
        taken.add(key);
        if (!has(key)) {
            return null;
        }
        try {
            return gguf.string(name(key));
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * @param key a key
     * @return its boolean value, or null when absent
     */
    public Boolean bool(String key) {
        taken.add(key);
        if (!has(key)) {
            return null;
        }
        try {
            return gguf.bool(name(key));
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Accepts a key only at the value that changes nothing (or absent).
     *
     * @param key a key
     * @param neutral the value attn4j computes with
     * @param why what any other value would mean
     * @throws IllegalArgumentException naming the key and its value otherwise
     */
    public void neutral(String key, double neutral, String why) {
        Double v = number(key);
        if (v != null && v != neutral) {
            throw new IllegalArgumentException("gguf: " + name(key) + " is " + v + "; attn4j runs only with "
                    + neutral + " (" + why + ")");
        }
    }

    /** Marks a key that changes no number (for example {@code rope.scaling.finetuned}). */
    public void accept(String key) {
        taken.add(key);
    }

    private int mark(String key, int value) {
        taken.add(key);
        return value;
    }

    private long integer(String full) {
        try {
            return gguf.integer(full);
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * @throws IllegalArgumentException naming every {@code <arch>.*} key no reader took, every key of another
     *     namespace and a {@code split.count} above 1
     */
    public void finish() {
        List<String> refused = new ArrayList<>();
        for (String key : gguf.metadata().keySet()) {
            if (key.startsWith("general.") || key.startsWith("tokenizer.") || key.startsWith("quantize.")) {
                continue;
            }
            if (key.startsWith("split.")) {
                long parts = key.equals("split.count") ? integer(key) : 1;
                if (parts > 1) {
                    refused.add("split.count = " + parts + " (a model split over several files)");
                }
                continue;
            }
            if (key.startsWith(arch + ".") && taken.contains(key.substring(arch.length() + 1))) {
                continue;
            }
            refused.add(key);
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("gguf: " + arch + " metadata attn4j does not honour, refused rather than"
                    + " ignored: " + String.join(", ", new TreeSet<>(refused)));
        }
    }
}
