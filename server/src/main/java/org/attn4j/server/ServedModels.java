package org.attn4j.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * The models an {@link OpenAiServer} serves, each under a name that requests give as {@code model}: encoders for
 * {@code /v1/embeddings}. Fill it before the server starts; closing it closes every model it holds. Not thread-safe.
 *
 * <pre>{@code
 * try (ServedModels models = new ServedModels()) {
 *     models.addEncoder("all-minilm-l6-v2", SentenceEmbedder.loadDefault(Backends.load(), EmbeddingOptions.defaults()));
 *     try (OpenAiServer server = OpenAiServer.start(models, ServerOptions.defaults().withPort(0))) { ... }
 * }
 * }</pre>
 */
public final class ServedModels implements AutoCloseable {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}");

    private final Map<String, Object> models = new LinkedHashMap<>();

    /** An encoder and the output sizes its model card allows ({@code dimensions}); none: only its own. */
    record Encoder(String name, SentenceEmbedder embedder, int[] matryoshka) {
        boolean allows(int dimensions) {
            return dimensions == embedder.dimension() || Arrays.stream(matryoshka).anyMatch(d -> d == dimensions);
        }
    }

    /**
     * Serves a sentence encoder's embeddings.
     *
     * @param name the model name clients send
     * @param embedder the encoder; closed with this registry
     * @param matryoshkaDimensions the sizes its model card says its vectors may be cut to (a model trained with a
     *     Matryoshka loss); a request's {@code dimensions} must be one of them or the full size. Cut vectors keep
     *     their first {@code dimensions} numbers and, if the encoder normalises, are normalised again. None for a
     *     model not trained so: then {@code dimensions} may only be the full size.
     * @return this registry
     * @throws IllegalArgumentException if the name is taken or malformed, or a size is out of {@code [1, d)}
     */
    public ServedModels addEncoder(String name, SentenceEmbedder embedder, int... matryoshkaDimensions) {
        Objects.requireNonNull(embedder, "ServedModels.addEncoder: argument embedder is null");
        for (int d : matryoshkaDimensions) {
            if (d < 1 || d >= embedder.dimension()) {
                throw new IllegalArgumentException("ServedModels.addEncoder: Matryoshka size " + d + " of model "
                        + name + " must lie in [1, " + embedder.dimension() + ")");
            }
        }
        put(name, new Encoder(name, embedder, matryoshkaDimensions.clone()));
        return this;
    }

    private void put(String name, Object model) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("ServedModels: model name '" + name + "' must be 1 to 128 letters, "
                    + "digits or . _ : / @ + -, starting with a letter or digit");
        }
        if (models.containsKey(name)) {
            throw new IllegalArgumentException("ServedModels: the name '" + name + "' is already taken");
        }
        models.put(name, model);
    }

    /** @return the names, in the order they were added */
    public List<String> names() {
        return List.copyOf(models.keySet());
    }

    /** @return whether no model was added */
    public boolean isEmpty() {
        return models.isEmpty();
    }

    /** @return the models by name, in the order they were added (read-only) */
    Map<String, Object> all() {
        return Collections.unmodifiableMap(models);
    }

    /** Closes every model, the last added first; the registry is empty afterwards. */
    @Override
    public void close() {
        List<Object> held = new ArrayList<>(models.values());
        Collections.reverse(held);
        models.clear();
        RuntimeException failure = null;
        for (Object m : held) {
            try {
                if (m instanceof Encoder e) {
                    e.embedder().close();
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
