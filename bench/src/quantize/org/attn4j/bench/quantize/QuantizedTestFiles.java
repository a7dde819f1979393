package org.attn4j.bench.quantize;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Writes the models module's quantized GGUF test files as {@code llama-quantize} makes them: two seeded random Llamas
 * are converted to F32 GGUF files as llama.cpp's converter writes them ({@code GgufCheckpoints}, with a small
 * SentencePiece vocabulary), then each is quantized to {@code Q4_K_M}, {@code Q5_K_M}, {@code Q4_K_S}, {@code Q6_K}
 * and {@code Q8_0} by {@link LlamaCppQuantization}: every tensor's type chosen by llama.cpp's rules, its rows
 * quantized by ggml's own {@code ggml_quantize_chunk}.
 * <pre>
 *   rows576   hidden 576 (no K-quant block divides its rows, so the fallbacks Q5_0, Q5_1, Q8_0 occur), 8 layers
 *             (enough for every layer rule of the mixes), 1 head of 32 over 1 key/value head, MLP 32, tied
 *             embedding (as SmolLM2's); not in Q8_0, whose tensors would be its Q6_K file's (all Q8_0)
 *   rows256   hidden 256 and MLP 256 (whole K-quant blocks: Q4_K, Q5_K, Q6_K), 2 layers, 2 heads of 32 over 1
 *             key/value head (attn_output's rows of 64 fall back), an output.weight (as TinyLlama's)
 * </pre>
 * The shapes are the smallest that show every rule and stay a few MiB in all.
 * Needs Java 22+ (the foreign function API) and the bench's test class path; run from the repository root:
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "$(cat bench/target/cp.txt):bench/target/test-classes" \
 *     bench/src/quantize/org/attn4j/bench/quantize/QuantizedTestFiles.java models/src/test/resources/org/attn4j/models/decoder/quantized \
 *     [bench/src/peers/node-llama-cpp/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libllama.v0.4.0.so]
 * </pre>
 * With a {@code libllama} that has {@code llama_model_quantize} (node-llama-cpp's, installed for the decode bench),
 * llama.cpp's own quantizer also quantizes each F32 source, and any difference from the written file in metadata,
 * tensor types or bytes is printed and makes the exit status 1.
 */
public final class QuantizedTestFiles {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int VOCAB = 320;

    private QuantizedTestFiles() {
    }

    /** One source checkpoint: its file prefix, {@code config.json}, seed, and the mixes made of it. */
    private record Source(String name, String config, long seed, List<LlamaCppMix> mixes) {
    }

    private static final List<Source> SOURCES = List.of(
            new Source("rows576", config(576, 32, 8, 1, 1, 32, true), 576, List.of(LlamaCppMix.Q4_K_M,
                    LlamaCppMix.Q5_K_M, LlamaCppMix.Q4_K_S, LlamaCppMix.Q6_K)),
            new Source("rows256", config(256, 256, 2, 2, 1, 32, false), 256, LlamaCppMix.all()));

    private static String config(int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim,
                                 boolean tied) {
        return """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": %d, "hidden_size": %d,
                 "intermediate_size": %d, "num_hidden_layers": %d, "num_attention_heads": %d,
                 "num_key_value_heads": %d, "head_dim": %d, "hidden_act": "silu", "max_position_embeddings": 256,
                 "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": %s, "bos_token_id": 1,
                 "eos_token_id": 2}
                """.formatted(VOCAB, hidden, intermediate, layers, heads, kvHeads, headDim, tied);
    }

    /**
     * @param args the folder to write into; then, optionally, a {@code libllama} shared library whose
     *     {@code llama_model_quantize} quantizes the same F32 sources for comparison ({@link LlamaModelQuantize})
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1 && args.length != 2) {
            throw new IllegalArgumentException("usage: QuantizedTestFiles OUTPUT_FOLDER [LIBLLAMA]");
        }
        Path out = Files.createDirectories(Path.of(args[0]));
        Path scratch = Files.createTempDirectory("quantized-test-files");
        List<String> differ = new ArrayList<>();
        try (GgmlQuantizer ggml = new GgmlQuantizer();
             LlamaModelQuantize llama = args.length == 2 ? new LlamaModelQuantize(Path.of(args[1])) : null) {
            for (Source s : SOURCES) {
                @SuppressWarnings("unchecked")
                Map<String, Object> config = JSON.readValue(s.config(), Map.class);
                DecoderConfig c = DecoderConfig.of(config, s.name());
                StateDict hf = GgufCheckpoints.randomDecoder(c, WeightType.F32, s.seed());
                GgufWriter f32 = GgufCheckpoints.fromHuggingFace(config, c.tiedEmbeddings() ? varied(hf, s.seed())
                        : hf, WeightType.F32);
                Path f32File = scratch.resolve(s.name() + "-f32.gguf");
                GgufCheckpoints.sentencePiece(f32, VOCAB).write(f32File);
                Gguf.Contents source = Gguf.read(f32File);
                for (LlamaCppMix mix : s.mixes()) {
                    Path file = out.resolve(s.name() + "-" + mix.fileName() + ".gguf");
                    Map<GgmlType, Integer> counts = LlamaCppQuantization.write(source, mix, ggml, file);
                    System.out.println(file + ": " + Files.size(file) + " bytes, " + counts);
                    if (llama != null) {
                        Path theirs = scratch.resolve(file.getFileName());
                        llama.quantize(f32File, theirs, mix);
                        List<String> d = FileDifferences.of(file, theirs);
                        System.out.println("  against llama_model_quantize: " + (d.isEmpty()
                                ? "the same metadata, tensor types and bytes" : d));
                        d.forEach(line -> differ.add(file.getFileName() + ": " + line));
                    }
                }
            }
        }
        try (Stream<Path> files = Files.list(scratch)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(scratch);
        if (!differ.isEmpty()) {
            System.err.println(differ.size() + " differences from llama_model_quantize");
            System.exit(1);
        }
    }

    /**
     * A tied random decoder with two departures from a default initialisation that keep its greedy decoding from
     * repeating the current token, so that equal ids mean something (as the decode bench's {@code PeerModel}): the
     * blocks' output projections ({@code o_proj}, {@code down_proj}) at a third of their scale, and the final norm's
     * weights of unit variance with random signs. The untied one varies its ids as drawn.
     */
    private static StateDict varied(StateDict hf, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<String, HostTensor> m = new LinkedHashMap<>(hf.asMap());
        m.replaceAll((name, t) -> {
            if (name.endsWith("o_proj.weight") || name.endsWith("down_proj.weight")) {
                return HostTensor.of(scaled(t.toFloatArray(), 0.3f), t.shape().toArray());
            }
            if (name.equals("model.norm.weight")) {
                float[] v = new float[(int) t.shape().size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) (Math.sqrt(3) * (2 * r.nextDouble() - 1));
                }
                return HostTensor.of(v, t.shape().toArray());
            }
            return t;
        });
        return StateDict.of(m);
    }

    private static float[] scaled(float[] v, float by) {
        for (int i = 0; i < v.length; i++) {
            v[i] *= by;
        }
        return v;
    }
}
