package org.attn4j.bench.decode;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.server.OpenAiServer;
import org.attn4j.server.ServedModels;
import org.attn4j.server.ServerOptions;

/**
 * Time to first token and inter-token latency of concurrent greedy streams over the socket, with their aggregate
 * tokens/s: an {@link OpenAiServer} in this JVM on loopback (port 0) serves the random-weight Llama of a
 * {@link PeerModel} shape, its {@code tokenizer.json} ({@link PeerFiles#tokenizerJson}) and no stop ids, so every
 * stream runs to {@code max_tokens}. For each level S (1, 4, 8, 16) a server with S generation slots
 * ({@code --parallel} S) and no prompt cache gets S streamed greedy {@code /v1/completions} at once from
 * java.net.http's client, each with a prompt of its own ({@link PeerModel#PROMPT} token ids,
 * {@link BatchedDecodeMain#prompts}): first a warm-up round of {@value #WARM_UP_TOKENS} tokens each (which also opens
 * the S connections), then the timed round ({@link StreamedCompletion}, {@link ServedLevel}). Each stream's text is
 * compared with the same prompt's text from a server with one slot, alone (batch invariance says they are equal).
 *
 * <p>Arguments: the output folder (writes {@code served-latency.md}); system properties {@code bench.backend}
 * (default {@code ejml}), {@code bench.model} ({@code smollm2-135m}), {@code bench.weights} ({@code f32}; also
 * {@code bf16}, {@code q8_0}), {@code bench.streams} ({@code 1,4,8,16}), {@code bench.tokens} (new tokens per stream,
 * default {@value PeerModel#GENERATED}).
 */
public final class ServedLatencyMain {
    /** The name the shape is served under. */
    static final String MODEL = "bench";
    /** The tokens each request of a warm-up round asks for (fewer when the run asks for fewer). */
    static final int WARM_UP_TOKENS = 8;

    private ServedLatencyMain() {
    }

    /**
     * @param args the output folder
     * @throws IOException if a request fails or the report cannot be written
     * @throws InterruptedException if interrupted while the streams run
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        Path out = Path.of(args.length > 0 ? args[0] : "results");
        String backend = System.getProperty("bench.backend", "ejml");
        PeerModel shape = PeerModel.named(System.getProperty("bench.model", PeerModel.SMOLLM2_135M.name()));
        WeightType weights = WeightType.valueOf(System.getProperty("bench.weights", "f32").toUpperCase(Locale.ROOT));
        int[] streams = Arrays.stream(System.getProperty("bench.streams", "1,4,8,16").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        int tokens = Integer.getInteger("bench.tokens", PeerModel.GENERATED);
        String loadBefore = load();
        List<ServedLevel> levels;
        Tokenizer tokenizer = tokenizer(shape);
        try (ServedModels served = new ServedModels()) {
            served.addDecoder(MODEL, CausalLM.of(BatchedDecodeMain.config(shape), BatchedDecodeMain.state(shape),
                    Backends.load(backend), DType.F32, weights == WeightType.F32 ? null : weights), tokenizer,
                    GenerationOptions.defaults());
            levels = measure(served, shape, streams, tokens);
        }
        List<String> lines = new ArrayList<>();
        lines.add("# Served decoding: time to first token and inter-token latency of concurrent greedy streams");
        lines.add("");
        lines.add(String.format(Locale.ROOT, "%s shape (%d layers, hidden %d, %d heads over %d kv heads, vocabulary"
                + " %d), random weights in %s, on %s, served by `OpenAiServer` in the same JVM on loopback with"
                + " `--parallel` = streams and no prompt cache. Per level a warm-up round (%d tokens each), then the"
                + " streams sent at once: streamed greedy `/v1/completions` of a %d-token prompt each, %d new tokens"
                + " (no stop ids). Seconds run from the first request sent to the last `[DONE]`, prompts included;"
                + " time to first token is send → first chunk with text; inter-token gaps are every stream's, pooled;"
                + " percentiles by nearest rank.", shape.source(), shape.layers(), shape.hidden(), shape.heads(),
                shape.kvHeads(), shape.vocab(), weights, backend, Math.min(tokens, WARM_UP_TOKENS), PeerModel.PROMPT,
                tokens));
        lines.add("");
        lines.addAll(table(levels));
        lines.add("");
        lines.add("Machine: " + DecodePeersMain.cpuFlags() + ", Java " + Runtime.version() + ". Load average before the"
                + " run: " + loadBefore + "; after: " + load() + ".");
        Files.createDirectories(out);
        Files.write(out.resolve("served-latency.md"), lines);
        lines.forEach(System.out::println);
    }

    /**
     * Runs every level against the decoder {@code served} holds as {@link #MODEL}.
     *
     * @param served holds the shape's decoder as {@link #MODEL}; stays open
     * @param shape the shape, for its prompts
     * @param streams the levels, each at least 1
     * @param tokens the new tokens per stream, at least 1
     * @return each level's measures, in the order given
     * @throws IOException if a request fails
     * @throws IllegalStateException if the server refuses a request
     * @throws InterruptedException if interrupted while the streams run
     */
    static List<ServedLevel> measure(ServedModels served, PeerModel shape, int[] streams, int tokens)
            throws IOException, InterruptedException {
        if (tokens < 1 || streams.length == 0 || Arrays.stream(streams).anyMatch(s -> s < 1)) {
            throw new IllegalArgumentException("served latency: streams " + Arrays.toString(streams) + " and tokens "
                    + tokens + "; it needs at least one level, each of at least 1 stream, and at least 1 token");
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ServerOptions options = ServerOptions.defaults().withPort(0).withCacheBytes(0)
                .withRequestTimeout(Duration.ofHours(1));
        int[][] prompts = BatchedDecodeMain.prompts(shape, Arrays.stream(streams).max().orElseThrow());
        String[] alone = new String[prompts.length];
        List<ServedLevel> levels = new ArrayList<>();
        try (OpenAiServer single = OpenAiServer.start(served, options.withMaxActiveGenerations(1))) {
            for (int s : streams) {
                int[][] mine = Arrays.copyOf(prompts, s);
                List<StreamedCompletion> got;
                try (OpenAiServer server = OpenAiServer.start(served, options.withMaxActiveGenerations(s))) {
                    round(client, server.baseUri(), mine, Math.min(tokens, WARM_UP_TOKENS));
                    got = round(client, server.baseUri(), mine, tokens);
                }
                boolean same = true;
                for (int i = 0; i < s; i++) {
                    if (alone[i] == null) {
                        alone[i] = StreamedCompletion.send(client, single.baseUri(), MODEL, prompts[i], tokens).text();
                    }
                    same &= alone[i].equals(got.get(i).text());
                }
                levels.add(ServedLevel.of(tokens, got, same));
                System.out.println(table(levels).get(levels.size() + 1));
            }
        }
        return levels;
    }

    /**
     * Sends one request per prompt, all at once (each on a thread of its own, released together), and reads every
     * stream to its end.
     *
     * @return the completions, in the prompts' order
     */
    private static List<StreamedCompletion> round(HttpClient client, URI base, int[][] prompts, int tokens)
            throws IOException, InterruptedException {
        ExecutorService threads = Executors.newFixedThreadPool(prompts.length);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<StreamedCompletion>> pending = new ArrayList<>();
            for (int[] prompt : prompts) {
                pending.add(threads.submit(() -> {
                    go.await();
                    return StreamedCompletion.send(client, base, MODEL, prompt, tokens);
                }));
            }
            go.countDown();
            List<StreamedCompletion> got = new ArrayList<>();
            for (Future<StreamedCompletion> f : pending) {
                try {
                    got.add(f.get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IllegalStateException("served latency: a stream failed: " + e.getCause(), e.getCause());
                }
            }
            return got;
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * @param levels the levels measured, at least one
     * @return a Markdown table of them, a header and a row per level; "× one stream" is the tokens/s over the first
     *     level's (one stream's when the levels start at 1)
     */
    static List<String> table(List<ServedLevel> levels) {
        List<String> rows = new ArrayList<>();
        rows.add("| streams | tokens | seconds | tokens/s | × one stream | TTFT p50 ms | TTFT p99 ms"
                + " | inter-token p50 ms | inter-token p99 ms | full length | text as alone |");
        rows.add("|---|---|---|---|---|---|---|---|---|---|---|");
        double first = levels.get(0).tokensPerSecond();
        for (ServedLevel l : levels) {
            rows.add(String.format(Locale.ROOT, "| %d | %d | %.3f | %.1f | %.2f | %s | %s | %s | %s | %s | %s |",
                    l.streams(), l.made(), l.seconds(), l.tokensPerSecond(), l.tokensPerSecond() / first,
                    millis(l.firstTokenMillis(), 0.5), millis(l.firstTokenMillis(), 0.99), millis(l.gapsMillis(), 0.5),
                    millis(l.gapsMillis(), 0.99), l.complete() ? "yes" : "NO", l.asAlone() ? "yes" : "NO"));
        }
        return rows;
    }

    /** @return the percentile to a tenth of a millisecond, or a dash for no values (one token per stream) */
    private static String millis(double[] values, double p) {
        return values.length == 0 ? "–" : String.format(Locale.ROOT, "%.1f", ServedLevel.percentile(values, p));
    }

    /** @return the shape's tokenizer: its {@code tokenizer.json} read from memory */
    static Tokenizer tokenizer(PeerModel shape) throws IOException {
        return Tokenizer.fromJson(new ByteArrayInputStream(
                PeerFiles.tokenizerJson(shape).getBytes(StandardCharsets.UTF_8)));
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
