package org.attn4j.bench.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.attn4j.api.WeightType;

/**
 * The decode benchmark against the peers: random-weight Llamas in the shapes of SmolLM2-135M and TinyLlama-1.1B
 * ({@link PeerModel}, written on first use by {@link PeerFiles}), the same 16-token prompt, greedy decoding of 64
 * tokens on the same number of threads, by attn4j on the EJML and ND4J backends ({@code attn4j generate --stats},
 * started as a user starts it, so that it relaunches itself with the Vector API and its heap options),
 * llama.cpp through {@code de.kherud:llama} ({@link LlamaCppRun}), a current llama.cpp built for this CPU through
 * npm's {@code node-llama-cpp} ({@code src/peers/node-llama-cpp/decode.mjs}) and Jlama 0.8.4
 * ({@code src/peers/JlamaRun.java} on a Java 21+ JVM), each in a process of its own so that its peak resident memory
 * is its own. Per run: prefill and decode tokens per second, peak resident memory, the decode rate as a fraction of
 * the machine's bandwidth limit (STREAM triad bandwidth ÷ the bytes of the matrices one token reads) and whether the
 * ids equal PyTorch float64's ({@code reference-ids.json}, made by
 * {@code bench/src/test/python/decode_reference_ids.py}; where they differ, the first token that does and the
 * reference's top-1 margin there).
 *
 * <p>Weights per row: F32 (attn4j and Jlama read the F32 safetensors folder, the llama.cpps the F32 GGUF), BF16 (the
 * BF16 folder; the BF16 GGUF), Q8_0, Q4_K_M and Q6_K (attn4j and the llama.cpps read the GGUF; Jlama 0.8.4 reads
 * folders and has no 8-bit weight kernel). The F32 and BF16 files hold the same numbers; Q8_0's are those numbers
 * quantized; the Q4_K_M and Q6_K files are the F32 GGUF as {@code llama-quantize} makes them
 * ({@link PeerFiles#mix}), and their PyTorch reference is their own dequantized weights'.
 *
 * <p>System properties: {@code bench.decode.models} (where the model files go, default {@code target/decode-models}),
 * {@code bench.decode.out} (the report's folder, default {@code target/decode-peers}), {@code bench.decode.shapes},
 * {@code bench.decode.weights}, {@code bench.decode.engines} (comma lists; default all of
 * {@code smollm2-135m,tinyllama-1.1b}, {@code f32,bf16,q8_0,q4_k_m,q6_k},
 * {@code ejml,nd4j,llama.cpp,node-llama-cpp,jlama}), {@code bench.decode.threads} (default 2),
 * {@code bench.jlama.java} (a Java 21+ {@code java}) and {@code bench.quantize.java} (a Java 22+ one, which makes
 * the mixes' files), both by default Temurin 25's under {@code /usr/lib/jvm}, {@code bench.node} (node 20+: a path,
 * or a name looked up on the {@code PATH}; default {@code node}) and {@code bench.module} (the bench module's
 * folder, for {@code src/peers} and {@code src/quantize}).
 */
public final class DecodePeersMain {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] ENGINES = {"ejml", "nd4j", "llama.cpp", "node-llama-cpp", "jlama"};
    private static final long TIMEOUT_MINUTES = 30;
    private static final String TEMURIN_25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
    private static final String NODE_SCRIPT = "src/peers/node-llama-cpp/decode.mjs";

    private DecodePeersMain() {
    }

    /** One engine on one model file; {@code weights} is {@code F32}, {@code BF16}, {@code Q8_0} or a mix's name. */
    private record Run(PeerModel model, String weights, String engine, String input, List<String> command,
                       Map<String, String> environment) {
    }

    /** A run and what it gave. */
    private record Row(Run run, EngineResult result, String versusTorch, long bytesPerToken, double limit) {
    }

    /**
     * @param args none
     * @throws IOException if the models or the report cannot be written
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        Path module = Path.of(System.getProperty("bench.module", "."));
        Path models = Path.of(System.getProperty("bench.decode.models", module.resolve("target/decode-models")
                .toString()));
        Path out = Path.of(System.getProperty("bench.decode.out", module.resolve("target/decode-peers").toString()));
        int threads = Integer.getInteger("bench.decode.threads", 2);
        List<String> shapes = list("bench.decode.shapes", "smollm2-135m,tinyllama-1.1b");
        List<String> weights = list("bench.decode.weights", "f32,bf16,q8_0,q4_k_m,q6_k");
        List<String> engines = list("bench.decode.engines", String.join(",", ENGINES));
        String load = loadAverage();
        System.out.println("decode bench: machine " + cpuFlags() + ", load " + load);
        double bandwidth = MemoryBandwidth.triad(threads);
        System.out.printf(Locale.ROOT, "decode bench: STREAM triad on %d threads: %.1f GB/s%n", threads,
                bandwidth / 1e9);
        JsonNode reference = reference();
        List<Row> rows = new ArrayList<>();
        for (String shape : shapes) {
            PeerModel model = PeerModel.named(shape);
            PeerFiles files = PeerFiles.ensure(model, models, System.out);
            for (String w : weights) {
                String key = w.toLowerCase(Locale.ROOT);
                boolean mix = PeerFiles.MIXES.contains(key);
                String quantizer = System.getProperty("bench.quantize.java", TEMURIN_25);
                if (mix && !Files.isExecutable(Path.of(quantizer))) {
                    for (String engine : engines) {
                        rows.add(new Row(new Run(model, key.toUpperCase(Locale.ROOT), engine, "-", List.of(),
                                Map.of()), EngineResult.failed("no " + quantizer + " to make the " + key
                                + " file (set -Dbench.quantize.java to a Java 22+ java)"), "-", 0, Double.NaN));
                    }
                    continue;
                }
                if (mix) {
                    files.mix(key, quantizer, module, System.out);
                }
                long bytes = mix ? files.bytesPerToken(key)
                        : model.bytesPerToken(WeightType.valueOf(key.toUpperCase(Locale.ROOT)));
                double limit = bandwidth / bytes;
                for (String engine : engines) {
                    Run run = run(model, files, key, engine, threads, module);
                    System.out.println("decode bench: " + model.name() + " " + run.weights() + " " + engine + " ...");
                    EngineResult r = execute(run);
                    Row row = new Row(run, r, versusTorch(reference, model, key, r), bytes, limit);
                    rows.add(row);
                    System.out.println("  " + summary(row));
                }
            }
        }
        Files.createDirectories(out);
        String command = System.getProperty("bench.command", "mvn -B -q -pl bench -am verify -DskipTests"
                + " -DskipReleaseArtifacts -Pdecode-peers");
        Files.writeString(out.resolve("decode-peers.md"), markdown(rows, bandwidth, threads, load, loadAverage(),
                command));
        Files.writeString(out.resolve("decode-peers.json"), json(rows, bandwidth, threads, load, command));
        System.out.println("decode bench: wrote " + out.resolve("decode-peers.md"));
        System.exit(0);
    }

    /** @return the first executable {@code name} on the {@code PATH}, else {@code name} */
    private static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return name;
    }

    private static List<String> list(String property, String fallback) {
        return Arrays.stream(System.getProperty(property, fallback).split(",")).map(String::trim)
                .filter(s -> !s.isEmpty()).toList();
    }

    /** The command line of one engine on the file of one kind of weights ({@code f32} … {@code q6_k}). */
    private static Run run(PeerModel model, PeerFiles files, String weights, String engine, int threads,
                           Path module) {
        String ids = String.join(",", Arrays.stream(model.prompt()).mapToObj(String::valueOf).toList());
        String tokens = String.valueOf(PeerModel.GENERATED);
        String classPath = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String type = weights.toUpperCase(Locale.ROOT);
        boolean folder = weights.equals("f32") || weights.equals("bf16");
        Map<String, String> env = new LinkedHashMap<>();
        List<String> c = new ArrayList<>();
        String input;
        switch (engine) {
            case "ejml", "nd4j" -> {
                Path file = folder ? files.hf(weights) : files.gguf(weights);
                input = file.getFileName().toString();
                env.put("OMP_NUM_THREADS", String.valueOf(threads));
                env.put("OPENBLAS_NUM_THREADS", String.valueOf(threads));
                c.addAll(List.of(java, "-XX:ActiveProcessorCount=" + threads, "-cp", classPath, "org.attn4j.cli.Main",
                        "generate", "--model", file.toString(), "--ids", ids, "--max-new", tokens, "--print-ids",
                        "--stats", "--backend", engine));
            }
            case "llama.cpp" -> {
                Path file = files.gguf(weights);
                input = file.getFileName().toString();
                c.addAll(List.of(java, "-cp", classPath, LlamaCppRun.class.getName(), file.toString(), ids, tokens,
                        String.valueOf(threads)));
            }
            case "node-llama-cpp" -> {
                Path file = files.gguf(weights);
                input = file.getFileName().toString();
                String node = System.getProperty("bench.node", "node");
                c.addAll(List.of(node.contains("/") ? node : onPath(node), module.resolve(NODE_SCRIPT).toString(),
                        file.toString(), ids, tokens, String.valueOf(threads)));
            }
            case "jlama" -> {
                if (!folder) {
                    return new Run(model, type, engine, "-", List.of(), env);
                }
                Path jlamaFolder = files.jlama(weights);
                input = "jlama-" + weights;
                c.addAll(List.of(System.getProperty("bench.jlama.java", TEMURIN_25),
                        "-XX:ActiveProcessorCount=" + threads,
                        "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp",
                        classPath, module.resolve("src/peers/JlamaRun.java").toString(), jlamaFolder.toString(), ids,
                        tokens, String.valueOf(threads)));
            }
            default -> throw new IllegalArgumentException("decode bench: no engine " + engine + "; known: "
                    + String.join(", ", ENGINES));
        }
        return new Run(model, type, engine, input, c, env);
    }

    /** Runs one engine in its own process and reads what it printed. */
    private static EngineResult execute(Run run) throws IOException, InterruptedException {
        if (run.command().isEmpty()) {
            return EngineResult.failed("not run: Jlama 0.8.4 reads Hugging Face folders, and multiplies 8-bit weights"
                    + " by no kernel (its I8 weights fail with UnsupportedOperationException: F32 in"
                    + " batchDotProduct); its quantized path is its own Q4");
        }
        if (!Files.isExecutable(Path.of(run.command().get(0)))) {
            return EngineResult.failed("no " + run.command().get(0) + (run.engine().equals("jlama")
                    ? " (set -Dbench.jlama.java to a Java 21+ java)" : " (set -Dbench.node to node 20+)"));
        }
        if (run.engine().equals("node-llama-cpp") && !Files.isDirectory(Path.of(run.command().get(1))
                .resolveSibling("node_modules"))) {
            return EngineResult.failed("node-llama-cpp is not installed: run npm ci in "
                    + Path.of(run.command().get(1)).getParent());
        }
        ProcessBuilder builder = new ProcessBuilder(run.command());
        builder.environment().putAll(run.environment());
        Process p = builder.start();
        CompletableFuture<String> out = read(p.getInputStream());
        CompletableFuture<String> err = read(p.getErrorStream());
        if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            return EngineResult.failed("no result within " + TIMEOUT_MINUTES + " minutes");
        }
        return EngineResult.parse(p.exitValue(), out.join(), err.join());
    }

    private static CompletableFuture<String> read(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }

    /** @return the PyTorch float64 ids of every model, or an empty object */
    private static JsonNode reference() throws IOException {
        try (InputStream in = DecodePeersMain.class.getResourceAsStream("reference-ids.json")) {
            return in == null ? JSON.createObjectNode() : JSON.readTree(in);
        }
    }

    /**
     * @return {@code equal}, where the ids first differ (with the reference's top-1 margin there, when it has
     *     margins), or why there is nothing to compare; the reference of a mix's file is its own, on the file's
     *     weights dequantized ({@code "NAME q4_k_m"}), the others share the BF16 folder's
     */
    private static String versusTorch(JsonNode reference, PeerModel model, String weights, EngineResult r) {
        JsonNode ref = reference.get(PeerFiles.MIXES.contains(weights) ? model.name() + " " + weights
                : model.name());
        if (ref == null || !ref.path("fingerprint").asText().equals(model.fingerprint())) {
            return "no reference for these weights (run decode_reference_ids.py)";
        }
        if (r.ids() == null) {
            return "no ids";
        }
        int[] expected = new int[ref.get("ids").size()];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = ref.get("ids").get(i).asInt();
        }
        int n = Math.min(expected.length, r.ids().length);
        for (int i = 0; i < n; i++) {
            if (expected[i] != r.ids()[i]) {
                JsonNode margin = ref.path("margins").path(i);
                return "differ from token " + i + (margin.isNumber() ? String.format(Locale.ROOT,
                        " (reference margin %.3g)", margin.asDouble()) : "");
            }
        }
        return r.ids().length == expected.length ? "equal" : "equal for " + n + " of " + expected.length;
    }

    private static String summary(Row row) {
        EngineResult r = row.result();
        if (r.error() != null) {
            return "failed: " + r.error();
        }
        return String.format(Locale.ROOT, "prefill %.1f tok/s, decode %.2f tok/s (%.0f%% of the bandwidth limit),"
                + " peak %.0f MiB, ids %s", r.prefill(), r.decode(), 100 * r.decode() / row.limit(), r.peakMiB(),
                row.versusTorch());
    }

    private static String markdown(List<Row> rows, double bandwidth, int threads, String loadBefore,
                                   String loadAfter, String command) {
        StringBuilder md = new StringBuilder();
        md.append("# Decoding against the peers\n\n");
        md.append(String.format(Locale.ROOT, "Greedy decoding of %d tokens after a %d-token prompt on %d threads;"
                + " random-weight Llamas in the shapes of SmolLM2-135M and TinyLlama-1.1B. Machine: %s; STREAM triad"
                + " %.1f GB/s on %d threads; load average %s before, %s after. Command: `%s`.%n%n",
                PeerModel.GENERATED, PeerModel.PROMPT, threads, cpuFlags(), bandwidth / 1e9, threads, loadBefore,
                loadAfter, command));
        md.append("| model | weights | engine | file | prefill tok/s | decode tok/s | × bandwidth limit | peak RSS MiB"
                + " | ids vs PyTorch float64 |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            EngineResult r = row.result();
            md.append("| ").append(row.run().model().name()).append(" | ").append(row.run().weights()).append(" | ")
                    .append(row.run().engine()).append(" | ").append(row.run().input()).append(" | ");
            if (r.error() != null) {
                md.append("failed: ").append(r.error().replace("|", "/")).append(" | | | | |\n");
                continue;
            }
            md.append(String.format(Locale.ROOT, "%.1f | %.2f | %.2f (limit %.1f tok/s) | %.0f | %s |%n",
                    r.prefill(), r.decode(), r.decode() / row.limit(), row.limit(), r.peakMiB(), row.versusTorch()));
        }
        md.append("\nRatios of the same model and weights: ejml ÷ llama.cpp, ÷ node-llama-cpp and ÷ Jlama (decode),"
                + " nd4j ÷ ejml (decode), ejml ÷ llama.cpp (prefill).\n\n| model | weights | ejml ÷ llama.cpp |"
                + " ejml ÷ node-llama-cpp | ejml ÷ Jlama | nd4j ÷ ejml | prefill ejml ÷ llama.cpp |\n"
                + "|---|---|---|---|---|---|---|\n");
        Map<String, Map<String, EngineResult>> byFile = new LinkedHashMap<>();
        for (Row row : rows) {
            byFile.computeIfAbsent(row.run().model().name() + " | " + row.run().weights(), k -> new LinkedHashMap<>())
                    .put(row.run().engine(), row.result());
        }
        byFile.forEach((key, engines) -> md.append("| ").append(key).append(" | ")
                .append(ratio(engines, "ejml", "llama.cpp", false)).append(" | ")
                .append(ratio(engines, "ejml", "node-llama-cpp", false)).append(" | ")
                .append(ratio(engines, "ejml", "jlama", false)).append(" | ")
                .append(ratio(engines, "nd4j", "ejml", false)).append(" | ")
                .append(ratio(engines, "ejml", "llama.cpp", true)).append(" |\n"));
        md.append("\nBandwidth limit: the triad's bytes per second ÷ the bytes of the matrices one token reads (every"
                + " projection of every block and the LM head, in the file's type). Each engine runs in a JVM of its"
                + " own; peak RSS is that process's VmHWM. Every engine is timed the same way, in its own JVM: prefill"
                + " until the first new token, decode over the rest; attn4j's prefill includes the JIT compiling its"
                + " kernels.\n");
        return md.toString();
    }

    private static String ratio(Map<String, EngineResult> engines, String a, String b, boolean prefill) {
        EngineResult x = engines.get(a);
        EngineResult y = engines.get(b);
        if (x == null || y == null || x.error() != null || y.error() != null) {
            return "";
        }
        return String.format(Locale.ROOT, "%.2f", prefill ? x.prefill() / y.prefill() : x.decode() / y.decode());
    }

    private static String json(List<Row> rows, double bandwidth, int threads, String load, String command)
            throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("command", command).put("machine", cpuFlags()).put("load", load).put("threads", threads)
                .put("triad_bytes_per_second", bandwidth);
        ArrayNode runs = root.putArray("runs");
        for (Row row : rows) {
            EngineResult r = row.result();
            ObjectNode n = runs.addObject();
            n.put("model", row.run().model().name()).put("weights", row.run().weights())
                    .put("engine", row.run().engine()).put("file", row.run().input())
                    .put("bytes_per_token", row.bytesPerToken())
                    .put("limit_tokens_per_second", row.limit());
            if (r.error() != null) {
                n.put("error", r.error());
                continue;
            }
            n.put("prefill_tokens_per_second", r.prefill()).put("decode_tokens_per_second", r.decode())
                    .put("peak_rss_mib", r.peakMiB()).put("load_seconds", r.loadSeconds())
                    .put("ids_vs_torch", row.versusTorch());
            ArrayNode ids = n.putArray("ids");
            for (int id : r.ids()) {
                ids.add(id);
            }
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** @return the CPU model and its SIMD flags */
    static String cpuFlags() {
        try {
            List<String> info = Files.readAllLines(Path.of("/proc/cpuinfo"));
            String name = info.stream().filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?");
            String flags = info.stream().filter(l -> l.startsWith("flags")).findFirst().orElse("");
            List<String> simd = new ArrayList<>();
            for (String f : List.of("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_bf16", "avx512_vnni",
                    "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8")) {
                if ((" " + flags + " ").contains(" " + f + " ")) {
                    simd.add(f);
                }
            }
            return name + ", " + Runtime.getRuntime().availableProcessors() + " processors, `" + String.join(" ", simd)
                    + "`";
        } catch (IOException e) {
            return "unknown";
        }
    }
}
