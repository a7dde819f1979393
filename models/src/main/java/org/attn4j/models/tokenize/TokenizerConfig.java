package org.attn4j.models.tokenize;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a Hugging Face folder's {@code tokenizer_config.json} says beyond {@code tokenizer.json}: the special tokens
 * by role ({@code bos_token}, {@code eos_token}, …, each a string or an {@code AddedToken} object; a role missing
 * there is taken from {@code special_tokens_map.json}), whether encoding adds BOS and EOS ({@code add_bos_token},
 * {@code add_eos_token}), the tokenizer class, {@code clean_up_tokenization_spaces}, and the chat templates
 * ({@code chat_template} as one string or a list of named ones; else {@code chat_template.jinja} or
 * {@code chat_template.json} next to it).
 *
 * <p>Keys that would change the ids and that attn4j does not implement are refused by name:
 * {@code add_prefix_space: true} (transformers then rebuilds the tokenizer from the SentencePiece model, which
 * attn4j does not read) and {@code split_special_tokens: true}. Keys that only matter to transformers' slow
 * tokenizers, padding, truncation on request or bookkeeping ({@code legacy}, {@code model_max_length},
 * {@code padding_side}, {@code sp_model_kwargs}, {@code added_tokens_decoder}, …) are listed by
 * {@link #ignoredKeys()}; {@code added_tokens_decoder} is checked against {@code tokenizer.json} by
 * {@link Tokenizer#fromFolder}.
 */
public final class TokenizerConfig {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY).build();
    private static final List<String> ROLES = List.of("bos_token", "eos_token", "unk_token", "sep_token",
            "pad_token", "cls_token", "mask_token");
    private static final Set<String> READ = Set.of("bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
            "cls_token", "mask_token", "additional_special_tokens", "add_bos_token", "add_eos_token",
            "tokenizer_class", "clean_up_tokenization_spaces", "chat_template", "add_prefix_space",
            "split_special_tokens");

    private final Map<String, String> specialTokens;
    private final List<String> additionalSpecialTokens;
    private final Boolean addBosToken;
    private final Boolean addEosToken;
    private final String tokenizerClass;
    private final boolean cleanUpTokenizationSpaces;
    private final Map<String, String> chatTemplates;
    private final Map<Integer, String> addedTokensDecoder;
    private final List<String> ignoredKeys;
    private final String source;

    private TokenizerConfig(Map<String, String> specialTokens, List<String> additionalSpecialTokens,
                            Boolean addBosToken, Boolean addEosToken, String tokenizerClass, boolean cleanUp,
                            Map<String, String> chatTemplates, Map<Integer, String> addedTokensDecoder,
                            List<String> ignoredKeys, String source) {
        this.specialTokens = Map.copyOf(specialTokens);
        this.additionalSpecialTokens = List.copyOf(additionalSpecialTokens);
        this.addBosToken = addBosToken;
        this.addEosToken = addEosToken;
        this.tokenizerClass = tokenizerClass;
        this.cleanUpTokenizationSpaces = cleanUp;
        this.chatTemplates = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(chatTemplates));
        this.addedTokensDecoder = Map.copyOf(addedTokensDecoder);
        this.ignoredKeys = List.copyOf(ignoredKeys);
        this.source = source;
    }

    /** @return an empty configuration: no special tokens, no templates */
    public static TokenizerConfig empty() {
        return new TokenizerConfig(Map.of(), List.of(), null, null, null, false, Map.of(), Map.of(), List.of(),
                "(none)");
    }

    /**
     * @param folder a Hugging Face model folder
     * @return its {@code tokenizer_config.json} (with {@code special_tokens_map.json} and a separate chat template
     *     file when present), or {@link #empty()} when it has none of them
     * @throws Tokenizer.FormatException if a file is not valid JSON, has a wrong type or a key attn4j refuses
     * @throws IOException if a file cannot be read
     */
    public static TokenizerConfig read(Path folder) throws IOException {
        Path file = folder.resolve("tokenizer_config.json");
        JsonNode root = Files.isRegularFile(file) ? parse(file) : JSON.createObjectNode();
        String where = file.toString();
        Map<String, String> special = new LinkedHashMap<>();
        for (String role : ROLES) {
            token(root.get(role), where + " " + role).ifPresent(t -> special.put(role, t));
        }
        Path map = folder.resolve("special_tokens_map.json");
        if (Files.isRegularFile(map)) {
            JsonNode m = parse(map);
            for (String role : ROLES) {
                if (!root.has(role)) {
                    token(m.get(role), map + " " + role).ifPresent(t -> special.put(role, t));
                }
            }
        }
        List<String> additional = new ArrayList<>();
        JsonNode extra = root.get("additional_special_tokens");
        if (extra != null && !extra.isNull()) {
            if (!extra.isArray()) {
                throw new Tokenizer.FormatException(where + ": additional_special_tokens is not a list");
            }
            for (int i = 0; i < extra.size(); i++) {
                additional.add(token(extra.get(i), where + " additional_special_tokens[" + i + "]")
                        .orElseThrow(() -> new Tokenizer.FormatException(where
                                + ": additional_special_tokens holds null")));
            }
        }
        if (bool(root, "add_prefix_space", where).orElse(false)) {
            throw new Tokenizer.FormatException(where + ": add_prefix_space is true; transformers then rebuilds the"
                    + " tokenizer from its SentencePiece model, which attn4j does not read (it reads tokenizer.json"
                    + " as it is)");
        }
        if (bool(root, "split_special_tokens", where).orElse(false)) {
            throw new Tokenizer.FormatException(where + ": split_special_tokens is true, which attn4j does not"
                    + " implement (special tokens in the text are always recognised)");
        }
        Map<String, String> templates = templates(root.get("chat_template"), where);
        if (templates.isEmpty()) {
            Path jinja = folder.resolve("chat_template.jinja");
            Path json = folder.resolve("chat_template.json");
            if (Files.isRegularFile(jinja)) {
                templates.put("default", Files.readString(jinja));
            } else if (Files.isRegularFile(json)) {
                templates.putAll(templates(parse(json).get("chat_template"), json.toString()));
            }
        }
        Map<Integer, String> decoder = new LinkedHashMap<>();
        JsonNode atd = root.get("added_tokens_decoder");
        if (atd != null && atd.isObject()) {
            for (Map.Entry<String, JsonNode> e : atd.properties()) {
                try {
                    decoder.put(Integer.parseInt(e.getKey()), token(e.getValue(), where + " added_tokens_decoder")
                            .orElse(""));
                } catch (NumberFormatException ex) {
                    throw new Tokenizer.FormatException(where + ": added_tokens_decoder key '" + e.getKey()
                            + "' is not an id");
                }
            }
        }
        Set<String> ignored = new TreeSet<>();
        root.fieldNames().forEachRemaining(k -> {
            if (!READ.contains(k)) {
                ignored.add(k);
            }
        });
        String tokenizerClass = root.hasNonNull("tokenizer_class") ? text(root, "tokenizer_class", where) : null;
        return new TokenizerConfig(special, additional, bool(root, "add_bos_token", where).orElse(null),
                bool(root, "add_eos_token", where).orElse(null), tokenizerClass,
                bool(root, "clean_up_tokenization_spaces", where).orElse(false), templates, decoder,
                new ArrayList<>(ignored), where);
    }

    private static JsonNode parse(Path file) throws IOException {
        try {
            JsonNode n = JSON.readTree(Files.readAllBytes(file));
            if (n == null || !n.isObject()) {
                throw new Tokenizer.FormatException(file + ": is not a JSON object");
            }
            return n;
        } catch (JacksonException e) {
            throw new Tokenizer.FormatException(file + ": not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static Optional<String> token(JsonNode n, String where) throws Tokenizer.FormatException {
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (n.isTextual()) {
            return Optional.of(n.asText());
        }
        if (n.isObject() && n.path("content").isTextual()) {
            return Optional.of(n.get("content").asText());
        }
        throw new Tokenizer.FormatException(where + " is " + n + ", not a token string or {\"content\": …}");
    }

    private static Optional<Boolean> bool(JsonNode root, String key, String where) throws Tokenizer.FormatException {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isBoolean()) {
            throw new Tokenizer.FormatException(where + ": " + key + " is " + n + ", not true or false");
        }
        return Optional.of(n.asBoolean());
    }

    private static String text(JsonNode root, String key, String where) throws Tokenizer.FormatException {
        JsonNode n = root.get(key);
        if (!n.isTextual()) {
            throw new Tokenizer.FormatException(where + ": " + key + " is " + n + ", not a string");
        }
        return n.asText();
    }

    private static Map<String, String> templates(JsonNode n, String where) throws Tokenizer.FormatException {
        Map<String, String> out = new LinkedHashMap<>();
        if (n == null || n.isNull()) {
            return out;
        }
        if (n.isTextual()) {
            out.put("default", n.asText());
            return out;
        }
        if (n.isArray()) {
            for (JsonNode t : n) {
                if (!t.path("name").isTextual() || !t.path("template").isTextual()) {
                    throw new Tokenizer.FormatException(where + ": chat_template list entry " + t
                            + " is not {\"name\": …, \"template\": …}");
                }
                out.put(t.get("name").asText(), t.get("template").asText());
            }
            return out;
        }
        throw new Tokenizer.FormatException(where + ": chat_template is " + n.getNodeType()
                + ", not a string or a list of named templates");
    }

    /**
     * @param role {@code bos_token}, {@code eos_token}, {@code unk_token}, {@code sep_token}, {@code pad_token},
     *     {@code cls_token} or {@code mask_token}
     * @return the token for that role, if the configuration names one
     */
    public Optional<String> specialToken(String role) {
        return Optional.ofNullable(specialTokens.get(role));
    }

    /** @return {@code additional_special_tokens}, in order */
    public List<String> additionalSpecialTokens() {
        return additionalSpecialTokens;
    }

    /** @return {@code add_bos_token}, if the file sets it */
    public Optional<Boolean> addBosToken() {
        return Optional.ofNullable(addBosToken);
    }

    /** @return {@code add_eos_token}, if the file sets it */
    public Optional<Boolean> addEosToken() {
        return Optional.ofNullable(addEosToken);
    }

    /** @return {@code tokenizer_class}, if the file names one */
    public Optional<String> tokenizerClass() {
        return Optional.ofNullable(tokenizerClass);
    }

    /** @return whether transformers' decode cleans spaces before punctuation ({@code clean_up_tokenization_spaces}) */
    public boolean cleanUpTokenizationSpaces() {
        return cleanUpTokenizationSpaces;
    }

    /** @return the chat templates by name ({@code default} for a single one), in the file's order */
    public Map<String, String> chatTemplates() {
        return chatTemplates;
    }

    /** @return the default chat template, if there is one */
    public Optional<String> chatTemplate() {
        return Optional.ofNullable(chatTemplates.get("default"));
    }

    /**
     * @return the special tokens as transformers hands them to a chat template ({@code special_tokens_map}): each
     *     role that has a token, and {@code additional_special_tokens} when there are some
     */
    public Map<String, Object> templateVariables() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String role : ROLES) {
            specialToken(role).ifPresent(t -> out.put(role, t));
        }
        if (!additionalSpecialTokens.isEmpty()) {
            out.put("additional_special_tokens", additionalSpecialTokens);
        }
        return out;
    }

    /** @return the file's keys that attn4j does not use because they do not change encoding or decoding, sorted */
    public List<String> ignoredKeys() {
        return ignoredKeys;
    }

    /** @return {@code added_tokens_decoder}: id → content */
    Map<Integer, String> addedTokensDecoder() {
        return addedTokensDecoder;
    }

    /** @return where the configuration was read from */
    String source() {
        return source;
    }

    /**
     * Whether transformers rebuilds the post-processor from {@code add_bos_token} and {@code add_eos_token}: its
     * Llama, CodeLlama and Gemma tokenizers always do (BOS on, EOS off unless the file says otherwise), the others
     * when the file sets either key.
     */
    boolean rebuildsTemplate() {
        String c = tokenizerClass == null ? "" : tokenizerClass.replaceFirst("Fast$", "");
        return c.equals("LlamaTokenizer") || c.equals("CodeLlamaTokenizer") || c.equals("GemmaTokenizer")
                || addBosToken != null || addEosToken != null;
    }

    /** @return whether encoding starts with BOS, when {@link #rebuildsTemplate()} */
    boolean addsBos() {
        String c = tokenizerClass == null ? "" : tokenizerClass.replaceFirst("Fast$", "");
        boolean llamaLike = c.equals("LlamaTokenizer") || c.equals("CodeLlamaTokenizer") || c.equals("GemmaTokenizer");
        return addBosToken != null ? addBosToken : llamaLike;
    }

    /** @return whether encoding ends with EOS, when {@link #rebuildsTemplate()} */
    boolean addsEos() {
        return addEosToken != null && addEosToken;
    }

    @Override
    public String toString() {
        return "TokenizerConfig[" + source + ", " + templateVariables() + ", templates " + chatTemplates.keySet() + "]";
    }
}
