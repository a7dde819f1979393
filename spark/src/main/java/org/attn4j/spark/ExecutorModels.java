package org.attn4j.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkEnv;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.embed.SentenceEmbedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models of this JVM (an executor, or the driver in local mode): one {@link SentenceEmbedder} per
 * {@link ModelKey}, loaded by the first task that needs it and shared by every later task and thread; nothing of it
 * travels with a task. A shutdown hook closes them and deletes the local copies of remote folders when the JVM
 * exits, which is how an executor ends.
 *
 * <p>The backend gets the executor's cores as its thread count ({@link ExecutorThreads}), and each model load says
 * so in one INFO line through SLF4J, the logging Spark itself uses; nothing is logged per task or row.
 */
final class ExecutorModels {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorModels.class);
    private static final Map<ModelKey, Loaded> MODELS = new ConcurrentHashMap<>();
    private static final AtomicInteger LOADS = new AtomicInteger();
    private static final Object LOADING = new Object();
    private static volatile boolean hookAdded;
    private static volatile ExecutorThreads threads;

    private record Loaded(SentenceEmbedder embedder, Path copy) {
    }

    private ExecutorModels() {
    }

    /**
     * @param requested the model, backend and options; an empty backend is resolved here, so a model asked for by
     *     the backend's name and by the executor's default is the same model
     * @param hadoopConf the driver's Hadoop configuration, as {@link ModelFiles#serialize} wrote it
     * @return the embedder of {@code key}, loaded now if this JVM has none yet
     * @throws IllegalStateException if no backend is usable here (listing every provider and why) or the model
     *     cannot be read
     */
    static SentenceEmbedder get(ModelKey requested, byte[] hadoopConf) {
        Backend backend = backend(requested.backend());
        ModelKey key = requested.withBackend(backend.name());
        Loaded loaded = MODELS.get(key);
        if (loaded != null) {
            return loaded.embedder();
        }
        synchronized (LOADING) {
            loaded = MODELS.get(key);
            if (loaded == null) {
                addShutdownHook();
                loaded = load(key, backend, hadoopConf);
                MODELS.put(key, loaded);
                LOADS.incrementAndGet();
            }
            return loaded.embedder();
        }
    }

    /** @return the keys loaded in this JVM, each with the name of the backend it runs on */
    static Set<ModelKey> loaded() {
        return Set.copyOf(MODELS.keySet());
    }

    /** @return how many models this JVM has loaded since it started */
    static int loads() {
        return LOADS.get();
    }

    private static Loaded load(ModelKey key, Backend backend, byte[] hadoopConf) {
        long start = System.nanoTime();
        Path copy = null;
        try {
            Loaded loaded;
            if (key.modelPath().isEmpty()) {
                loaded = new Loaded(SentenceEmbedder.loadDefault(backend, key.options()), null);
            } else {
                Path folder;
                if (ModelFiles.isLocal(key.modelPath())) {
                    folder = ModelFiles.local(key.modelPath());
                } else {
                    copy = ModelFiles.copyToLocal(key.modelPath(), ModelFiles.deserialize(hadoopConf));
                    folder = copy;
                }
                loaded = new Loaded(SentenceEmbedder.from(Checkpoint.open(folder, Checkpoint.Kind.ENCODER), backend,
                        key.options()), copy);
            }
            LOG.info(loadLine(key, loaded.embedder(), (System.nanoTime() - start) / 1_000_000));
            return loaded;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(copy);
            throw new IllegalStateException("attn4j-spark on " + where() + ": cannot load "
                    + key.describeModel() + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param key the model loaded
     * @param embedder the loaded model
     * @param millis how long the load took, a remote folder's copy included
     * @return the line logged once per model load, for example {@code attn4j-spark on executor 1: loaded the
     *     embedded all-MiniLM-L6-v2 (384 dimensions, mean pooling, normalized, at most 256 tokens, batches of 32) on
     *     ejml with 1 thread (the executor's --cores) in 2140 ms}
     */
    static String loadLine(ModelKey key, SentenceEmbedder embedder, long millis) {
        Backend backend = embedder.backend();
        return "attn4j-spark on " + where() + ": loaded " + key.describeModel() + " (" + embedder.dimension()
                + " dimensions, " + embedder.pooling().name().toLowerCase(Locale.ROOT) + " pooling, "
                + (embedder.normalizes() ? "normalized" : "not normalized") + ", at most " + embedder.maxLength()
                + " tokens, batches of " + key.batchSize() + ") on " + backend.name() + " with "
                + threads().describe(backend.capabilities().maxThreads()) + " in " + millis + " ms";
    }

    /** @return this JVM's thread count for backends, decided once from its Spark environment */
    static ExecutorThreads threads() {
        ExecutorThreads t = threads;
        if (t == null) {
            SparkEnv env = SparkEnv.get();
            List<String> arguments = ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
            t = ExecutorThreads.of(env == null ? "driver" : env.executorId(),
                    k -> env == null ? null : env.conf().get(k, null), arguments);
            threads = t;
        }
        return t;
    }

    /**
     * @param name a provider's name, or empty for {@link Backends#load()}'s choice
     * @return the backend, with this executor's thread count ({@link #threads()})
     * @throws IllegalStateException with {@code Backends}' list of every provider and why each is usable or not
     */
    static Backend backend(String name) {
        try {
            return name.isEmpty() ? Backends.load(threads().options()) : Backends.load(name, threads().options());
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new IllegalStateException("attn4j-spark on " + where() + ": " + e.getMessage());
        } catch (LinkageError e) {
            String providers = Backends.describe().stream()
                    .map(p -> "\n  - " + p.name() + " (priority " + p.priority() + "): "
                            + (p.availability().available() ? "available" : "unavailable") + " — "
                            + p.availability().reason())
                    .collect(Collectors.joining());
            throw new IllegalStateException("attn4j-spark on " + where() + ": the attn4j backend "
                    + (name.isEmpty() ? "selected here" : "'" + name + "'") + " failed to start: " + e
                    + ". Providers found:" + providers, e);
        }
    }

    private static String where() {
        SparkEnv env = SparkEnv.get();
        return env == null ? "this JVM" : "executor " + env.executorId();
    }

    private static void addShutdownHook() {
        if (!hookAdded) {
            Runtime.getRuntime().addShutdownHook(new Thread(ExecutorModels::closeAll, "attn4j-spark-models"));
            hookAdded = true;
        }
    }

    private static void closeAll() {
        for (Loaded loaded : MODELS.values()) {
            loaded.embedder().close();
            deleteQuietly(loaded.copy());
        }
        MODELS.clear();
    }

    private static void deleteQuietly(Path copy) {
        if (copy == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(copy.getParent())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // the temporary directory stays behind; the JVM is exiting or the load already failed
        }
    }
}
