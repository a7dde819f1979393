package org.attn4j.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Whether a generated token costs the same early and late: a small GPT-2 and a small Llama-style decoder (random
 * weights under Hugging Face names, {@link #gpt2()} and {@link #llama()}) run decoding steps on each backend, and
 * every step's wall time is split into the backend's {@code attention} calls, its cache writes ({@code writeSlice})
 * and the rest (embedding, norms, projections, MLP, LM head, copying the logits out), timed by {@link OpTimer}.
 * <p>
 * The step that produces generated token {@code n} (default 2, 32, 128, 512) feeds token {@code n - 1} to a cache
 * holding the {@value #PROMPT}-token prompt and {@code n - 2} generated tokens. One cache per {@code n} is filled
 * once by a forward over that many random tokens; a round then runs one step on every cache in turn and
 * {@link KvCache#truncate truncates} each back, so the positions share whatever else the machine is doing, and the
 * report gives the median of each part over the rounds. "rest" flat while "attention" grows with the cache shows
 * that nothing is uploaded or copied per step beyond attention's reading of the cache. Two warm-up rounds first.
 * <p>
 * Arguments: the output folder (writes {@code generation.md}); system properties {@code bench.backends} (default
 * {@code ejml,nd4j}), {@code bench.tokens} (default {@code 2,32,128,512}), {@code bench.models} (default
 * {@code gpt2,llama}), {@code bench.rounds} (default 30).
 */
public final class GenerationBenchMain {
    private static final int PROMPT = 8;
    private static final int WARMUP = 2;

    private GenerationBenchMain() {
    }

    /**
     * @param args the output folder
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "results");
        String[] backends = System.getProperty("bench.backends", "ejml,nd4j").split(",");
        int[] tokens = Arrays.stream(System.getProperty("bench.tokens", "2,32,128,512").split(","))
                .mapToInt(Integer::parseInt).sorted().toArray();
        String[] models = System.getProperty("bench.models", "gpt2,llama").split(",");
        int rounds = Integer.getInteger("bench.rounds", 30);
        String loadBefore = load();
        List<String> lines = new ArrayList<>();
        lines.add("# Decoding: per-token cost early and late");
        lines.add("");
        lines.add("The step that generates token n (the cache holding an " + PROMPT + "-token prompt and n − 2"
                + " generated tokens), F32, random weights: median over " + rounds + " rounds (each round one step"
                + " at every n, the cache truncated back after it) of the step's wall time, of the backend's"
                + " `attention` calls, of its cache writes (`writeSlice`) and of the rest; rest × first is the"
                + " rest over that of the first n. " + describe("gpt2", gpt2()) + " " + describe("llama", llama()));
        lines.add("");
        lines.add("| backend | model | token n | total ms | attention ms | cache write ms | rest ms | rest × first |");
        lines.add("|---|---|---|---|---|---|---|---|");
        for (String backend : backends) {
            for (String model : models) {
                DecoderConfig config = model.equals("gpt2") ? gpt2() : llama();
                OpTimer timer = new OpTimer(Backends.load(backend));
                try (CausalLM lm = CausalLM.of(config, randomWeights(config, 1), timer.backend(), DType.F32)) {
                    long[][][] parts = steps(lm, timer, tokens, rounds);
                    double firstRest = median(parts[0], 3);
                    for (int i = 0; i < tokens.length; i++) {
                        double rest = median(parts[i], 3);
                        lines.add(String.format(Locale.ROOT, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.2f |",
                                backend, model, tokens[i], median(parts[i], 0) / 1e6, median(parts[i], 1) / 1e6,
                                median(parts[i], 2) / 1e6, rest / 1e6, rest / firstRest));
                        System.out.println(lines.get(lines.size() - 1));
                    }
                }
            }
        }
        lines.add("");
        lines.add("Load average before the run: " + loadBefore + "; after: " + load() + ".");
        Files.createDirectories(out);
        Files.write(out.resolve("generation.md"), lines);
        lines.forEach(System.out::println);
    }

    /**
     * @return per token count, per round, {total, attention, cache write, rest} in nanoseconds
     */
    private static long[][][] steps(CausalLM lm, OpTimer timer, int[] tokens, int rounds) {
        Random random = new Random(3);
        int vocab = lm.config().vocabSize();
        int longest = PROMPT + tokens[tokens.length - 1];
        KvCache[] caches = new KvCache[tokens.length];
        int[] filled = new int[tokens.length];
        long[][][] parts = new long[tokens.length][rounds][];
        try {
            for (int i = 0; i < tokens.length; i++) {
                caches[i] = lm.newCache(1, longest);
                filled[i] = PROMPT + tokens[i] - 2;
                try (Scope scope = lm.backend().newScope()) {
                    lm.next(scope, new int[][] {random.ints(filled[i], 0, vocab).toArray()}, caches[i]);
                }
            }
            for (int round = -WARMUP; round < rounds; round++) {
                for (int i = 0; i < tokens.length; i++) {
                    int[][] next = {{random.nextInt(vocab)}};
                    timer.reset();
                    long start = System.nanoTime();
                    try (Scope scope = lm.backend().newScope()) {
                        lm.next(scope, next, caches[i]).toFloatArray();
                    }
                    long total = System.nanoTime() - start;
                    caches[i].truncate(filled[i]);
                    if (round >= 0) {
                        long attention = timer.attentionNanos();
                        long write = timer.cacheWriteNanos();
                        parts[i][round] = new long[] {total, attention, write, total - attention - write};
                    }
                }
            }
        } finally {
            for (KvCache cache : caches) {
                if (cache != null) {
                    cache.close();
                }
            }
        }
        return parts;
    }

    private static double median(long[][] rows, int column) {
        long[] values = new long[rows.length];
        for (int i = 0; i < rows.length; i++) {
            values[i] = rows[i][column];
        }
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    private static String describe(String name, DecoderConfig c) {
        return String.format(Locale.ROOT, "%s: %d layers, hidden %d, %d heads over %d kv heads of %d, MLP %d,"
                + " vocabulary %d.", name, c.layers(), c.hidden(), c.heads(), c.kvHeads(), c.headDim(),
                c.intermediate(), c.vocabSize());
    }

    /** @return a GPT-2 of 4 layers, hidden 256, 4 heads of 64, vocabulary 2048, 1024 positions */
    static DecoderConfig gpt2() {
        return DecoderConfig.of(Map.of("model_type", "gpt2", "vocab_size", 2048, "n_embd", 256, "n_layer", 4,
                "n_head", 4, "n_positions", 1024), "bench gpt2");
    }

    /** @return a Llama of 4 layers, hidden 256, 8 query heads over 2 kv heads of 32, vocabulary 2048 */
    static DecoderConfig llama() {
        return DecoderConfig.of(Map.of("model_type", "llama", "vocab_size", 2048, "hidden_size", 256,
                "num_hidden_layers", 4, "num_attention_heads", 8, "num_key_value_heads", 2, "intermediate_size", 688,
                "rms_norm_eps", 1e-5, "max_position_embeddings", 4096), "bench llama");
    }

    /**
     * @param c a GPT-2 or Llama config
     * @param seed the seed of the normal values (scaled by 0.05; norm weights 1)
     * @return every parameter the model loads, under its Hugging Face name
     */
    static StateDict randomWeights(DecoderConfig c, long seed) {
        Random random = new Random(seed);
        Map<String, HostTensor> w = new HashMap<>();
        int e = c.hidden();
        if (c.type() == DecoderConfig.Type.GPT2) {
            put(w, random, "wte.weight", c.vocabSize(), e);
            put(w, random, "wpe.weight", c.maxPositions(), e);
            for (int l = 0; l < c.layers(); l++) {
                String p = "h." + l + ".";
                norm(w, p + "ln_1", e);
                put(w, random, p + "attn.c_attn.weight", e, 3 * e);
                put(w, random, p + "attn.c_attn.bias", 3 * e);
                put(w, random, p + "attn.c_proj.weight", e, e);
                put(w, random, p + "attn.c_proj.bias", e);
                norm(w, p + "ln_2", e);
                put(w, random, p + "mlp.c_fc.weight", e, c.intermediate());
                put(w, random, p + "mlp.c_fc.bias", c.intermediate());
                put(w, random, p + "mlp.c_proj.weight", c.intermediate(), e);
                put(w, random, p + "mlp.c_proj.bias", e);
            }
            norm(w, "ln_f", e);
        } else {
            int q = c.heads() * c.headDim();
            int kv = c.kvHeads() * c.headDim();
            put(w, random, "model.embed_tokens.weight", c.vocabSize(), e);
            for (int l = 0; l < c.layers(); l++) {
                String p = "model.layers." + l + ".";
                w.put(p + "input_layernorm.weight", ones(e));
                put(w, random, p + "self_attn.q_proj.weight", q, e);
                put(w, random, p + "self_attn.k_proj.weight", kv, e);
                put(w, random, p + "self_attn.v_proj.weight", kv, e);
                put(w, random, p + "self_attn.o_proj.weight", e, q);
                w.put(p + "post_attention_layernorm.weight", ones(e));
                put(w, random, p + "mlp.gate_proj.weight", c.intermediate(), e);
                put(w, random, p + "mlp.up_proj.weight", c.intermediate(), e);
                put(w, random, p + "mlp.down_proj.weight", e, c.intermediate());
            }
            w.put("model.norm.weight", ones(e));
            put(w, random, "lm_head.weight", c.vocabSize(), e);
        }
        return StateDict.of(w);
    }

    private static void put(Map<String, HostTensor> w, Random random, String name, int... dims) {
        float[] values = new float[Arrays.stream(dims).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (0.05 * random.nextGaussian());
        }
        w.put(name, HostTensor.of(values, dims));
    }

    private static void norm(Map<String, HostTensor> w, String prefix, int size) {
        w.put(prefix + ".weight", ones(size));
        w.put(prefix + ".bias", HostTensor.of(new float[size], size));
    }

    private static HostTensor ones(int size) {
        float[] values = new float[size];
        Arrays.fill(values, 1f);
        return HostTensor.of(values, size);
    }
}
