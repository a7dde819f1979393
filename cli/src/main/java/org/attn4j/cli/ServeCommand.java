package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.server.OpenAiServer;
import org.attn4j.server.ServedModels;
import org.attn4j.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j serve}: the {@code attn4j-server} OpenAI-compatible HTTP server for one or more models, until the
 * process is stopped (Ctrl-C, SIGTERM) or the thread running it is interrupted.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve models over OpenAI's HTTP API: /v1/embeddings (encoders), /v1/completions (decoders), "
                + "/v1/chat/completions (decoders with a chat template), /v1/rerank (cross-encoders), /v1/models, "
                + "/health, /metrics (Prometheus). Without --model it "
                + "serves the embedded all-MiniLM-L6-v2 as all-minilm-l6-v2. Binds 127.0.0.1 unless --host says "
                + "otherwise."},
        footer = {"", "Exit codes: 0 stopped, 1 failure (the address cannot be bound), 2 bad input."},
        defaultValueProvider = ServeCommand.Defaults.class)
final class ServeCommand implements Callable<Integer> {
    static final String DEFAULT_MODEL = "all-minilm-l6-v2";

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "[NAME=]PATH",
            description = {"a model to serve, under NAME (default: the folder's or file's name): a Hugging Face "
                    + "folder (an encoder, or a decoder of a family attn4j reads), or a .gguf decoder; repeatable"})
    private List<String> models = new ArrayList<>();

    @Option(names = "--rerank-model", paramLabel = "[NAME=]PATH",
            description = {"a cross-encoder to serve on /v1/rerank, under NAME (default: the folder's or file's "
                    + "name): a folder, .onnx file or model jar of a one-label BertForSequenceClassification, as "
                    + "'attn4j rerank' reads it; repeatable"})
    private List<String> rerankModels = new ArrayList<>();

    @Option(names = "--matryoshka", paramLabel = "NAME=D,D,...",
            description = {"sizes an encoder's model card allows its vectors to be cut to ('dimensions'); "
                    + "repeatable"})
    private List<String> matryoshka = new ArrayList<>();

    @Option(names = "--backend", paramLabel = "NAME", description = "the backend to run on (default: the selected one)")
    private String backend;

    @Option(names = "--host", paramLabel = "H",
            description = "the address to bind (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 for every "
                    + "interface)")
    private String host;

    @Option(names = "--port", paramLabel = "N",
            description = "the TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    private int port;

    @Option(names = "--max-body-bytes", paramLabel = "N", description = "the largest request body "
            + "(default: ${DEFAULT-VALUE})")
    private long maxBodyBytes;

    @Option(names = "--max-inputs", paramLabel = "N", description = "the most texts in one embeddings request "
            + "(default: ${DEFAULT-VALUE})")
    private int maxInputs;

    @Option(names = "--max-batch-texts", paramLabel = "N", description = "the most texts an encoder runs at once, "
            + "gathered across requests (default: ${DEFAULT-VALUE})")
    private int maxBatchTexts;

    @Option(names = "--batch-window-ms", paramLabel = "MS", description = "how long a batch waits for more requests "
            + "(default: ${DEFAULT-VALUE})")
    private long batchWindowMillis;

    @Option(names = "--max-queued-embeddings", paramLabel = "N", description = "embeddings requests that may wait; "
            + "more get 429 (default: ${DEFAULT-VALUE})")
    private int maxQueuedEmbeddings;

    @Option(names = {"--parallel", "--max-active-generations"}, paramLabel = "N", description = "generation slots: "
            + "the most generations decoded together, one batched model step for all (default: ${DEFAULT-VALUE})")
    private int maxActiveGenerations;

    @Option(names = "--max-queued-generations", paramLabel = "N", description = "generations that may wait for a "
            + "turn; more get 429 (default: ${DEFAULT-VALUE})")
    private int maxQueuedGenerations;

    @Option(names = "--max-tokens", paramLabel = "N", description = "the most new tokens a request may ask for "
            + "(default: ${DEFAULT-VALUE})")
    private int maxTokens;

    @Option(names = "--cache-bytes", paramLabel = "N", description = "bytes of keys and values kept of the prompts "
            + "read, so that a request starting with an earlier prompt's tokens (the same request, a chat's earlier "
            + "turns) reuses them in whole chunks of 64 tokens, with the same results; the least recently used go "
            + "first; 0 keeps none (default: ${DEFAULT-VALUE})")
    private long cacheBytes;

    @Option(names = "--request-timeout-s", paramLabel = "S", description = "the longest a request may take, waiting "
            + "included (default: ${DEFAULT-VALUE})")
    private long requestTimeoutSeconds;

    @Option(names = "--idle-timeout-s", paramLabel = "S", description = "how long a silent connection stays open "
            + "(default: ${DEFAULT-VALUE})")
    private long idleTimeoutSeconds;

    @Option(names = "--retry-after-s", paramLabel = "S", description = "the Retry-After of a 429 "
            + "(default: ${DEFAULT-VALUE})")
    private long retryAfterSeconds;

    @Option(names = "--api-key", paramLabel = "KEY",
            description = "a key clients must give as 'Authorization: Bearer KEY' on every endpoint but /health; "
                    + "repeatable (default: no key is asked for)")
    private List<String> apiKeys = new ArrayList<>();

    @Option(names = "--api-key-file", paramLabel = "FILE",
            description = "a file of such keys, one per line (blank lines skipped); with --api-key, either's keys "
                    + "are accepted")
    private Path apiKeyFile;

    @Override
    public Integer call() throws IOException, InterruptedException {
        ServerOptions options = options();
        Map<String, Path> named = named("--model", models, new LinkedHashMap<>());
        Map<String, Path> rerankers = named("--rerank-model", rerankModels, new LinkedHashMap<>(named));
        rerankers.keySet().removeAll(named.keySet());
        Map<String, int[]> sizes = sizes(named);
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        PrintWriter out = spec.commandLine().getOut();
        try (ServedModels served = new ServedModels()) {
            if (named.isEmpty()) {
                long start = System.nanoTime();
                served.addEncoder(DEFAULT_MODEL, SentenceEmbedder.loadDefault(choice.backend(),
                        EmbeddingOptions.defaults()), sizes.getOrDefault(DEFAULT_MODEL, new int[0]));
                CommandLog.loaded(spec.qualifiedName(), DEFAULT_MODEL, start);
            }
            for (Map.Entry<String, Path> m : named.entrySet()) {
                try {
                    served.load(m.getKey(), m.getValue(), choice.backend(), sizes.getOrDefault(m.getKey(),
                            new int[0]));
                } catch (IOException | IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--model " + m.getKey() + "=" + m.getValue()
                            + ": " + e.getMessage());
                }
            }
            for (Map.Entry<String, Path> m : rerankers.entrySet()) {
                try {
                    served.loadReranker(m.getKey(), m.getValue(), choice.backend());
                } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                    throw new ParameterException(spec.commandLine(), "--rerank-model " + m.getKey() + "="
                            + m.getValue() + ": " + e.getMessage());
                }
            }
            CountDownLatch stopped = new CountDownLatch(1);
            try (OpenAiServer server = OpenAiServer.start(served, options)) {
                Thread hook = new Thread(() -> {
                    server.close();
                    stopped.countDown();
                }, "attn4j-serve-stop");
                Runtime.getRuntime().addShutdownHook(hook);
                out.println("attn4j serve: " + String.join(", ", served.names()) + " on " + choice.backend().name()
                        + " (" + choice.reason() + ")");
                out.println("listening on " + server.baseUri() + " (Ctrl-C stops)");
                out.flush();
                try {
                    stopped.await();
                } finally {
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException shuttingDown) {
                        stopped.await();
                    }
                }
            } catch (InterruptedException e) {
                out.println("attn4j serve: stopped");
                out.flush();
            }
        }
        return 0;
    }

    private ServerOptions options() {
        try {
            return ServerOptions.defaults().withHost(host).withPort(port).withMaxBodyBytes(maxBodyBytes)
                    .withMaxInputs(maxInputs).withMaxBatchTexts(maxBatchTexts)
                    .withBatchWindow(Duration.ofMillis(batchWindowMillis)).withMaxQueuedEmbeddings(maxQueuedEmbeddings)
                    .withMaxActiveGenerations(maxActiveGenerations).withMaxQueuedGenerations(maxQueuedGenerations)
                    .withMaxTokens(maxTokens).withCacheBytes(cacheBytes).withRequestTimeout(Duration.ofSeconds(requestTimeoutSeconds))
                    .withIdleTimeout(Duration.ofSeconds(idleTimeoutSeconds))
                    .withRetryAfter(Duration.ofSeconds(retryAfterSeconds)).withApiKeys(keys());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage().replace("ServerOptions.with", "option "));
        }
    }

    /** @return the keys of --api-key and --api-key-file, in that order */
    private List<String> keys() {
        List<String> out = new ArrayList<>(apiKeys);
        if (apiKeyFile != null) {
            List<String> lines;
            try {
                lines = java.nio.file.Files.readAllLines(apiKeyFile);
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--api-key-file " + apiKeyFile + ": cannot be read ("
                        + e.getClass().getSimpleName() + ")");
            }
            List<String> read = lines.stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
            if (read.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--api-key-file " + apiKeyFile + ": holds no key");
            }
            out.addAll(read);
        }
        return out;
    }

    /** The defaults of the options that set {@link ServerOptions}: {@link ServerOptions#defaults()}'s, not copies. */
    static final class Defaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec arg) {
            if (!(arg instanceof OptionSpec option)) {
                return null;
            }
            ServerOptions d = ServerOptions.defaults();
            Object value = switch (option.longestName()) {
                case "--host" -> d.host();
                case "--port" -> d.port();
                case "--max-body-bytes" -> d.maxBodyBytes();
                case "--max-inputs" -> d.maxInputs();
                case "--max-batch-texts" -> d.maxBatchTexts();
                case "--batch-window-ms" -> d.batchWindow().toMillis();
                case "--max-queued-embeddings" -> d.maxQueuedEmbeddings();
                case "--max-active-generations" -> d.maxActiveGenerations();
                case "--max-queued-generations" -> d.maxQueuedGenerations();
                case "--max-tokens" -> d.maxTokens();
                case "--cache-bytes" -> d.cacheBytes();
                case "--request-timeout-s" -> d.requestTimeout().toSeconds();
                case "--idle-timeout-s" -> d.idleTimeout().toSeconds();
                case "--retry-after-s" -> d.retryAfter().toSeconds();
                default -> null;
            };
            return value == null ? null : String.valueOf(value);
        }
    }

    /**
     * @param option the option's name, for messages
     * @param values its values, {@code [NAME=]PATH} each
     * @param out the names already taken, with their paths; this option's are added
     * @return {@code out}: each value's name and path, in order; a name twice is bad input
     */
    private Map<String, Path> named(String option, List<String> values, Map<String, Path> out) {
        for (String m : values) {
            int eq = m.indexOf('=');
            String name;
            Path path;
            if (eq > 0 && !java.nio.file.Files.exists(Path.of(m))) {
                name = m.substring(0, eq);
                path = Path.of(m.substring(eq + 1));
            } else {
                path = Path.of(m);
                Path file = path.toAbsolutePath().normalize().getFileName();
                name = file == null ? m : file.toString().replaceFirst("\\.gguf$", "");
            }
            if (!java.nio.file.Files.exists(path)) {
                throw new ParameterException(spec.commandLine(), option + " " + m + ": " + path + " does not exist");
            }
            if (out.put(name, path) != null) {
                throw new ParameterException(spec.commandLine(), option + ": the name '" + name + "' is given twice;"
                        + " name the models with NAME=PATH");
            }
        }
        return out;
    }

    /** @return each --matryoshka's sizes by model name */
    private Map<String, int[]> sizes(Map<String, Path> named) {
        Map<String, int[]> out = new LinkedHashMap<>();
        for (String m : matryoshka) {
            int eq = m.indexOf('=');
            String name = eq > 0 ? m.substring(0, eq) : "";
            boolean known = named.isEmpty() ? name.equals(DEFAULT_MODEL) : named.containsKey(name);
            if (!known) {
                throw new ParameterException(spec.commandLine(), "--matryoshka " + m + ": give NAME=D,D,... with "
                        + "the name of a served model");
            }
            try {
                out.put(name, Arrays.stream(m.substring(eq + 1).split(",")).map(String::trim)
                        .mapToInt(Integer::parseInt).toArray());
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "--matryoshka " + m + ": the sizes must be whole "
                        + "numbers separated by commas");
            }
        }
        return out;
    }
}
