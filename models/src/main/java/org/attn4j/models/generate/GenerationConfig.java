package org.attn4j.models.generate;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.io.Gguf;

/**
 * How a checkpoint means to be decoded: its {@code generation_config.json} (or, without one, the generation keys of
 * {@code config.json}, as transformers' {@code GenerationConfig.from_model_config} takes them; or a GGUF file's
 * metadata, {@link #fromGguf}). {@link #options()}
 * turns it into the {@link GenerationOptions} to start from; options set afterwards override it.
 *
 * <p>Keys read, with transformers' defaults where the file says nothing: {@code eos_token_id} (one id or a list),
 * {@code bos_token_id}, {@code pad_token_id}, {@code do_sample} (false: greedy, whatever the sampling keys say),
 * {@code temperature} (1.0), {@code top_k} (50), {@code top_p} (1.0), {@code min_p} (none), {@code repetition_penalty}
 * (1.0), {@code max_new_tokens} (when absent, {@link GenerationOptions#defaults()}' 64), {@code max_length} (only when
 * the file sets it: transformers' default of 20 is not applied), {@code min_new_tokens} and {@code min_length}
 * (stop tokens suppressed until reached).
 *
 * <p>Keys that never change the tokens are accepted with any value: bookkeeping ({@code transformers_version},
 * {@code _from_model_config}), output shapes ({@code output_scores}, {@code return_dict_in_generate} …), caching
 * ({@code use_cache}, {@code cache_implementation} …), {@code decoder_start_token_id} (encoder-decoder models only)
 * and the beam-search knobs that do nothing without beams ({@code length_penalty}, {@code early_stopping},
 * {@code diversity_penalty}). Keys that would change the tokens are accepted only at their neutral value (for example
 * {@code num_beams: 1}, {@code no_repeat_ngram_size: 0}, {@code typical_p: 1.0}, {@code bad_words_ids: null}); any
 * other value is refused with the key, the value and the file. Keys attn4j does not know are kept in
 * {@link #unknownKeys()}, for the caller to report.
 */
public final class GenerationConfig {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY).build();
    private static final Set<String> READ = Set.of("eos_token_id", "bos_token_id", "pad_token_id", "do_sample",
            "temperature", "top_k", "top_p", "min_p", "repetition_penalty", "max_new_tokens", "max_length",
            "min_new_tokens", "min_length");
    private static final Set<String> HARMLESS = Set.of("transformers_version", "_from_model_config", "use_cache",
            "output_attentions", "output_hidden_states", "output_scores", "output_logits", "return_dict_in_generate",
            "cache_implementation", "cache_config", "return_legacy_cache", "decoder_start_token_id", "length_penalty",
            "early_stopping", "diversity_penalty", "low_memory", "compile_config", "disable_compile",
            "renormalize_logits", "remove_invalid_values", "encoder_no_repeat_ngram_size", "trust_remote_code",
            "num_assistant_tokens", "num_assistant_tokens_schedule", "assistant_confidence_threshold",
            "assistant_lookbehind", "target_lookbehind", "is_assistant");
    /** Keys that change the tokens unless they hold their neutral value; the value is that neutral value. */
    private static final Map<String, Object> NEUTRAL = Map.ofEntries(Map.entry("num_beams", 1),
            Map.entry("num_beam_groups", 1), Map.entry("num_return_sequences", 1),
            Map.entry("no_repeat_ngram_size", 0), Map.entry("typical_p", 1.0), Map.entry("epsilon_cutoff", 0.0),
            Map.entry("eta_cutoff", 0.0), Map.entry("encoder_repetition_penalty", 1.0), Map.entry("guidance_scale", 1.0),
            Map.entry("token_healing", false));
    /** Keys that change the tokens unless {@code null} (or absent). */
    private static final Set<String> NULL_ONLY = Set.of("penalty_alpha", "bad_words_ids", "force_words_ids",
            "constraints", "forced_bos_token_id", "forced_eos_token_id", "exponential_decay_length_penalty",
            "suppress_tokens", "begin_suppress_tokens", "sequence_bias", "stop_strings", "watermarking_config",
            "dola_layers", "max_time", "prompt_lookup_num_tokens", "max_matching_ngram_size", "assistant_early_exit",
            "forced_decoder_ids", "negative_prompt_ids", "negative_prompt_attention_mask");

    private final int[] eosTokenIds;
    private final Integer bosTokenId;
    private final Integer padTokenId;
    private final boolean doSample;
    private final double temperature;
    private final int topK;
    private final double topP;
    private final double minP;
    private final double repetitionPenalty;
    private final Integer maxNewTokens;
    private final Integer maxLength;
    private final int minNewTokens;
    private final int minLength;
    private final List<String> unknownKeys;
    private final String source;

    private GenerationConfig(JsonNode root, String source, boolean fromModelConfig) {
        this.source = source;
        this.eosTokenIds = ids(root.get("eos_token_id"), "eos_token_id");
        this.bosTokenId = optionalId(root, "bos_token_id");
        this.padTokenId = optionalId(root, "pad_token_id");
        if (fromModelConfig) {
            this.doSample = false;
            this.temperature = 1.0;
            this.topK = 50;
            this.topP = 1.0;
            this.minP = 0;
            this.repetitionPenalty = 1.0;
            this.maxNewTokens = null;
            this.maxLength = null;
            this.minNewTokens = 0;
            this.minLength = 0;
            this.unknownKeys = List.of();
            return;
        }
        this.doSample = bool(root, "do_sample", false);
        this.temperature = number(root, "temperature", 1.0, 0, Double.MAX_VALUE, "at least 0");
        this.topK = integer(root, "top_k", 50, 0, "at least 0");
        this.topP = number(root, "top_p", 1.0, Double.MIN_VALUE, 1, "in (0, 1]");
        this.minP = number(root, "min_p", 0, 0, 1, "in [0, 1]");
        this.repetitionPenalty = number(root, "repetition_penalty", 1.0, Double.MIN_VALUE, Double.MAX_VALUE,
                "above 0");
        this.maxNewTokens = root.hasNonNull("max_new_tokens") ? integer(root, "max_new_tokens", 0, 0, "at least 0")
                : null;
        this.maxLength = root.hasNonNull("max_length") ? integer(root, "max_length", 0, 1, "at least 1") : null;
        this.minNewTokens = integer(root, "min_new_tokens", 0, 0, "at least 0");
        this.minLength = integer(root, "min_length", 0, 0, "at least 0");
        Set<String> unknown = new TreeSet<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (READ.contains(key) || HARMLESS.contains(key)) {
                continue;
            }
            if (NEUTRAL.containsKey(key)) {
                Object neutral = NEUTRAL.get(key);
                boolean ok = value.isNull() || (neutral instanceof Boolean b ? value.isBoolean() && value.asBoolean() == b
                        : value.isNumber() && value.asDouble() == ((Number) neutral).doubleValue());
                if (!ok) {
                    throw refuse(key, value, "only " + neutral + " is supported");
                }
            } else if (NULL_ONLY.contains(key)) {
                if (!value.isNull() && !(value.isArray() && value.isEmpty()) && !(value.isObject() && value.isEmpty())) {
                    throw refuse(key, value, "attn4j does not implement it");
                }
            } else {
                unknown.add(key);
            }
        }
        this.unknownKeys = List.copyOf(unknown);
    }

    /** @return the configuration of a checkpoint that says nothing: greedy, no stop token */
    public static GenerationConfig empty() {
        return new GenerationConfig(JSON.createObjectNode(), "(none)", false);
    }

    /**
     * @param folder a Hugging Face model folder
     * @return its {@code generation_config.json}; without one, the generation ids of its {@code config.json}; without
     *     either, {@link #empty()}
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if a file is not valid JSON, or a key holds a value attn4j cannot honour
     */
    public static GenerationConfig read(Path folder) throws IOException {
        Path file = folder.resolve("generation_config.json");
        if (Files.isRegularFile(file)) {
            return new GenerationConfig(parse(file), file.toString(), false);
        }
        Path config = folder.resolve("config.json");
        if (Files.isRegularFile(config)) {
            return new GenerationConfig(parse(config), config.toString(), true);
        }
        return empty();
    }

    /**
     * @param checkpoint a decoder ({@link Checkpoint#open})
     * @return a GGUF file's {@link #fromGguf}; a folder's {@code generation_config.json}; without one, the
     *     generation ids of its {@code config.json}; without either, {@link #empty()}
     * @throws IllegalArgumentException if a file is not valid JSON, or a key holds a value attn4j cannot honour
     * @throws IllegalStateException if the checkpoint holds an encoder
     */
    public static GenerationConfig of(Checkpoint checkpoint) {
        checkpoint.requireKind("GenerationConfig.of", Checkpoint.Kind.DECODER);
        if (checkpoint.gguf().isPresent()) {
            return fromGguf(checkpoint.gguf().get());
        }
        if (checkpoint.generationConfigJson().isPresent()) {
            return parse(checkpoint.generationConfigJson().get(), checkpoint.generationConfigSource().orElseThrow());
        }
        if (checkpoint.configJson().isPresent()) {
            String source = checkpoint.configSource().orElseThrow();
            return new GenerationConfig(tree(new String(checkpoint.configJson().get(), StandardCharsets.UTF_8),
                    source), source, true);
        }
        return empty();
    }

    /**
     * The generation intent a GGUF file carries, as llama.cpp reads it:
     * <ul>
     *   <li>{@code eos_token_id}: the end-of-generation ids llama.cpp stops at: {@code tokenizer.ggml.eos_token_id},
     *       {@code eot_token_id} and {@code eom_token_id} where the file has them, and the tokens llama.cpp takes
     *       for end-of-turn by their text ({@link #END_OF_TURN}: Llama 3's {@code <|eot_id|>}, {@code <|eom_id|>}
     *       and {@code <|end_of_text|>}, ChatML's {@code <|im_end|>}, {@code <|endoftext|>}, Phi-3's
     *       {@code <|end|>}, Gemma's {@code <end_of_turn>}, {@code <EOT>}), since the converter writes one EOS where
     *       a checkpoint's {@code generation_config.json} lists several;</li>
     *   <li>{@code bos_token_id} and {@code pad_token_id} from {@code bos_token_id} and
     *       {@code padding_token_id};</li>
     *   <li>the converter's copy of {@code generation_config.json}'s sampling defaults,
     *       {@code general.sampling.temp}, {@code top_k}, {@code top_p} and {@code min_p}: the file loses
     *       {@code do_sample}, and llama.cpp samples whenever they are set, so with any of them the model samples
     *       (temperature 1 unless {@code temp} says otherwise);</li>
     *   <li>llama.cpp's other samplers, accepted only where they change nothing: {@code general.sampling.mirostat}
     *       0, {@code xtc_probability} 0, {@code penalty_repeat} 1 (llama.cpp penalises the last
     *       {@code penalty_last_n} tokens, transformers all of them; with {@code penalty_last_n} -1 the two agree
     *       and the penalty is honoured); {@code sequence} (the samplers' order) is kept in {@link #unknownKeys()}.</li>
     * </ul>
     *
     * @param gguf a GGUF file's contents
     * @return its configuration
     * @throws IllegalArgumentException if a key holds a value attn4j cannot honour
     */
    public static GenerationConfig fromGguf(Gguf.Contents gguf) {
        ObjectNode root = JSON.createObjectNode();
        String source = "the GGUF file's metadata";
        try {
            List<String> tokens = gguf.has("tokenizer.ggml.tokens") ? gguf.strings("tokenizer.ggml.tokens")
                    : List.of();
            Set<Long> stops = new LinkedHashSet<>();
            for (String role : List.of("eos", "eot", "eom")) {
                String key = "tokenizer.ggml." + role + "_token_id";
                if (gguf.has(key)) {
                    stops.add(gguf.integer(key));
                }
            }
            for (int id = 0; id < tokens.size(); id++) {
                if (END_OF_TURN.contains(tokens.get(id))) {
                    stops.add((long) id);
                }
            }
            ArrayNode eos = root.putArray("eos_token_id");
            stops.forEach(eos::add);
            for (String[] id : new String[][] {{"bos_token_id", "bos_token_id"}, {"padding_token_id", "pad_token_id"}}) {
                if (gguf.has("tokenizer.ggml." + id[0])) {
                    root.put(id[1], gguf.integer("tokenizer.ggml." + id[0]));
                }
            }
            String s = "general.sampling.";
            boolean sample = false;
            for (String[] key : new String[][] {{"temp", "temperature"}, {"top_p", "top_p"}, {"min_p", "min_p"}}) {
                if (gguf.has(s + key[0])) {
                    root.put(key[1], gguf.number(s + key[0]));
                    sample = true;
                }
            }
            if (gguf.has(s + "top_k")) {
                root.put("top_k", gguf.integer(s + "top_k"));
                sample = true;
            }
            root.put("do_sample", sample);
            refuseUnless(gguf, s + "mirostat", 0, "attn4j has no Mirostat sampler");
            refuseUnless(gguf, s + "xtc_probability", 0, "attn4j has no XTC sampler");
            if (gguf.has(s + "penalty_repeat") && gguf.number(s + "penalty_repeat") != 1) {
                long lastN = gguf.has(s + "penalty_last_n") ? gguf.integer(s + "penalty_last_n") : 64;
                if (lastN != -1) {
                    throw new IllegalArgumentException("generation config: " + source + " sets " + s
                            + "penalty_repeat to " + gguf.number(s + "penalty_repeat") + " over the last " + lastN
                            + " tokens (" + s + "penalty_last_n), which changes the generated tokens; attn4j's"
                            + " repetition penalty covers the whole sequence");
                }
                root.put("repetition_penalty", gguf.number(s + "penalty_repeat"));
            }
            if (gguf.has(s + "sequence")) {
                root.put("general.sampling.sequence", gguf.string(s + "sequence"));
            }
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException("generation config: " + e.getMessage(), e);
        }
        return new GenerationConfig(root, source, false);
    }

    /** The token texts llama.cpp treats as end of generation in the families attn4j loads. */
    static final Set<String> END_OF_TURN = Set.of("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|im_end|>",
            "<|endoftext|>", "<|end|>", "<end_of_turn>", "<EOT>");

    private static void refuseUnless(Gguf.Contents gguf, String key, double neutral, String why)
            throws Gguf.FormatException {
        if (gguf.has(key) && gguf.number(key) != neutral) {
            throw new IllegalArgumentException("generation config: the GGUF file's metadata sets " + key + " to "
                    + gguf.number(key) + ", which changes the generated tokens; " + why);
        }
    }

    /**
     * @param json the text of a {@code generation_config.json}
     * @param source where it came from, for messages
     * @return its configuration
     * @throws IllegalArgumentException if it is not valid JSON, or a key holds a value attn4j cannot honour
     */
    public static GenerationConfig parse(String json, String source) {
        return new GenerationConfig(tree(json, source), source, false);
    }

    private static JsonNode tree(String json, String source) {
        try {
            JsonNode root = JSON.readTree(json);
            if (root == null || !root.isObject()) {
                throw new IllegalArgumentException("generation config: " + source + " is not a JSON object");
            }
            return root;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("generation config: " + source + " is not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    private static JsonNode parse(Path file) throws IOException {
        try {
            JsonNode root = JSON.readTree(Files.readAllBytes(file));
            if (root == null || !root.isObject()) {
                throw new IllegalArgumentException("generation config: " + file + " is not a JSON object");
            }
            return root;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("generation config: " + file + " is not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    private IllegalArgumentException refuse(String key, JsonNode value, String why) {
        return new IllegalArgumentException("generation config: " + source + " sets " + key + " to " + value
                + ", which changes the generated tokens; " + why);
    }

    private int[] ids(JsonNode n, String key) {
        if (n == null || n.isNull()) {
            return new int[0];
        }
        List<Integer> out = new ArrayList<>();
        for (JsonNode x : n.isArray() ? n : JSON.createArrayNode().add(n)) {
            if (!x.isIntegralNumber() || !x.canConvertToInt() || x.asInt() < 0) {
                throw new IllegalArgumentException("generation config: " + source + " " + key + " holds " + x
                        + ", not a token id");
            }
            out.add(x.asInt());
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private Integer optionalId(JsonNode root, String key) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isArray()) {
            int[] all = ids(n, key);
            return all.length == 0 ? null : all[0];
        }
        return ids(n, key)[0];
    }

    private boolean bool(JsonNode root, String key, boolean orElse) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (!n.isBoolean()) {
            throw new IllegalArgumentException("generation config: " + source + " " + key + " is " + n
                    + ", not true or false");
        }
        return n.asBoolean();
    }

    private double number(JsonNode root, String key, double orElse, double min, double max, String range) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (!n.isNumber() || !(n.asDouble() >= min && n.asDouble() <= max)) {
            throw new IllegalArgumentException("generation config: " + source + " " + key + " is " + n + ", not a"
                    + " number " + range);
        }
        return n.asDouble();
    }

    private int integer(JsonNode root, String key, int orElse, int min, String range) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min) {
            throw new IllegalArgumentException("generation config: " + source + " " + key + " is " + n + ", not an"
                    + " integer " + range);
        }
        return n.asInt();
    }

    /**
     * @return the options the checkpoint intends: its stop tokens; greedy unless {@code do_sample}, else its
     *     temperature; its top-k, top-p and min-p (which apply once a temperature above 0 is set); its repetition
     *     penalty, {@code max_new_tokens}, {@code max_length} and minimum length
     */
    public GenerationOptions options() {
        GenerationOptions o = GenerationOptions.defaults().withStopTokens(eosTokenIds)
                .withTemperature(doSample ? temperature : 0).withTopK(topK).withTopP(topP).withMinP(minP)
                .withRepetitionPenalty(repetitionPenalty).withMinNewTokens(minNewTokens);
        if (maxNewTokens != null) {
            o = o.withMaxNewTokens(maxNewTokens);
        }
        if (maxLength != null) {
            o = o.withMaxLength(maxLength);
        }
        return o;
    }

    /**
     * @param promptLength the prompt's length in tokens
     * @return {@link #options()} with {@code min_length} turned into a minimum of new tokens for this prompt
     */
    public GenerationOptions options(int promptLength) {
        GenerationOptions o = options();
        return minLength > promptLength ? o.withMinNewTokens(Math.max(minNewTokens, minLength - promptLength)) : o;
    }

    /** @return {@code max_new_tokens}, if the file sets it */
    public java.util.OptionalInt maxNewTokens() {
        return maxNewTokens == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(maxNewTokens);
    }

    /** @return the end-of-sequence ids ({@code eos_token_id}), possibly several, possibly none */
    public int[] eosTokenIds() {
        return eosTokenIds.clone();
    }

    /** @return {@code bos_token_id}, or -1 */
    public int bosTokenId() {
        return bosTokenId == null ? -1 : bosTokenId;
    }

    /** @return {@code pad_token_id}, or -1 */
    public int padTokenId() {
        return padTokenId == null ? -1 : padTokenId;
    }

    /** @return whether the checkpoint samples ({@code do_sample}) */
    public boolean doSample() {
        return doSample;
    }

    /** @return the file's keys that attn4j does not know (not read, not refused), sorted */
    public List<String> unknownKeys() {
        return unknownKeys;
    }

    /** @return where the configuration was read from */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return "GenerationConfig[" + source + ": " + options() + (unknownKeys.isEmpty() ? "" : ", unknown keys "
                + unknownKeys) + "]";
    }
}
