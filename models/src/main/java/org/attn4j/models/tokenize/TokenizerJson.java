package org.attn4j.models.tokenize;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Reads a Hugging Face {@code tokenizer.json} (or GPT-2's {@code vocab.json} + {@code merges.txt}) into a
 * {@link PipelineTokenizer}, checking every part it uses: a wrong type, a missing token, an id out of range or a
 * component attn4j does not implement is a {@link Tokenizer.FormatException} naming the JSON path and, for a
 * component, its type. The components read:
 * <ul>
 *   <li>model: {@code BPE} (unk_token, fuse_unk, byte_fallback, ignore_merges; merges as {@code "a b"} or
 *       {@code ["a", "b"]}), {@code WordPiece} and {@code Unigram} (vocab as {@code [token, score]}, unk_id,
 *       byte_fallback; scores read as Hugging Face reads them, see {@link HuggingFaceFloat});</li>
 *   <li>normalizer: {@code BertNormalizer}, {@code Lowercase}, {@code NFD}/{@code NFC}/{@code NFKD}/{@code NFKC},
 *       {@code Precompiled}, {@code Prepend}, {@code Replace}, {@code Strip}, {@code StripAccents},
 *       {@code Sequence};</li>
 *   <li>pre_tokenizer: {@code BertPreTokenizer}, {@code ByteLevel}, {@code Split}, {@code Metaspace},
 *       {@code WhitespaceSplit}, {@code Digits}, {@code Sequence};</li>
 *   <li>post_processor: {@code TemplateProcessing}, {@code BertProcessing}, {@code RobertaProcessing},
 *       {@code ByteLevel} (offsets only), and a {@code Sequence} of them holding at most one template;</li>
 *   <li>decoder: {@code ByteLevel}, {@code WordPiece}, {@code Metaspace}, {@code Replace}, {@code ByteFallback},
 *       {@code Fuse}, {@code Strip}, {@code Sequence};</li>
 *   <li>added_tokens (content, id, lstrip, rstrip, single_word, normalized, special), truncation (longest first
 *       from the right) and padding's pad_id.</li>
 * </ul>
 */
final class TokenizerJson {
    /** Numbers with a fraction or exponent are read as written (see {@link HuggingFaceFloat}). */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();

    private final String source;

    private TokenizerJson(String source) {
        this.source = source;
    }

    static PipelineTokenizer read(byte[] bytes, String source) throws Tokenizer.FormatException {
        TokenizerJson r = new TokenizerJson(source);
        JsonNode root = r.parse(bytes);
        try {
            return r.tokenizer(root);
        } catch (IllegalArgumentException e) {
            throw new Tokenizer.FormatException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param folder a model folder
     * @param config its tokenizer_config.json
     * @return the folder's tokenizer with the configuration applied, as {@link Tokenizer#fromFolder} describes
     */
    static Tokenizer folder(Path folder, TokenizerConfig config) throws java.io.IOException {
        Path json = folder.resolve("tokenizer.json");
        Path vocab = folder.resolve("vocab.json");
        Path merges = folder.resolve("merges.txt");
        PipelineTokenizer base;
        if (Files.isRegularFile(json)) {
            base = read(Files.readAllBytes(json), json.toString());
        } else if (Files.isRegularFile(vocab) && Files.isRegularFile(merges)) {
            base = gpt2(Files.readAllBytes(vocab), Files.readString(merges), vocab.toString());
        } else {
            throw new Tokenizer.FormatException(folder + " has no tokenizer.json and no vocab.json + merges.txt");
        }
        for (Map.Entry<Integer, String> e : config.addedTokensDecoder().entrySet()) {
            String has = base.token(e.getKey()).orElse(null);
            if (!e.getValue().equals(has)) {
                throw new Tokenizer.FormatException(config.source() + ": added_tokens_decoder gives id " + e.getKey()
                        + " to '" + e.getValue() + "', which the tokenizer " + (has == null ? "does not have"
                        : "gives to '" + has + "'"));
            }
        }
        PipelineTokenizer.Parts parts = base.parts().withCleanUp(config.cleanUpTokenizationSpaces());
        if (config.rebuildsTemplate()) {
            parts = parts.withTemplate(Template.bosEos(
                    config.addsBos() ? special(base, config, "bos_token") : null,
                    config.addsEos() ? special(base, config, "eos_token") : null));
        }
        return new PipelineTokenizer(parts, base.maxLength(), base.padId());
    }

    private static Template.Piece special(Tokenizer base, TokenizerConfig config, String role)
            throws Tokenizer.FormatException {
        String token = config.specialToken(role).orElseThrow(() -> new Tokenizer.FormatException(config.source()
                + ": add_" + role + " is true but " + role + " is not set"));
        int id = base.id(token).orElseThrow(() -> new Tokenizer.FormatException(config.source() + ": " + role
                + " '" + token + "' is not in the tokenizer"));
        return new Template.Piece(false, false, List.of(id), List.of(token), 0);
    }

    static PipelineTokenizer gpt2(byte[] vocabJson, String merges, String source) throws Tokenizer.FormatException {
        TokenizerJson r = new TokenizerJson(source);
        Map<String, Integer> vocab = r.vocab(r.parse(vocabJson), "vocab.json");
        List<String[]> pairs = new ArrayList<>();
        String[] lines = merges.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if ((i == 0 && line.startsWith("#version")) || line.isEmpty()) {
                continue;
            }
            String[] ab = line.split(" ");
            if (ab.length != 2) {
                throw r.error("merges line " + (i + 1), "is not two symbols separated by one space: '" + line + "'");
            }
            pairs.add(ab);
        }
        List<AddedTokens.Token> added = new ArrayList<>();
        Integer eos = vocab.get("<|endoftext|>");
        if (eos != null) {
            added.add(new AddedTokens.Token("<|endoftext|>", eos, false, false, false, false, true));
        }
        try {
            ByteLevel byteLevel = new ByteLevel(false, true);
            PipelineTokenizer.Parts parts = new PipelineTokenizer.Parts(vocab, r.inverse(vocab, added),
                    new AddedTokens(added, UnaryOperator.identity()), UnaryOperator.identity(), byteLevel,
                    new Bpe(vocab, pairs, null, false, false, false), Template.NONE, byteLevel, false);
            return new PipelineTokenizer(parts, Integer.MAX_VALUE, eos == null ? 0 : eos);
        } catch (IllegalArgumentException e) {
            throw new Tokenizer.FormatException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Builds the {@code tokenizer.json} that Hugging Face's {@code BertTokenizerFast} derives from a
     * {@code vocab.txt} and {@code tokenizer_config.json}, and reads it.
     */
    static Tokenizer fromVocabTxt(String vocabTxt, byte[] tokenizerConfig, String source)
            throws Tokenizer.FormatException {
        TokenizerJson r = new TokenizerJson(source);
        JsonNode config = tokenizerConfig == null ? JSON.createObjectNode() : r.parse(tokenizerConfig);
        String[] lines = vocabTxt.split("\n", -1);
        int count = vocabTxt.endsWith("\n") ? lines.length - 1 : lines.length;
        com.fasterxml.jackson.databind.node.ObjectNode vocab = JSON.createObjectNode();
        for (int i = 0; i < count; i++) {
            vocab.put(lines[i], i);
        }
        if (vocab.isEmpty()) {
            throw r.error("vocab.txt", "holds no token");
        }
        if (config.has("do_basic_tokenize") && !config.path("do_basic_tokenize").asBoolean(true)) {
            throw r.error("tokenizer_config.do_basic_tokenize", "is false; attn4j splits words as BERT's basic "
                    + "tokenizer does");
        }
        if (config.path("never_split").isArray() && !config.path("never_split").isEmpty()) {
            throw r.error("tokenizer_config.never_split", "is not supported");
        }
        String kind = config.path("tokenizer_class").asText("BertTokenizer");
        if (!kind.endsWith("BertTokenizer") && !kind.endsWith("BertTokenizerFast")) {
            throw r.error("tokenizer_config.tokenizer_class", "'" + kind + "' is not a BERT WordPiece tokenizer");
        }
        if (!config.path("truncation_side").asText("right").equals("right")) {
            throw r.error("tokenizer_config.truncation_side", "is '" + config.path("truncation_side").asText()
                    + "'; attn4j truncates on the right");
        }
        String unk = r.specialToken(config, "unk_token", "[UNK]");
        String cls = r.specialToken(config, "cls_token", "[CLS]");
        String sep = r.specialToken(config, "sep_token", "[SEP]");
        String pad = r.specialToken(config, "pad_token", "[PAD]");
        String mask = r.specialToken(config, "mask_token", "[MASK]");
        com.fasterxml.jackson.databind.node.ObjectNode root = JSON.createObjectNode();
        com.fasterxml.jackson.databind.node.ArrayNode added = root.putArray("added_tokens");
        for (String t : List.of(pad, unk, cls, sep, mask)) {
            if (vocab.has(t)) {
                added.addObject().put("id", vocab.get(t).asInt()).put("content", t).put("single_word", false)
                        .put("lstrip", false).put("rstrip", false).put("normalized", false).put("special", true);
            }
        }
        for (String t : List.of(cls, sep)) {
            if (!vocab.has(t)) {
                throw r.error("vocab.txt", "has no '" + t + "', which BERT's template puts around every text");
            }
        }
        long maxLength = config.path("model_max_length").asLong(0);
        if (maxLength > 0 && maxLength <= 1_000_000) {
            root.putObject("truncation").put("max_length", (int) maxLength).put("strategy", "LongestFirst")
                    .put("direction", "Right").put("stride", 0);
        }
        root.putObject("padding").put("pad_id", vocab.path(pad).asInt(0));
        com.fasterxml.jackson.databind.node.ObjectNode normalizer = root.putObject("normalizer");
        normalizer.put("type", "BertNormalizer").put("clean_text", true)
                .put("handle_chinese_chars", config.path("tokenize_chinese_chars").asBoolean(true))
                .put("lowercase", config.path("do_lower_case").asBoolean(true));
        if (config.hasNonNull("strip_accents")) {
            normalizer.put("strip_accents", config.path("strip_accents").asBoolean());
        }
        root.putObject("pre_tokenizer").put("type", "BertPreTokenizer");
        com.fasterxml.jackson.databind.node.ObjectNode post = root.putObject("post_processor");
        post.put("type", "BertProcessing");
        post.putArray("cls").add(cls).add(vocab.get(cls).asInt());
        post.putArray("sep").add(sep).add(vocab.get(sep).asInt());
        root.putObject("decoder").put("type", "WordPiece").put("prefix", "##").put("cleanup", true);
        com.fasterxml.jackson.databind.node.ObjectNode model = root.putObject("model");
        model.put("type", "WordPiece").put("unk_token", unk).put("continuing_subword_prefix", "##")
                .put("max_input_chars_per_word", 100).set("vocab", vocab);
        try {
            return r.tokenizer(root);
        } catch (IllegalArgumentException e) {
            throw new Tokenizer.FormatException(source + ": " + e.getMessage(), e);
        }
    }

    /** A special token of a {@code tokenizer_config.json}: a string, or an object with its {@code content}. */
    private String specialToken(JsonNode config, String field, String orElse) throws Tokenizer.FormatException {
        JsonNode n = config.get(field);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (n.isTextual()) {
            return n.asText();
        }
        return text(n, "content", "tokenizer_config." + field + ".content");
    }

    private JsonNode parse(byte[] bytes) throws Tokenizer.FormatException {
        try {
            JsonNode root = JSON.readTree(bytes);
            if (root == null || !root.isObject()) {
                throw error("$", "is not a JSON object");
            }
            return root;
        } catch (JacksonException e) {
            throw new Tokenizer.FormatException(source + ": not valid JSON: " + e.getOriginalMessage(), e);
        } catch (java.io.IOException e) {
            throw new Tokenizer.FormatException(source + ": " + e.getMessage(), e);
        }
    }

    private PipelineTokenizer tokenizer(JsonNode root) throws Tokenizer.FormatException {
        JsonNode model = object(root, "model", "model");
        String type = model.has("type") ? text(model, "type", "model.type")
                : model.has("merges") ? "BPE" : "WordPiece";
        double[] scores = null;
        Map<String, Integer> vocab;
        if (type.equals("Unigram")) {
            JsonNode list = model.get("vocab");
            if (list == null || !list.isArray() || list.isEmpty()) {
                throw error("model.vocab", "is not a non-empty array of [token, score]");
            }
            scores = new double[list.size()];
            Map<String, Integer> pieces = new HashMap<>(list.size() * 2);
            for (int i = 0; i < list.size(); i++) {
                JsonNode e = list.get(i);
                if (!e.isArray() || e.size() != 2 || !e.get(0).isTextual() || !e.get(1).isNumber()) {
                    throw error("model.vocab[" + i + "]", "is not [token, score]");
                }
                try {
                    scores[i] = HuggingFaceFloat.of(e.get(1).decimalValue());
                } catch (IllegalArgumentException x) {
                    throw error("model.vocab[" + i + "][1]", x.getMessage());
                }
                if (pieces.put(e.get(0).asText(), i) != null) {
                    throw error("model.vocab[" + i + "]", "repeats the token '" + e.get(0).asText() + "'");
                }
            }
            vocab = Map.copyOf(pieces);
        } else {
            vocab = vocab(object(model, "vocab", "model.vocab"), "model.vocab");
        }
        UnaryOperator<String> normalizer = normalizer(root.get("normalizer"), "normalizer");
        List<AddedTokens.Token> added = addedTokens(root.get("added_tokens"), vocab);
        int maxLength = truncation(root.get("truncation"));
        int padId = padId(root.get("padding"), vocab);
        Template template = postProcessor(root.get("post_processor"), "post_processor");
        PreTokenizer preTokenizer = preTokenizer(root.get("pre_tokenizer"), "pre_tokenizer");
        Decoder decoder = decoder(root.get("decoder"), "decoder");
        Model m = switch (type) {
            case "WordPiece" -> wordPiece(model, vocab);
            case "BPE" -> bpe(model, vocab);
            case "Unigram" -> unigram(model, vocab, scores);
            default -> throw error("model.type", "'" + type + "' is not supported; attn4j reads BPE, WordPiece and"
                    + " Unigram");
        };
        return new PipelineTokenizer(new PipelineTokenizer.Parts(vocab, inverse(vocab, added),
                new AddedTokens(added, normalizer), normalizer, preTokenizer, m, template, decoder, false),
                maxLength, padId);
    }

    private Model wordPiece(JsonNode model, Map<String, Integer> vocab) throws Tokenizer.FormatException {
        String unk = optionalText(model, "unk_token", "model.unk_token", "[UNK]");
        if (!vocab.containsKey(unk)) {
            throw error("model.unk_token", "'" + unk + "' is not in the vocabulary");
        }
        String prefix = optionalText(model, "continuing_subword_prefix", "model.continuing_subword_prefix", "##");
        int maxChars = optionalInt(model, "max_input_chars_per_word", "model.max_input_chars_per_word", 100);
        return new WordPiece(vocab, unk, prefix, maxChars);
    }

    private Model unigram(JsonNode model, Map<String, Integer> vocab, double[] scores)
            throws Tokenizer.FormatException {
        JsonNode unk = model.get("unk_id");
        int unknown = unk == null || unk.isNull() ? -1 : id(unk, "model.unk_id");
        if (unknown >= scores.length) {
            throw error("model.unk_id", "is " + unknown + ", past the vocabulary's " + scores.length + " tokens");
        }
        for (Map.Entry<String, JsonNode> field : model.properties()) {
            if (!List.of("type", "unk_id", "vocab", "byte_fallback").contains(field.getKey())) {
                throw error("model." + field.getKey(), "is not a Unigram field attn4j reads (type, unk_id, vocab,"
                        + " byte_fallback)");
            }
        }
        return new Unigram(vocab, scores, unknown, optionalBoolean(model, "byte_fallback", "model.byte_fallback",
                false));
    }

    private Model bpe(JsonNode model, Map<String, Integer> vocab) throws Tokenizer.FormatException {
        for (String field : List.of("continuing_subword_prefix", "end_of_word_suffix")) {
            if (model.hasNonNull(field) && !text(model, field, "model." + field).isEmpty()) {
                throw error("model." + field, "is set; attn4j reads BPE without a subword prefix or suffix");
            }
        }
        if (model.hasNonNull("dropout") && model.get("dropout").asDouble() != 0) {
            throw error("model.dropout", "is " + model.get("dropout") + "; BPE dropout is for training only");
        }
        String unk = model.hasNonNull("unk_token") ? text(model, "unk_token", "model.unk_token") : null;
        JsonNode merges = model.get("merges");
        if (merges == null || !merges.isArray()) {
            throw error("model.merges", "is not an array");
        }
        List<String[]> pairs = new ArrayList<>(merges.size());
        for (int i = 0; i < merges.size(); i++) {
            pairs.add(merge(merges.get(i), "model.merges[" + i + "]"));
        }
        return new Bpe(vocab, pairs, unk, optionalBoolean(model, "fuse_unk", "model.fuse_unk", false),
                optionalBoolean(model, "byte_fallback", "model.byte_fallback", false),
                optionalBoolean(model, "ignore_merges", "model.ignore_merges", false));
    }

    private String[] merge(JsonNode m, String path) throws Tokenizer.FormatException {
        if (m.isTextual()) {
            String[] ab = m.asText().split(" ");
            if (ab.length != 2 || ab[0].isEmpty() || ab[1].isEmpty()) {
                throw error(path, "'" + m.asText() + "' is not two symbols separated by one space");
            }
            return ab;
        }
        if (m.isArray() && m.size() == 2 && m.get(0).isTextual() && m.get(1).isTextual()) {
            return new String[] {m.get(0).asText(), m.get(1).asText()};
        }
        throw error(path, "is not \"a b\" or [\"a\", \"b\"]");
    }

    private Map<String, Integer> vocab(JsonNode node, String path) throws Tokenizer.FormatException {
        if (!node.isObject() || node.isEmpty()) {
            throw error(path, "is not a non-empty object of token → id");
        }
        Map<String, Integer> vocab = new HashMap<>(node.size() * 2);
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            vocab.put(e.getKey(), id(e.getValue(), path + "['" + e.getKey() + "']"));
        }
        return Map.copyOf(vocab);
    }

    private int id(JsonNode v, String path) throws Tokenizer.FormatException {
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0) {
            throw error(path, "is " + v + ", not an id from 0 to 2^31 - 1");
        }
        return v.asInt();
    }

    private Map<Integer, String> inverse(Map<String, Integer> vocab, List<AddedTokens.Token> added)
            throws Tokenizer.FormatException {
        Map<Integer, String> inverse = new HashMap<>(vocab.size() * 2);
        for (Map.Entry<String, Integer> e : vocab.entrySet()) {
            String before = inverse.put(e.getValue(), e.getKey());
            if (before != null) {
                throw error("model.vocab", "gives id " + e.getValue() + " to both '" + before + "' and '"
                        + e.getKey() + "'");
            }
        }
        for (AddedTokens.Token t : added) {
            String before = inverse.putIfAbsent(t.id(), t.content());
            if (before != null && !before.equals(t.content())) {
                throw error("added_tokens", "gives id " + t.id() + " to '" + t.content() + "', which the vocabulary"
                        + " gives to '" + before + "'");
            }
        }
        return Map.copyOf(inverse);
    }

    /**
     * The added tokens with the ids Hugging Face gives them when it loads the file: a token the model's vocabulary
     * has keeps that id; any other gets the vocabulary's size, or one more than the largest added id once that
     * reaches it. A well-formed file writes the same ids; where it does not, Hugging Face's win.
     */
    private List<AddedTokens.Token> addedTokens(JsonNode node, Map<String, Integer> vocab)
            throws Tokenizer.FormatException {
        List<AddedTokens.Token> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw error("added_tokens", "is not an array");
        }
        for (int i = 0; i < node.size(); i++) {
            String path = "added_tokens[" + i + "]";
            JsonNode t = node.get(i);
            if (!t.isObject()) {
                throw error(path, "is not an object");
            }
            String content = text(t, "content", path + ".content");
            if (content.isEmpty()) {
                throw error(path + ".content", "is empty");
            }
            id(t.path("id"), path + ".id");
            Integer known = vocab.get(content);
            int max = out.stream().mapToInt(AddedTokens.Token::id).max().orElse(-1);
            int assigned = known != null ? known : max >= vocab.size() ? max + 1 : vocab.size();
            AddedTokens.Token before = out.stream().filter(x -> x.content().equals(content)).findFirst().orElse(null);
            if (before != null) {
                assigned = before.id();
            }
            out.add(new AddedTokens.Token(content, assigned,
                    optionalBoolean(t, "lstrip", path + ".lstrip", false),
                    optionalBoolean(t, "rstrip", path + ".rstrip", false),
                    optionalBoolean(t, "single_word", path + ".single_word", false),
                    optionalBoolean(t, "normalized", path + ".normalized", false),
                    optionalBoolean(t, "special", path + ".special", false)));
        }
        return out;
    }

    private int truncation(JsonNode node) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return Integer.MAX_VALUE;
        }
        if (!node.isObject()) {
            throw error("truncation", "is not an object or null");
        }
        String direction = optionalText(node, "direction", "truncation.direction", "Right");
        String strategy = optionalText(node, "strategy", "truncation.strategy", "LongestFirst");
        if (!direction.equals("Right") || !strategy.equals("LongestFirst")) {
            throw error("truncation", "is " + strategy + " from the " + direction
                    + "; attn4j truncates LongestFirst from the Right");
        }
        int max = optionalInt(node, "max_length", "truncation.max_length", Integer.MAX_VALUE);
        if (max < 1) {
            throw error("truncation.max_length", "is " + max + ", not positive");
        }
        return max;
    }

    private int padId(JsonNode node, Map<String, Integer> vocab) throws Tokenizer.FormatException {
        if (node != null && node.isObject() && node.has("pad_id")) {
            return id(node.get("pad_id"), "padding.pad_id");
        }
        return vocab.getOrDefault("[PAD]", vocab.getOrDefault("<pad>", 0));
    }

    private Template postProcessor(JsonNode node, String path) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return Template.NONE;
        }
        String type = text(node, "type", path + ".type");
        switch (type) {
            case "ByteLevel" -> {
                return Template.NONE;
            }
            case "BertProcessing", "RobertaProcessing" -> {
                Template.Piece cls = special(node.get("cls"), path + ".cls", 0);
                Template.Piece sep = special(node.get("sep"), path + ".sep", 0);
                Template.Piece a = new Template.Piece(true, false, List.of(), List.of(), 0);
                if (type.equals("BertProcessing")) {
                    Template.Piece sep1 = special(node.get("sep"), path + ".sep", 1);
                    return new Template(List.of(cls, a, sep), List.of(cls, a, sep,
                            new Template.Piece(false, true, List.of(), List.of(), 1), sep1));
                }
                return new Template(List.of(cls, a, sep), List.of(cls, a, sep, sep,
                        new Template.Piece(false, true, List.of(), List.of(), 0), sep));
            }
            case "TemplateProcessing" -> {
                Map<String, Template.Piece> specials = new HashMap<>();
                JsonNode st = object(node, "special_tokens", path + ".special_tokens");
                for (Map.Entry<String, JsonNode> e : st.properties()) {
                    String at = path + ".special_tokens['" + e.getKey() + "']";
                    JsonNode ids = e.getValue().path("ids");
                    JsonNode tokens = e.getValue().path("tokens");
                    if (!ids.isArray() || !tokens.isArray() || ids.size() != tokens.size()) {
                        throw error(at, "has no ids and tokens arrays of one length");
                    }
                    List<Integer> idList = new ArrayList<>();
                    List<String> tokenList = new ArrayList<>();
                    for (int i = 0; i < ids.size(); i++) {
                        idList.add(id(ids.get(i), at + ".ids[" + i + "]"));
                        if (!tokens.get(i).isTextual()) {
                            throw error(at + ".tokens[" + i + "]", "is not a string");
                        }
                        tokenList.add(tokens.get(i).asText());
                    }
                    specials.put(e.getKey(), new Template.Piece(false, false, idList, tokenList, 0));
                }
                List<Template.Piece> single = template(node.get("single"), path + ".single", specials, false);
                JsonNode pair = node.get("pair");
                List<Template.Piece> pairPieces = pair == null || pair.isNull() || (pair.isArray() && pair.isEmpty())
                        ? null : template(pair, path + ".pair", specials, true);
                return new Template(single, pairPieces);
            }
            case "Sequence" -> {
                JsonNode list = node.get("processors");
                if (list == null || !list.isArray()) {
                    throw error(path + ".processors", "is not an array");
                }
                Template found = Template.NONE;
                for (int i = 0; i < list.size(); i++) {
                    Template t = postProcessor(list.get(i), path + ".processors[" + i + "]");
                    if (t != Template.NONE) {
                        if (found != Template.NONE) {
                            throw error(path, "holds more than one processor that adds tokens; attn4j reads one");
                        }
                        found = t;
                    }
                }
                return found;
            }
            default -> throw error(path + ".type", "'" + type + "' is not supported");
        }
    }

    private Template.Piece special(JsonNode pair, String path, int typeId) throws Tokenizer.FormatException {
        if (pair == null || !pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual()) {
            throw error(path, "is not [token, id]");
        }
        return new Template.Piece(false, false, List.of(id(pair.get(1), path + "[1]")),
                List.of(pair.get(0).asText()), typeId);
    }

    private List<Template.Piece> template(JsonNode list, String path, Map<String, Template.Piece> specials,
                                          boolean pair) throws Tokenizer.FormatException {
        if (list == null || !list.isArray()) {
            throw error(path, "is not an array");
        }
        List<Template.Piece> out = new ArrayList<>();
        boolean hasA = false;
        for (int i = 0; i < list.size(); i++) {
            JsonNode p = list.get(i);
            String at = path + "[" + i + "]";
            if (p.has("Sequence")) {
                JsonNode s = p.get("Sequence");
                String id = text(s, "id", at + ".Sequence.id");
                int typeId = optionalInt(s, "type_id", at + ".Sequence.type_id", 0);
                if (!id.equals("A") && !(pair && id.equals("B"))) {
                    throw error(at + ".Sequence.id", "is '" + id + "', not A" + (pair ? " or B" : ""));
                }
                hasA |= id.equals("A");
                out.add(new Template.Piece(id.equals("A"), id.equals("B"), List.of(), List.of(), typeId));
            } else if (p.has("SpecialToken")) {
                JsonNode s = p.get("SpecialToken");
                String id = text(s, "id", at + ".SpecialToken.id");
                Template.Piece known = specials.get(id);
                if (known == null) {
                    throw error(at + ".SpecialToken.id", "'" + id + "' is not among special_tokens");
                }
                out.add(new Template.Piece(false, false, known.ids(), known.tokens(),
                        optionalInt(s, "type_id", at + ".SpecialToken.type_id", 0)));
            } else {
                throw error(at, "is neither a Sequence nor a SpecialToken");
            }
        }
        if (!hasA) {
            throw error(path, "has no Sequence A");
        }
        return out;
    }

    private UnaryOperator<String> normalizer(JsonNode node, String path) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return UnaryOperator.identity();
        }
        String type = text(node, "type", path + ".type");
        switch (type) {
            case "BertNormalizer" -> {
                boolean lowercase = optionalBoolean(node, "lowercase", path + ".lowercase", true);
                boolean strip = node.hasNonNull("strip_accents")
                        ? optionalBoolean(node, "strip_accents", path + ".strip_accents", lowercase) : lowercase;
                BertNormalizer n = new BertNormalizer(optionalBoolean(node, "clean_text", path + ".clean_text", true),
                        optionalBoolean(node, "handle_chinese_chars", path + ".handle_chinese_chars", true),
                        strip, lowercase);
                return n::normalize;
            }
            case "Precompiled" -> {
                String base64 = text(node, "precompiled_charsmap", path + ".precompiled_charsmap");
                try {
                    return new Precompiled(java.util.Base64.getDecoder().decode(base64))::normalize;
                } catch (IllegalArgumentException e) {
                    throw error(path + ".precompiled_charsmap", "is not a charsmap: " + e.getMessage());
                }
            }
            case "Lowercase" -> {
                return BertNormalizer::lowercase;
            }
            case "NFD", "NFC", "NFKD", "NFKC" -> {
                Normalizer.Form form = Normalizer.Form.valueOf(type);
                return s -> Normalizer.normalize(s, form);
            }
            case "Prepend" -> {
                String prepend = text(node, "prepend", path + ".prepend");
                return s -> s.isEmpty() ? s : prepend + s;
            }
            case "Replace" -> {
                Pattern pattern = pattern(node, path);
                String content = text(node, "content", path + ".content");
                String literal = java.util.regex.Matcher.quoteReplacement(content);
                return s -> pattern.matcher(s).replaceAll(literal);
            }
            case "Strip" -> {
                boolean left = optionalBoolean(node, "strip_left", path + ".strip_left", true);
                boolean right = optionalBoolean(node, "strip_right", path + ".strip_right", true);
                return s -> strip(s, left, right);
            }
            case "StripAccents" -> {
                return s -> s.codePoints().filter(c -> !UnicodeTables.isNonSpacingMark(c))
                        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
            }
            case "Sequence" -> {
                JsonNode list = node.get("normalizers");
                if (list == null || !list.isArray()) {
                    throw error(path + ".normalizers", "is not an array");
                }
                Function<String, String> all = Function.identity();
                for (int i = 0; i < list.size(); i++) {
                    all = all.andThen(normalizer(list.get(i), path + ".normalizers[" + i + "]"));
                }
                Function<String, String> chain = all;
                return chain::apply;
            }
            default -> throw error(path + ".type", "'" + type + "' is not supported");
        }
    }

    private static String strip(String s, boolean left, boolean right) {
        int from = 0;
        int to = s.length();
        while (left && from < to && UnicodeTables.isWhitespace(s.codePointAt(from))) {
            from += Character.charCount(s.codePointAt(from));
        }
        while (right && to > from && UnicodeTables.isWhitespace(s.codePointBefore(to))) {
            to -= Character.charCount(s.codePointBefore(to));
        }
        return s.substring(from, to);
    }

    /** A {@code pattern} of Split or Replace: {@code {"String": "…"}} or {@code {"Regex": "…"}}. */
    private Pattern pattern(JsonNode node, String path) throws Tokenizer.FormatException {
        JsonNode p = node.get("pattern");
        if (p != null && p.isObject() && p.size() == 1 && p.hasNonNull("String")) {
            return Pattern.compile(Pattern.quote(text(p, "String", path + ".pattern.String")));
        }
        if (p != null && p.isObject() && p.size() == 1 && p.hasNonNull("Regex")) {
            try {
                return OnigRegex.compile(text(p, "Regex", path + ".pattern.Regex"));
            } catch (IllegalArgumentException e) {
                throw error(path + ".pattern.Regex", e.getMessage());
            }
        }
        throw error(path + ".pattern", "is not {\"String\": …} or {\"Regex\": …}");
    }

    private PreTokenizer preTokenizer(JsonNode node, String path) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return PreTokenizer.WHOLE;
        }
        String type = text(node, "type", path + ".type");
        switch (type) {
            case "BertPreTokenizer" -> {
                return new BertPreTokenizer();
            }
            case "ByteLevel" -> {
                return new ByteLevel(optionalBoolean(node, "add_prefix_space", path + ".add_prefix_space", true),
                        optionalBoolean(node, "use_regex", path + ".use_regex", true));
            }
            case "Split" -> {
                Pattern p = pattern(node, path);
                String behavior = text(node, "behavior", path + ".behavior");
                SplitPreTokenizer.Behavior b = switch (behavior) {
                    case "Isolated" -> SplitPreTokenizer.Behavior.ISOLATED;
                    case "Removed" -> SplitPreTokenizer.Behavior.REMOVED;
                    case "MergedWithPrevious" -> SplitPreTokenizer.Behavior.MERGED_WITH_PREVIOUS;
                    case "MergedWithNext" -> SplitPreTokenizer.Behavior.MERGED_WITH_NEXT;
                    case "Contiguous" -> SplitPreTokenizer.Behavior.CONTIGUOUS;
                    default -> throw error(path + ".behavior", "'" + behavior + "' is not a split behavior");
                };
                boolean literal = node.path("pattern").has("String");
                return new SplitPreTokenizer(literal ? node.path("pattern").path("String").asText() : null,
                        literal ? null : p, b, optionalBoolean(node, "invert", path + ".invert", false));
            }
            case "Metaspace" -> {
                return metaspace(node, path);
            }
            case "WhitespaceSplit" -> {
                return PreTokenizer.WHITESPACE_SPLIT;
            }
            case "Digits" -> {
                boolean individual = optionalBoolean(node, "individual_digits", path + ".individual_digits", false);
                return new SplitPreTokenizer(null, OnigRegex.compile("\\p{N}"), individual
                        ? SplitPreTokenizer.Behavior.ISOLATED : SplitPreTokenizer.Behavior.CONTIGUOUS, false);
            }
            case "Sequence" -> {
                JsonNode list = node.get("pretokenizers");
                if (list == null || !list.isArray()) {
                    throw error(path + ".pretokenizers", "is not an array");
                }
                List<PreTokenizer> stages = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    stages.add(preTokenizer(list.get(i), path + ".pretokenizers[" + i + "]"));
                }
                return PreTokenizer.sequence(stages);
            }
            default -> throw error(path + ".type", "'" + type + "' is not supported");
        }
    }

    private Metaspace metaspace(JsonNode node, String path) throws Tokenizer.FormatException {
        String replacement = optionalText(node, "replacement", path + ".replacement", "\u2581");
        if (replacement.codePointCount(0, replacement.length()) != 1) {
            throw error(path + ".replacement", "is '" + replacement + "', not one character");
        }
        String scheme = optionalText(node, "prepend_scheme", path + ".prepend_scheme", "always");
        Metaspace.Prepend prepend = switch (scheme) {
            case "always" -> Metaspace.Prepend.ALWAYS;
            case "first" -> Metaspace.Prepend.FIRST;
            case "never" -> Metaspace.Prepend.NEVER;
            default -> throw error(path + ".prepend_scheme", "'" + scheme + "' is not always, first or never");
        };
        if (node.hasNonNull("add_prefix_space")
                && !optionalBoolean(node, "add_prefix_space", path + ".add_prefix_space", true)) {
            if (node.hasNonNull("prepend_scheme") && prepend != Metaspace.Prepend.NEVER) {
                throw error(path + ".add_prefix_space", "is false but prepend_scheme is " + scheme);
            }
            prepend = Metaspace.Prepend.NEVER;
        }
        return new Metaspace(replacement, prepend, optionalBoolean(node, "split", path + ".split", true));
    }

    private Decoder decoder(JsonNode node, String path) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return null;
        }
        String type = text(node, "type", path + ".type");
        switch (type) {
            case "ByteLevel" -> {
                return new ByteLevel(false, false);
            }
            case "WordPiece" -> {
                String prefix = optionalText(node, "prefix", path + ".prefix", "##");
                boolean cleanup = optionalBoolean(node, "cleanup", path + ".cleanup", true);
                return tokens -> List.of(WordPiece.decode(tokens, prefix, cleanup));
            }
            case "Metaspace" -> {
                return metaspace(node, path);
            }
            case "Replace" -> {
                return Decoder.replace(pattern(node, path), text(node, "content", path + ".content"));
            }
            case "ByteFallback" -> {
                return Decoder.byteFallback();
            }
            case "Fuse" -> {
                return Decoder.fuse();
            }
            case "Strip" -> {
                String content = text(node, "content", path + ".content");
                if (content.codePointCount(0, content.length()) != 1) {
                    throw error(path + ".content", "is '" + content + "', not one character");
                }
                int start = optionalInt(node, "start", path + ".start", 0);
                int stop = optionalInt(node, "stop", path + ".stop", 0);
                if (start < 0 || stop < 0) {
                    throw error(path, "has a negative start or stop");
                }
                return Decoder.strip(content.codePointAt(0), start, stop);
            }
            case "Sequence" -> {
                JsonNode list = node.get("decoders");
                if (list == null || !list.isArray()) {
                    throw error(path + ".decoders", "is not an array");
                }
                List<Decoder> all = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    all.add(decoder(list.get(i), path + ".decoders[" + i + "]"));
                }
                return Decoder.sequence(all);
            }
            default -> throw error(path + ".type", "'" + type + "' is not supported");
        }
    }

    private JsonNode object(JsonNode parent, String field, String path) throws Tokenizer.FormatException {
        JsonNode n = parent.get(field);
        if (n == null || !n.isObject()) {
            throw error(path, n == null ? "is missing" : "is not an object");
        }
        return n;
    }

    private String text(JsonNode parent, String field, String path) throws Tokenizer.FormatException {
        JsonNode n = parent.get(field);
        if (n == null || !n.isTextual()) {
            throw error(path, n == null ? "is missing" : "is not a string");
        }
        return n.asText();
    }

    private String optionalText(JsonNode parent, String field, String path, String orElse)
            throws Tokenizer.FormatException {
        return parent.hasNonNull(field) ? text(parent, field, path) : orElse;
    }

    private int optionalInt(JsonNode parent, String field, String path, int orElse) throws Tokenizer.FormatException {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw error(path, "is " + n + ", not an int");
        }
        return n.asInt();
    }

    private boolean optionalBoolean(JsonNode parent, String field, String path, boolean orElse)
            throws Tokenizer.FormatException {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return orElse;
        }
        if (!n.isBoolean()) {
            throw error(path, "is " + n + ", not true or false");
        }
        return n.asBoolean();
    }

    private Tokenizer.FormatException error(String path, String what) {
        return new Tokenizer.FormatException(source + ": " + path + " " + what);
    }
}
