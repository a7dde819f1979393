package org.attn4j.models.decoder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * A decoder-only language model of one of the families of {@link DecoderConfig.Type} (GPT-2, Llama 2 and 3.x,
 * Mistral, Qwen2 and 2.5, Qwen3, Gemma, Gemma 2, Gemma 3, Phi-3) whose weights live on one backend from
 * {@link #load} until {@link #close()}. {@link #forward} runs new tokens through the blocks against a
 * {@link KvCache} and returns their logits; {@code org.attn4j.models.generate.Generator} loops it.
 *
 * <pre>{@code
 * try (CausalLM model = CausalLM.load(folder, Backends.load(), DType.F32);
 *      KvCache cache = model.newCache(1, 64);
 *      Scope scope = model.backend().newScope()) {
 *     Tensor logits = model.forward(scope, new int[][] {{15496, 11, 995}}, cache);   // [1, 3, V]
 * }
 * }</pre>
 *
 * A model may be shared by threads, each with its own cache and scope.
 */
public final class CausalLM implements AutoCloseable {
    private final DecoderConfig config;
    private final Backend backend;
    private final DType dtype;
    private final Scope weights;
    private final Architecture architecture;

    private CausalLM(DecoderConfig config, Backend backend, DType dtype, Scope weights, Architecture architecture) {
        this.config = config;
        this.backend = backend;
        this.dtype = dtype;
        this.weights = weights;
        this.architecture = architecture;
    }

    /**
     * @param folder a Hugging Face folder: {@code config.json} and the weights, {@code model.safetensors} or the
     *     shards of {@code model.safetensors.index.json} (other {@code .safetensors} beside them, such as Mistral's
     *     {@code consolidated.safetensors} in its own names, are not read), else every {@code *.safetensors}
     * @param backend where the weights go
     * @param dtype the element type of activations and cache; matrices keep the file's storage type
     * @return the model, its weights bound
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if the config or the tensors do not describe a supported model
     */
    public static CausalLM load(Path folder, Backend backend, DType dtype) throws IOException {
        return load(folder, backend, dtype, null);
    }

    /**
     * @param folder a Hugging Face folder: {@code config.json} and one or more {@code *.safetensors}; or a
     *     {@code .gguf} file ({@link #load(Gguf.Contents, Backend, DType, WeightType)}). The files are memory-mapped
     *     and each tensor's map is given back as soon as the tensor is bound ({@link HostTensor#release()}), so that
     *     loading holds the bound weights and the pages of about one tensor, not the weights twice
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, converted once here (for example Q8_0), or null to keep the
     *     file's (a BF16 checkpoint stays BF16; F64 matrices become F32 unless the dtype is F64)
     * @return the model, its weights bound
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if the config or the tensors do not describe a supported model
     */
    public static CausalLM load(Path folder, Backend backend, DType dtype, WeightType storage) throws IOException {
        if (Files.isRegularFile(folder) && folder.getFileName().toString().endsWith(".gguf")) {
            Gguf.Contents gguf = Gguf.read(folder);
            try {
                GgufDecoder.Checkpoint c = GgufDecoder.read(gguf);
                return build(c.config(), c.state(), backend, dtype, storage, true, true);
            } finally {
                gguf.tensors().asMap().values().forEach(HostTensor::release);
            }
        }
        return load(DecoderConfig.read(folder), folder, backend, dtype, storage);
    }

    /**
     * The weights of a Hugging Face folder whose configuration is already read: {@code model.safetensors}, the
     * shards of {@code model.safetensors.index.json}, else every {@code *.safetensors}, each tensor's memory map
     * given back as soon as the tensor is bound.
     *
     * @param config the folder's configuration
     * @param folder the folder
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, converted once here, or null to keep the file's
     * @return the model, its weights bound
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if the tensors do not describe the configured model
     */
    public static CausalLM load(DecoderConfig config, Path folder, Backend backend, DType dtype, WeightType storage)
            throws IOException {
        if (Files.exists(folder.resolve("model.safetensors"))
                || Files.exists(folder.resolve("model.safetensors.index.json"))) {
            StateDict state = SafeTensors.readCheckpoint(folder).tensors();
            try {
                return build(config, state, backend, dtype, storage, false, true);
            } finally {
                state.asMap().values().forEach(HostTensor::release);
            }
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(folder)) {
            files = listing.filter(f -> f.getFileName().toString().endsWith(".safetensors")).sorted().toList();
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("decoder: " + folder + " has no .safetensors file");
        }
        Map<String, HostTensor> all = new HashMap<>();
        try {
            for (Path f : files) {
                all.putAll(SafeTensors.read(f).tensors().asMap());
            }
            return build(config, StateDict.of(all), backend, dtype, storage, false, true);
        } finally {
            all.values().forEach(HostTensor::release);
        }
    }

    /**
     * A decoder from a GGUF file as llama.cpp's converter writes it ({@code general.architecture} {@code llama},
     * {@code qwen2}, {@code qwen3}, {@code gemma}, {@code gemma2}, {@code gemma3}, {@code phi3} or {@code gpt2}, read
     * into the family's {@link DecoderConfig} with the converter's changes to the tensors undone); its tensors stay
     * memory-mapped in their file types (F32, F16, BF16, Q8_0, Q4_0) until each is bound, once. Every
     * {@code <arch>.*} key is honoured or refused by name, and so is every tensor name.
     *
     * <pre>{@code
     * Gguf.Contents file = Gguf.read(Path.of("model.gguf"));
     * Tokenizer tokenizer = Tokenizer.fromGguf(file);
     * try (CausalLM model = CausalLM.load(file, Backends.load(), DType.F32, null)) { ... }
     * }</pre>
     *
     * @param gguf a GGUF file's contents ({@link Gguf#read})
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, converted once here, or null to keep the file's
     * @return the model, its weights bound
     * @throws IllegalArgumentException if the file does not describe a decoder attn4j runs as written
     */
    public static CausalLM load(Gguf.Contents gguf, Backend backend, DType dtype, WeightType storage) {
        GgufDecoder.Checkpoint c = GgufDecoder.read(gguf);
        return build(c.config(), c.state(), backend, dtype, storage, true, false);
    }

    /**
     * @param gguf a GGUF file's contents ({@link Gguf#read})
     * @return the family's configuration its {@code <arch>.*} metadata states
     * @throws IllegalArgumentException if the file does not describe a decoder attn4j runs as written
     */
    public static DecoderConfig config(Gguf.Contents gguf) {
        return GgufDecoder.read(gguf).config();
    }

    /**
     * @param config the hyper-parameters
     * @param state the parameters under Hugging Face names (GPT-2's may carry the {@code transformer.} prefix)
     * @param backend where the weights go
     * @param dtype the element type they are converted to
     * @return the model
     * @throws IllegalArgumentException listing every missing, mis-shaped and unexpected name
     */
    public static CausalLM of(DecoderConfig config, StateDict state, Backend backend, DType dtype) {
        return of(config, state, backend, dtype, null);
    }

    /**
     * @param config the hyper-parameters
     * @param state the parameters under Hugging Face names (GPT-2's may carry the {@code transformer.} prefix)
     * @param backend where the weights go
     * @param dtype the element type of activations and cache
     * @param storage every matrix's storage type, or null to keep each one's own
     * @return the model
     */
    public static CausalLM of(DecoderConfig config, StateDict state, Backend backend, DType dtype,
                              WeightType storage) {
        return build(config, state, backend, dtype, storage, false, false);
    }

    /**
     * @param owned whether this class read the files, so that each tensor's memory map is given back once it is
     *     bound (a caller's state_dict is left as it is)
     */
    private static CausalLM build(DecoderConfig config, StateDict state, Backend backend, DType dtype,
                                  WeightType storage, boolean fromGguf, boolean owned) {
        if (config.type() == DecoderConfig.Type.GPT2) {
            Map<String, HostTensor> renamed = new HashMap<>();
            state.asMap().forEach((k, v) -> renamed.put(k.startsWith("transformer.") ? k.substring(12) : k, v));
            state = StateDict.of(renamed);
        }
        Scope scope = backend.newScope();
        try {
            Weights w = new Weights(state, scope, dtype, storage, fromGguf, owned);
            Architecture a = config.bind(w);
            w.finish(config.type().modelType());
            return new CausalLM(config, backend, dtype, scope, a);
        } catch (RuntimeException e) {
            scope.close();
            throw e;
        }
    }

    /** @return the hyper-parameters */
    public DecoderConfig config() {
        return config;
    }

    /** @return the backend holding the weights */
    public Backend backend() {
        return backend;
    }

    /** @return the element type of weights, activations and cache */
    public DType dtype() {
        return dtype;
    }

    /**
     * @param batch rows decoded together
     * @param capacity the most positions (prompt and generated) one row will hold
     * @return an empty cache for this model, on its backend
     */
    public KvCache newCache(int batch, int capacity) {
        if (config.type() == DecoderConfig.Type.GPT2 && capacity > config.maxPositions()) {
            throw new IllegalArgumentException("gpt2: a cache of " + capacity + " positions exceeds n_positions "
                    + config.maxPositions());
        }
        return new KvCache(backend, dtype, config.layers(), batch, config.kvHeads(), capacity, config.headDim());
    }

    /**
     * Runs new tokens through the model after the cache's positions, appends their keys and values to the cache
     * and returns the logits of every new position.
     *
     * @param scope receives the logits
     * @param ids {@code [B][L]} token ids, every row of one length, each id in {@code [0, V)}
     * @param cache this model's cache with room for {@code L} more positions
     * @return logits {@code [B, L, V]}
     */
    public Tensor forward(Scope scope, int[][] ids, KvCache cache) {
        return run(scope, ids, cache, Output.LOGITS);
    }

    /**
     * As {@link #forward}, but returns only the logits of each row's last new position, which is all that
     * generation needs, without the LM head's work for the others.
     *
     * @param scope receives the logits
     * @param ids {@code [B][L]} token ids
     * @param cache this model's cache
     * @return logits {@code [B, V]}
     */
    public Tensor next(Scope scope, int[][] ids, KvCache cache) {
        return run(scope, ids, cache, Output.LAST_LOGITS);
    }

    /**
     * As {@link #forward}, but returns the final norm's output instead of logits, for models that read the
     * decoder's hidden states (an embedding model pools them):
     * <pre>
     *   h = finalNorm(blocks(embed(ids)))      [B, L, E]      (Gemma's embedding scale, GPT-2's positions included)
     * </pre>
     * The LM head does no work. Left padding declared on the cache ({@link KvCache#setPadding}) hides the fillers
     * from every real token; the fillers' own rows are of no meaning.
     *
     * @param scope receives the hidden states
     * @param ids {@code [B][L]} token ids, every row of one length, each id in {@code [0, V)}
     * @param cache this model's cache with room for {@code L} more positions
     * @return hidden states {@code [B, L, E]}
     */
    public Tensor hidden(Scope scope, int[][] ids, KvCache cache) {
        return run(scope, ids, cache, Output.HIDDEN);
    }

    /** What {@link #run} returns. */
    private enum Output {
        LOGITS, LAST_LOGITS, HIDDEN
    }

    /**
     * Runs {@code ids} after the cache. Phi-3 with LongRoPE switches to its long factors once the sequence passes
     * {@code original_max_position_embeddings}; as transformers' {@code Phi3ForCausalLM} does, the first such forward
     * with a cache of no more than that many positions runs the cached tokens again with the new ones, so that the
     * cached keys are rotated as the new ones are.
     */
    private Tensor run(Scope scope, int[][] ids, KvCache cache, Output output) {
        check(ids, cache);
        int l = ids[0].length;
        int[][] input = ids;
        int beyond = config.recomputeBeyond();
        if (beyond > 0 && cache.length() > 0 && cache.length() <= beyond && cache.length() + l > beyond) {
            input = cache.history(ids);
            cache.truncate(0);
        }
        int n = input[0].length;
        try (Scope work = backend.newScope()) {
            Ops t = work.ops();
            Tensor hidden = architecture.hidden(t, input, cache);
            if (output == Output.LAST_LOGITS) {
                Tensor last = n == 1 ? hidden : t.split(hidden, new int[] {n - 1, 1}, 1).get(1);
                hidden = t.reshape(last, ids.length, config.hidden());
            } else if (n > l) {
                hidden = t.split(hidden, new int[] {n - l, l}, 1).get(1);
            }
            Tensor out = scope.adopt(output == Output.HIDDEN ? hidden : architecture.logits(t, hidden));
            cache.record(input);
            cache.advance(n);
            return out;
        }
    }

    private void check(int[][] ids, KvCache cache) {
        if (ids == null || ids.length != cache.batch() || ids[0] == null || ids[0].length == 0) {
            throw new IllegalArgumentException("decoder: argument ids needs " + cache.batch()
                    + " rows of at least one token, one per cache row");
        }
        List<String> problems = new ArrayList<>();
        for (int r = 0; r < ids.length; r++) {
            if (ids[r] == null || ids[r].length != ids[0].length) {
                problems.add("row " + r + " has " + (ids[r] == null ? "no" : ids[r].length) + " tokens, row 0 has "
                        + ids[0].length);
                continue;
            }
            for (int id : ids[r]) {
                if (id < 0 || id >= config.vocabSize()) {
                    problems.add("row " + r + " holds id " + id + " outside [0, " + config.vocabSize() + ")");
                    break;
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("decoder: argument ids: " + String.join("; ", problems));
        }
        if (cache.length() + ids[0].length > cache.capacity()) {
            throw new IllegalArgumentException("decoder: " + ids[0].length + " new tokens do not fit the cache ("
                    + cache.length() + " of " + cache.capacity() + " positions used)");
        }
    }

    @Override
    public void close() {
        weights.close();
    }
}
