package org.attn4j.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkEnv;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * The models of this JVM (an executor, or the driver in local mode): one {@link SentenceEmbedder} per
 * {@link ModelKey}, loaded by the first task that needs it and shared by every later task and thread; nothing of it
 * travels with a task. A shutdown hook closes them and deletes the local copies of remote folders when the JVM
 * exits, which is how an executor ends.
 */
final class ExecutorModels {

    private static final Map<ModelKey, Loaded> MODELS = new ConcurrentHashMap<>();
    private static final AtomicInteger LOADS = new AtomicInteger();
    private static final Object LOADING = new Object();
    private static volatile boolean hookAdded;

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
        Path copy = null;
        try {
            if (key.modelPath().isEmpty()) {
                return new Loaded(SentenceEmbedder.loadDefault(backend, key.options()), null);
            }
            Path folder;
            if (ModelFiles.isLocal(key.modelPath())) {
                folder = ModelFiles.local(key.modelPath());
            } else {
                copy = ModelFiles.copyToLocal(key.modelPath(), ModelFiles.deserialize(hadoopConf));
                folder = copy;
            }
            return new Loaded(SentenceEmbedder.load(folder, backend, key.options()), copy);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(copy);
            throw new IllegalStateException("attn4j-spark on " + where() + ": cannot load "
                    + key.describeModel() + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param name a provider's name, or empty for {@link Backends#load()}'s choice
     * @return the backend
     * @throws IllegalStateException with {@code Backends}' list of every provider and why each is usable or not
     */
    static Backend backend(String name) {
        try {
            return name.isEmpty() ? Backends.load() : Backends.load(name);
        } catch (IllegalStateException e) {
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
