package org.attn4j.models.parameters;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.attn4j.api.WeightType;

/**
 * What a bound model holds: the name of its mix (a llama.cpp file type such as {@code Q4_K_M}, one storage type, or
 * {@code as in the file}), how many of the checkpoint's tensors are held in each storage type, and the bytes they
 * occupy on the backend ({@code Weight.byteSize()}: a storage type the backend widens when it binds it counts in
 * the wider form it holds). A tensor is counted once in the type it is held in (a vector, which is held as an
 * activation tensor, in {@code F32} or {@code F64}), even where two are bound together as one weight (a gate and an
 * up projection): then the weight's bytes are counted once. {@link #toString()} reads as llama.cpp's loader lists
 * a file, quantized types first, then the plain floats:
 * <pre>
 *   Q4_K_M: Q8_0 15, Q5_0 166, Q4_K 16, Q6_K 14, F32 61; M MiB
 * </pre>
 *
 * @param name the mix's name
 * @param counts tensors per storage type, types that hold none left out
 * @param bytes the bytes held on the backend
 */
public record WeightCensus(String name, Map<WeightType, Integer> counts, long bytes) {
    /**
     * Copies the counts.
     *
     * @throws IllegalArgumentException if the name is null, a count is not positive or the bytes are negative
     */
    public WeightCensus {
        if (name == null || counts == null || bytes < 0) {
            throw new IllegalArgumentException("WeightCensus: name " + name + ", counts " + counts + ", bytes " + bytes
                    + "; a name, counts and bytes >= 0 are needed");
        }
        EnumMap<WeightType, Integer> copy = new EnumMap<>(WeightType.class);
        counts.forEach((type, n) -> {
            if (n == null || n < 1) {
                throw new IllegalArgumentException("WeightCensus: " + type + " has count " + n + "; counts are >= 1");
            }
            copy.put(type, n);
        });
        counts = Collections.unmodifiableMap(copy);
    }

    /**
     * @param type a storage type
     * @return a census with one more tensor of {@code type} and {@code more} more bytes
     */
    public WeightCensus with(WeightType type, long more) {
        EnumMap<WeightType, Integer> next = new EnumMap<>(WeightType.class);
        next.putAll(counts);
        next.merge(type, 1, Integer::sum);
        return new WeightCensus(name, next, bytes + more);
    }

    /**
     * @param other the name
     * @return the same census under another name
     */
    public WeightCensus withName(String other) {
        return new WeightCensus(other, counts, bytes);
    }

    /** @return the total count of tensors */
    public int tensors() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public String toString() {
        String quantized = counts.entrySet().stream().filter(e -> e.getKey().isQuantized())
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        String plain = counts.entrySet().stream().filter(e -> !e.getKey().isQuantized())
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        String all = quantized.isEmpty() ? plain : plain.isEmpty() ? quantized : quantized + ", " + plain;
        return String.format(Locale.ROOT, "%s: %s; %.2f MiB", name, all, bytes / 1048576.0);
    }
}
