package org.attn4j.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.RerankOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationConfig;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * The models an {@link OpenAiServer} serves, each under a name that requests give as {@code model}: encoders for
 * {@code /v1/embeddings}, decoders for {@code /v1/completions}, decoders with a chat template for
 * {@code /v1/chat/completions} too, and cross-encoders for {@code /v1/rerank}. Fill it before the server starts;
 * closing it closes every model it holds. Not thread-safe.
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
     * A decoder: its model, tokenizer, the checkpoint's generation defaults (stop ids among them) and, when it has a
     * chat template, its chat model.
     */
    record Decoder(String name, CausalLM model, Tokenizer tokenizer, GenerationOptions defaults, ChatModel chat) {
    }

    /** A cross-encoder, for {@code /v1/rerank}. */
    record Reranker(String name, CrossEncoder encoder, StartupLog.FirstCall firstCall) {
        Reranker(String name, CrossEncoder encoder) {
            this(name, encoder, new StartupLog.FirstCall("rerank call of " + name));
        }
    }

    /**
     * Loads a model from a path and serves it: what the path holds is decided by {@link Checkpoint#open}. A decoder
     * (a folder whose {@code config.json} names a decoder family, or a {@code .gguf} file) needs a tokenizer and is
     * served for chat too when it has a chat template (a folder's {@code tokenizer_config.json}, a GGUF file's
     * {@code tokenizer.chat_template}); its generation defaults and stop ids are the checkpoint's
     * ({@code generation_config.json}, or the GGUF metadata). An encoder is served for embeddings.
     *
     * @param name the model name clients send
     * @param path a model folder or file
     * @param backend where its weights go
     * @param matryoshkaDimensions for an encoder, the sizes its model card allows (see {@link #addEncoder}); none
     *     for a decoder
     * @return this registry
     * @throws IOException if nothing attn4j reads is at the path ({@link Checkpoint.UnreadablePathException}), a
     *     file is unreadable, or a decoder has no tokenizer (the message says which)
     * @throws IllegalArgumentException if a configuration or the weights are refused, the name is taken, or sizes
     *     are given for a decoder
     */
    public ServedModels load(String name, Path path, Backend backend, int... matryoshkaDimensions)
            throws IOException {
        Objects.requireNonNull(path, "ServedModels.load: argument path is null");
        Objects.requireNonNull(backend, "ServedModels.load: argument backend is null");
        checkName(name);
        long start = System.nanoTime();
        Checkpoint checkpoint = Checkpoint.open(path);
        if (checkpoint.kind() == Checkpoint.Kind.ENCODER) {
            SentenceEmbedder e = SentenceEmbedder.from(checkpoint, backend, EmbeddingOptions.defaults());
            try {
                addEncoder(name, e, matryoshkaDimensions);
            } catch (RuntimeException failure) {
                e.close();
                throw failure;
            }
            StartupLog.loaded("encoder", name, start);
            return this;
        }
        if (matryoshkaDimensions.length > 0) {
            throw new IllegalArgumentException("ServedModels.load: " + path + " is a decoder; Matryoshka sizes "
                    + "apply to encoders only");
        }
        Tokenizer tokenizer = checkpoint.tokenizer().orElseThrow(() -> new IOException(path + " has no tokenizer ("
                + (checkpoint.format() == Checkpoint.Format.GGUF ? "no tokenizer.ggml.* metadata"
                : "no tokenizer.json, no vocab.json and merges.txt") + "); the server needs one to read prompts and"
                + " write text"));
        if (checkpoint.hasChatTemplate()) {
            addChatModel(name, ChatModel.from(checkpoint, backend, DType.F32));
            StartupLog.loaded("chat model", name, start);
            return this;
        }
        GenerationOptions defaults = GenerationConfig.of(checkpoint).options();
        CausalLM model = CausalLM.from(checkpoint, backend, DType.F32, null);
        model.warmUp(CausalLM.DEFAULT_WARM_UP);
        addDecoder(name, model, tokenizer, defaults);
        StartupLog.loaded("decoder", name, start);
        return this;
    }

    /**
     * Loads a cross-encoder from a path and serves it for {@code /v1/rerank}: a folder, {@code .onnx} file or model
     * jar of a one-label {@code BertForSequenceClassification}, as {@code attn4j rerank} reads it
     * ({@link CrossEncoder#from}, {@link RerankOptions#defaults()}: the activation its
     * {@code config.json} names).
     *
     * @param name the model name clients send
     * @param path a model folder or file
     * @param backend where its weights go
     * @return this registry
     * @throws IOException if nothing attn4j reads is at the path or a file is unreadable
     * @throws IllegalArgumentException if the path holds a decoder or no one-label classifier, or the name is taken
     */
    public ServedModels loadReranker(String name, Path path, Backend backend) throws IOException {
        Objects.requireNonNull(path, "ServedModels.loadReranker: argument path is null");
        Objects.requireNonNull(backend, "ServedModels.loadReranker: argument backend is null");
        checkName(name);
        long start = System.nanoTime();
        CrossEncoder encoder = CrossEncoder.from(Checkpoint.open(path, Checkpoint.Kind.ENCODER), backend,
                RerankOptions.defaults());
        try {
            addReranker(name, encoder);
        } catch (RuntimeException failure) {
            encoder.close();
            throw failure;
        }
        StartupLog.loaded("reranker", name, start);
        return this;
    }

    /**
     * Serves a cross-encoder's scores: {@code /v1/rerank}.
     *
     * @param name the model name clients send
     * @param encoder the cross-encoder; closed with this registry
     * @return this registry
     * @throws IllegalArgumentException if the name is taken or malformed
     */
    public ServedModels addReranker(String name, CrossEncoder encoder) {
        Objects.requireNonNull(encoder, "ServedModels.addReranker: argument encoder is null");
        put(name, new Reranker(name, encoder));
        return this;
    }

    /**
     * Serves a chat checkpoint: {@code /v1/chat/completions} through its chat template, and
     * {@code /v1/completions}, both with its generation defaults and stop ids.
     *
     * @param name the model name clients send
     * @param chat the chat model; closed with this registry
     * @return this registry
     * @throws IllegalArgumentException if the name is taken or malformed
     */
    public ServedModels addChatModel(String name, ChatModel chat) {
        Objects.requireNonNull(chat, "ServedModels.addChatModel: argument chat is null");
        put(name, new Decoder(name, chat.model(), chat.tokenizer(), chat.defaults(), chat));
        return this;
    }

    /**
     * Serves a decoder without a chat template: {@code /v1/completions} only.
     *
     * @param name the model name clients send
     * @param model the decoder; closed with this registry
     * @param tokenizer its tokenizer, which encodes prompts (with the special tokens it adds) and decodes replies
     * @param defaults what a request leaves unsaid: sampling, stop ids ({@link GenerationConfig#options()} of the
     *     checkpoint, or {@link GenerationOptions#defaults()})
     * @return this registry
     * @throws IllegalArgumentException if the name is taken or malformed
     */
    public ServedModels addDecoder(String name, CausalLM model, Tokenizer tokenizer, GenerationOptions defaults) {
        Objects.requireNonNull(model, "ServedModels.addDecoder: argument model is null");
        Objects.requireNonNull(tokenizer, "ServedModels.addDecoder: argument tokenizer is null");
        Objects.requireNonNull(defaults, "ServedModels.addDecoder: argument defaults is null");
        put(name, new Decoder(name, model, tokenizer, defaults, null));
        return this;
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
        checkName(name);
        models.put(name, model);
    }

    private void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("ServedModels: model name '" + name + "' must be 1 to 128 letters, "
                    + "digits or . _ : / @ + -, starting with a letter or digit");
        }
        if (models.containsKey(name)) {
            throw new IllegalArgumentException("ServedModels: the name '" + name + "' is already taken");
        }
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
                } else if (m instanceof Reranker r) {
                    r.encoder().close();
                } else if (m instanceof Decoder d) {
                    if (d.chat() != null) {
                        d.chat().close();
                    } else {
                        d.model().close();
                    }
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
