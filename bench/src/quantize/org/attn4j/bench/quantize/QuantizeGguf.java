package org.attn4j.bench.quantize;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import org.attn4j.models.io.Gguf;

/**
 * {@code llama-quantize IN OUT MIX} for the mixes of {@link LlamaCppMix}, on an F32 GGUF file
 * ({@link LlamaCppQuantization}). Needs Java 22+ and a class path holding attn4j's models module, its test classes and
 * {@code de.kherud:llama}; the decode bench runs it to make its {@code Q4_K_M} and {@code Q6_K} files:
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp CLASSPATH \
 *     bench/src/quantize/org/attn4j/bench/quantize/QuantizeGguf.java IN-f32.gguf OUT.gguf q4_k_m
 * </pre>
 */
public final class QuantizeGguf {
    private QuantizeGguf() {
    }

    /**
     * @param args the F32 source, the file to write, the mix ({@code q4_k_m}, {@code q5_k_m}, {@code q4_k_s},
     *     {@code q6_k}, {@code q8_0})
     * @throws IOException if a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: QuantizeGguf IN.gguf OUT.gguf MIX");
        }
        LlamaCppMix mix = LlamaCppMix.valueOf(args[2].toUpperCase(Locale.ROOT));
        try (GgmlQuantizer ggml = new GgmlQuantizer()) {
            System.out.println(args[1] + ": " + LlamaCppQuantization.write(Gguf.read(Path.of(args[0])), mix, ggml,
                    Path.of(args[1])));
        }
    }
}
