package org.attn4j.models.decoder;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.WeightCensus;

/**
 * A decoder-only language model of one of the families of {@link DecoderConfig.Type} (GPT-2, Llama 2 and 3.x,
 * Mistral, Qwen2 and 2.5, Qwen3, Gemma, Gemma 2, Gemma 3, Phi-3) whose weights live on one backend from
 * {@link #load} until {@link #close()}. {@link #forward} runs new tokens through the blocks against a
 * {@link KvCache} and returns their logits; {@code org.attn4j.models.generate.Generator} loops it.
 * {@link #step} advances several sequences, each with a cache of its own, in one pass;
 * {@code org.attn4j.models.generate.BatchDecoder} schedules it.
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
    /** A budget for {@link #warmUp} that covers the first tens of steps of a model of some hundred million weights. */
    public static final Duration DEFAULT_WARM_UP = Duration.ofMillis(500);
    /** The prompt tokens {@link #warmUp} runs at most. */
    private static final int WARM_PROMPT = 8;
    /** The decoding steps {@link #warmUp} runs at most. */
    private static final int WARM_STEPS = 32;

    private final DecoderConfig config;
    private final Backend backend;
    private final DType dtype;
    private final Scope weights;
    private final Architecture architecture;
    private final WeightCensus census;

    private CausalLM(DecoderConfig config, Backend backend, DType dtype, Scope weights, Architecture architecture,
                     WeightCensus census) {
        this.config = config;
        this.backend = backend;
        this.dtype = dtype;
        this.weights = weights;
        this.architecture = architecture;
        this.census = census;
    }

    /** The name of the mix of a checkpoint whose matrices keep their file's types and that names none. */
    private static final String AS_FILE = "as in the file";

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
     *     {@code .gguf} file: opened as a {@link Checkpoint} and built by {@link #from}
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, converted once here (for example Q8_0), or null to keep the
     *     file's (a BF16 checkpoint stays BF16; F64 matrices become F32 unless the dtype is F64)
     * @return the model, its weights bound
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if the config or the tensors do not describe a supported model
     */
    public static CausalLM load(Path folder, Backend backend, DType dtype, WeightType storage) throws IOException {
        return from(Checkpoint.open(folder, Checkpoint.Kind.DECODER), backend, dtype, storage);
    }

    /**
     * The decoder of a checkpoint: a folder's {@code config.json} read into its family's {@link DecoderConfig} and
     * its weights ({@link Checkpoint#parameters()}), or a GGUF file ({@link #load(Gguf.Contents, Backend, DType,
     * WeightType)}). Each tensor's memory map is given back as soon as the tensor is bound
     * ({@link HostTensor#release()}), so that loading holds the bound weights and the pages of about one tensor, not
     * the weights twice; a GGUF checkpoint therefore builds one model.
     *
     * @param checkpoint a decoder ({@link Checkpoint#open})
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, converted once here, or null to keep the file's
     * @return the model, its weights bound
     * @throws IOException if a weight file cannot be read
     * @throws IllegalArgumentException if the config or the tensors do not describe a supported model
     * @throws IllegalStateException if the checkpoint holds an encoder
     */
    public static CausalLM from(Checkpoint checkpoint, Backend backend, DType dtype, WeightType storage)
            throws IOException {
        checkpoint.requireKind("CausalLM.from", Checkpoint.Kind.DECODER);
        return build(checkpoint, backend, dtype, storage, null);
    }

    /**
     * The decoder of a checkpoint as {@link #from} builds it, each matrix quantized once to the type a llama.cpp mix
     * chooses for it ({@link QuantMix#typeOf}), as {@code llama-quantize} would write the checkpoint; the vectors
     * (norms, biases) stay in the activations' F32. Each tensor's memory map is given back once it is bound.
     *
     * @param checkpoint a decoder ({@link Checkpoint#open}): a Hugging Face folder or a GGUF file
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32
     * @param mix a producible mix ({@link QuantMix#isProducible()})
     * @return the model, its weights bound
     * @throws IOException if a weight file cannot be read
     * @throws IllegalArgumentException if the tensors do not describe a supported model, the dtype is not F32 or
     *     the mix is null or not producible
     * @throws IllegalStateException if the checkpoint holds an encoder
     */
    public static CausalLM quantized(Checkpoint checkpoint, Backend backend, DType dtype, QuantMix mix)
            throws IOException {
        checkpoint.requireKind("CausalLM.quantized", Checkpoint.Kind.DECODER);
        return build(checkpoint, backend, dtype, null, checkMix(mix, dtype));
    }

    private static CausalLM build(Checkpoint checkpoint, Backend backend, DType dtype, WeightType storage,
                                  QuantMix mix) throws IOException {
        if (checkpoint.gguf().isPresent()) {
            return loadReleasing(checkpoint.gguf().get(), backend, dtype, storage, mix);
        }
        DecoderConfig config = config(checkpoint);
        StateDict state = checkpoint.parameters();
        try {
            return build(config, state, backend, dtype, storage, mix, name(null, storage, dtype, mix), false, true);
        } finally {
            state.asMap().values().forEach(HostTensor::release);
        }
    }

    /**
     * @param checkpoint a decoder ({@link Checkpoint#open})
     * @return the family's configuration: a folder's {@code config.json}, or a GGUF file's {@code <arch>.*} metadata
     * @throws IllegalArgumentException if it is not a family attn4j loads, or carries a key or a value attn4j would
     *     not honour
     * @throws IllegalStateException if the checkpoint holds an encoder
     */
    public static DecoderConfig config(Checkpoint checkpoint) {
        checkpoint.requireKind("CausalLM.config", Checkpoint.Kind.DECODER);
        if (checkpoint.gguf().isPresent()) {
            return GgufDecoder.read(checkpoint.gguf().get()).config();
        }
        return DecoderConfig.parse(checkpoint.configJson().orElseThrow(), checkpoint.configSource().orElseThrow());
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
        GgufDecoder.Decoded c = GgufDecoder.read(gguf);
        return build(c.config(), c.state(), backend, dtype, storage, null, name(gguf, storage, dtype), true, false);
    }

    /**
     * As {@link #load(Gguf.Contents, Backend, DType, WeightType)} for a caller that hands the contents over: each
     * tensor's memory map is given back as soon as the tensor is bound ({@link HostTensor#release()}), so that
     * loading holds the bound weights and the pages of about one tensor rather than the whole file's pages too;
     * the contents' tensors cannot be read afterwards. With a mix, each matrix is quantized once to the type the mix
     * chooses for it ({@link QuantMix#typeOf}).
     *
     * @param gguf a GGUF file's contents, given over
     * @param backend where the weights go
     * @param dtype the element type of activations and cache: F32, or F64 (every weight then F64)
     * @param storage every matrix's storage type, or null
     * @param mix the llama.cpp mix that chooses each matrix's type, or null; with a mix the storage is null and the
     *     dtype F32
     * @return the model, its weights bound
     * @throws IllegalArgumentException if the file does not describe a decoder attn4j runs as written, or both a
     *     storage type and a mix are given
     */
    public static CausalLM loadReleasing(Gguf.Contents gguf, Backend backend, DType dtype, WeightType storage,
                                         QuantMix mix) {
        GgufDecoder.Decoded c = GgufDecoder.read(gguf);
        try {
            QuantMix m = mix == null ? null : checkMix(mix, dtype);
            return build(c.config(), c.state(), backend, dtype, storage, m,
                    m != null ? m.name() : name(gguf, storage, dtype), true, true);
        } finally {
            gguf.tensors().asMap().values().forEach(HostTensor::release);
        }
    }

    private static QuantMix checkMix(QuantMix mix, DType dtype) {
        if (mix == null || !mix.isProducible()) {
            throw new IllegalArgumentException("decoder: mix " + mix + " cannot be produced; attn4j quantizes to "
                    + QuantMix.producibleNames());
        }
        if (dtype != DType.F32) {
            throw new IllegalArgumentException("decoder: the " + mix + " mix needs F32 activations, not " + dtype
                    + " (which holds every matrix in " + dtype + ")");
        }
        return mix;
    }

    /** @return the census's name for a GGUF file's matrices as the file holds them, or converted to one type */
    private static String name(Gguf.Contents gguf, WeightType storage, DType dtype) {
        if (dtype == DType.F64 || storage != null) {
            return dtype == DType.F64 ? WeightType.F64.name() : storage.name();
        }
        if (!gguf.has("general.file_type")) {
            return AS_FILE;
        }
        try {
            return QuantMix.nameOf(gguf.integer("general.file_type"));
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static String name(Gguf.Contents gguf, WeightType storage, DType dtype, QuantMix mix) {
        if (mix != null) {
            return mix.name();
        }
        if (gguf != null || dtype == DType.F64 || storage != null) {
            return name(gguf, storage, dtype);
        }
        return AS_FILE;
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
        return build(config, state, backend, dtype, storage, null, name(null, storage, dtype, null), false, false);
    }

    /**
     * @param owned whether this class read the files, so that each tensor's memory map is given back once it is
     *     bound (a caller's state_dict is left as it is)
     */
    private static CausalLM build(DecoderConfig config, StateDict state, Backend backend, DType dtype,
                                  WeightType storage, QuantMix mix, String name, boolean fromGguf, boolean owned) {
        if (config.type() == DecoderConfig.Type.GPT2) {
            Map<String, HostTensor> renamed = new HashMap<>();
            state.asMap().forEach((k, v) -> renamed.put(k.startsWith("transformer.") ? k.substring(12) : k, v));
            state = StateDict.of(renamed);
        }
        Scope scope = backend.newScope();
        try {
            Weights w = new Weights(state, scope, dtype, storage, mix, config.layers(),
                    config.tiedEmbeddings(), name, fromGguf, owned);
            Architecture a = config.bind(w);
            w.finish(config.type().modelType());
            return new CausalLM(config, backend, dtype, scope, a, w.census());
        } catch (RuntimeException e) {
            scope.close();
            throw e;
        }
    }

    /** @return the hyper-parameters */
    public DecoderConfig config() {
        return config;
    }

    /**
     * @return the parameters it holds, counted by storage type, with the mix's name and the bytes on the backend
     */
    public WeightCensus census() {
        return census;
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
     * {@link #warmUp(int[], Duration)} on the ids {@code 0, 1, …} (the first {@value #WARM_PROMPT} of the
     * vocabulary), for a caller that has no prompt yet (a server at start-up).
     *
     * @param budget the time to spend on decoding steps at most; zero runs nothing
     * @throws IllegalArgumentException if the budget is negative
     */
    public void warmUp(Duration budget) {
        int[] ids = new int[Math.min(WARM_PROMPT, config.vocabSize())];
        Arrays.setAll(ids, i -> i);
        warmUp(ids, budget);
    }

    /**
     * Runs the model on its own shapes before its first real call, as llama.cpp warms up at load, and drops what it
     * computes: the first {@value #WARM_PROMPT} of {@code ids} as a prompt, then one decoding step after another
     * ({@value #WARM_STEPS} at most) until {@code budget} is spent after the prompt (whose first forward also waits
     * for the backend's own warm-up of its kernels, where it has one). A step's work between its products (norms,
     * rotary embeddings, the cache, the ops' own checks) is Java code that the JVM runs interpreted until a method
     * has been called some hundreds of times, and compiles fully after some thousands; a layer calls each a few
     * times a step, so without this the first tens of tokens after load run at a fraction of the later rate.
     *
     * @param ids token ids to run, at least one, each in {@code [0, V)}: a prompt's, or any
     * @param budget the time to spend on decoding steps at most, checked after each; zero runs nothing
     * @throws IllegalArgumentException if {@code ids} is empty or holds an id outside the vocabulary, or the budget
     *     is negative
     */
    public void warmUp(int[] ids, Duration budget) {
        if (ids == null || ids.length == 0 || budget == null || budget.isNegative()) {
            throw new IllegalArgumentException("CausalLM.warmUp: arguments ids " + (ids == null ? null
                    : ids.length + " ids") + " and budget " + budget + "; at least one id and a budget not negative");
        }
        if (budget.isZero()) {
            return;
        }
        int room = config.type() == DecoderConfig.Type.GPT2 ? config.maxPositions() : Integer.MAX_VALUE;
        int[] head = Arrays.copyOf(ids, Math.max(1, Math.min(Math.min(ids.length, WARM_PROMPT), room - 1)));
        int steps = Math.max(0, Math.min(WARM_STEPS, room - head.length));
        try (KvCache cache = newCache(1, head.length + steps); Scope scope = backend.newScope()) {
            next(scope, new int[][] {head}, cache);
            long end = System.nanoTime() + budget.toNanos();
            for (int i = 0; i < steps && System.nanoTime() < end; i++) {
                try (Scope step = backend.newScope()) {
                    next(step, new int[][] {{ids[i % ids.length]}}, cache);
                }
            }
        }
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
     * One step of several sequences at once, each with a cache of its own: sequence {@code r}'s new tokens run after
     * what {@code caches.get(r)} holds, any number of them (one while decoding, a chunk of its prompt while
     * prefilling), and its keys and values are appended to that cache. Every projection, norm and MLP runs once over
     * the new tokens of all sequences, so a step reads the weights once; attention runs per sequence against its
     * cache. On a backend that declares {@code Capabilities.Feature.BATCH_INVARIANT} every op gives a row the same
     * bits whatever rows share the call (the kit's batch-invariance law), so a sequence's logits do not depend on the
     * others of the step. Alone, its step equals {@link #next} on its cache, on every backend.
     *
     * @param scope receives the logits
     * @param ids {@code ids[r]}: sequence {@code r}'s new token ids, at least one, each in {@code [0, V)}
     * @param caches one distinct cache of this model per sequence, each of batch 1, unpadded, with room for its new
     *     tokens
     * @return logits {@code [B, V]}: of each sequence's last new position, {@code B = ids.length}
     * @throws IllegalArgumentException naming the sequence if an argument breaks these rules
     */
    public Tensor step(Scope scope, int[][] ids, List<KvCache> caches) {
        checkStep(ids, caches);
        int b = ids.length;
        int[][] input = new int[b][];
        KvCache[] held = caches.toArray(new KvCache[0]);
        int beyond = config.recomputeBeyond();
        for (int r = 0; r < b; r++) {
            KvCache c = held[r];
            input[r] = ids[r];
            if (beyond > 0 && c.length() > 0 && c.length() <= beyond && c.length() + ids[r].length > beyond) {
                input[r] = c.history(new int[][] {ids[r]})[0];
                c.truncate(0);
            }
        }
        try (Scope work = backend.newScope()) {
            Ops t = work.ops();
            Tensor hidden = architecture.hidden(t, input, held);
            if (b > 1 || input[0].length > 1) {
                List<Integer> sizes = new ArrayList<>();
                for (int[] row : input) {
                    if (row.length > 1) {
                        sizes.add(row.length - 1);
                    }
                    sizes.add(1);
                }
                List<Tensor> pieces = t.split(hidden, sizes.stream().mapToInt(Integer::intValue).toArray(), 1);
                List<Tensor> last = new ArrayList<>(b);
                int at = 0;
                for (int[] row : input) {
                    at += row.length > 1 ? 2 : 1;
                    last.add(pieces.get(at - 1));
                }
                hidden = b == 1 ? last.get(0) : t.concat(last, 1);
            }
            Tensor logits = scope.adopt(architecture.logits(t, t.reshape(hidden, b, config.hidden())));
            for (int r = 0; r < b; r++) {
                held[r].record(new int[][] {input[r]});
                held[r].advance(input[r].length);
            }
            return logits;
        }
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

    private void checkStep(int[][] ids, List<KvCache> caches) {
        if (ids == null || caches == null || ids.length == 0 || ids.length != caches.size()) {
            throw new IllegalArgumentException("decoder.step: arguments ids and caches need one entry per sequence,"
                    + " at least one; ids has " + (ids == null ? "none" : ids.length) + ", caches "
                    + (caches == null ? "none" : caches.size()));
        }
        List<String> problems = new ArrayList<>();
        Set<KvCache> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int r = 0; r < ids.length; r++) {
            KvCache c = caches.get(r);
            if (c == null || c.batch() != 1 || c.padded() || !seen.add(c)) {
                problems.add("sequence " + r + "'s cache " + (c == null ? "is null" : c.batch() != 1 ? "has batch "
                        + c.batch() + ", not 1" : c.padded() ? "is padded" : "is also another sequence's"));
                continue;
            }
            if (ids[r] == null || ids[r].length == 0) {
                problems.add("sequence " + r + " has no new token");
                continue;
            }
            for (int id : ids[r]) {
                if (id < 0 || id >= config.vocabSize()) {
                    problems.add("sequence " + r + " holds id " + id + " outside [0, " + config.vocabSize() + ")");
                    break;
                }
            }
            if (c.length() + ids[r].length > c.capacity()) {
                problems.add("sequence " + r + "'s " + ids[r].length + " new tokens do not fit its cache ("
                        + c.length() + " of " + c.capacity() + " positions used)");
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("decoder.step: " + String.join("; ", problems));
        }
    }

    @Override
    public void close() {
        weights.close();
    }
}
