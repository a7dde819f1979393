package org.attn4j.models.tokenize;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reads a Hugging Face {@code tokenizer.json} (or GPT-2's {@code vocab.json} + {@code merges.txt}) into a
 * {@link PipelineTokenizer}, checking every part it uses: a wrong type, a missing token, an id out of range or a
 * component attn4j does not implement is a {@link Tokenizer.FormatException} naming the JSON path.
 */
final class TokenizerJson {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY).build();

    private final String source;

    private TokenizerJson(String source) {
        this.source = source;
    }

    static Tokenizer read(byte[] bytes, String source) throws Tokenizer.FormatException {
        TokenizerJson r = new TokenizerJson(source);
        JsonNode root = r.parse(bytes);
        try {
            return r.tokenizer(root);
        } catch (IllegalArgumentException e) {
            throw new Tokenizer.FormatException(source + ": " + e.getMessage(), e);
        }
    }

    static Tokenizer gpt2(byte[] vocabJson, String merges, String source) throws Tokenizer.FormatException {
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
            return r.byteLevelBpe(vocab, pairs, null, false, added, new ByteLevel(false, true), Template.NONE,
                    Integer.MAX_VALUE, eos == null ? 0 : eos);
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

    private Tokenizer tokenizer(JsonNode root) throws Tokenizer.FormatException {
        JsonNode model = object(root, "model", "model");
        String type = model.has("type") ? text(model, "type", "model.type")
                : model.has("merges") ? "BPE" : "WordPiece";
        Map<String, Integer> vocab = vocab(object(model, "vocab", "model.vocab"), "model.vocab");
        List<AddedTokens.Token> added = addedTokens(root.get("added_tokens"));
        int maxLength = truncation(root.get("truncation"));
        int padId = padId(root.get("padding"), vocab);
        Template template = postProcessor(root.get("post_processor"), vocab, added);
        switch (type) {
            case "WordPiece" -> {
                String unk = optionalText(model, "unk_token", "model.unk_token", "[UNK]");
                if (!vocab.containsKey(unk)) {
                    throw error("model.unk_token", "'" + unk + "' is not in the vocabulary");
                }
                String prefix = optionalText(model, "continuing_subword_prefix", "model.continuing_subword_prefix",
                        "##");
                int maxChars = optionalInt(model, "max_input_chars_per_word", "model.max_input_chars_per_word", 100);
                String decoderPrefix = prefix;
                boolean cleanup = true;
                JsonNode decoder = root.get("decoder");
                if (decoder != null && !decoder.isNull()) {
                    String dt = text(decoder, "type", "decoder.type");
                    if (!dt.equals("WordPiece")) {
                        throw error("decoder.type", "'" + dt + "' is not supported with a WordPiece model");
                    }
                    decoderPrefix = optionalText(decoder, "prefix", "decoder.prefix", prefix);
                    cleanup = optionalBoolean(decoder, "cleanup", "decoder.cleanup", true);
                }
                String dp = decoderPrefix;
                boolean cl = cleanup;
                return new PipelineTokenizer(vocab, inverse(vocab, added), new AddedTokens(added),
                        normalizer(root.get("normalizer"), "normalizer"), preTokenizer(root.get("pre_tokenizer")),
                        new WordPiece(vocab, unk, prefix, maxChars), template, parts -> WordPiece.decode(parts, dp, cl),
                        maxLength, padId);
            }
            case "BPE" -> {
                for (String field : List.of("continuing_subword_prefix", "end_of_word_suffix")) {
                    if (model.hasNonNull(field) && !text(model, field, "model." + field).isEmpty()) {
                        throw error("model." + field, "is set; attn4j reads byte-level BPE without one");
                    }
                }
                if (model.hasNonNull("dropout") && model.get("dropout").asDouble() != 0) {
                    throw error("model.dropout", "is set; BPE dropout is for training only");
                }
                if (optionalBoolean(model, "byte_fallback", "model.byte_fallback", false)) {
                    throw error("model.byte_fallback", "is true, which attn4j does not implement");
                }
                String unk = model.hasNonNull("unk_token") ? text(model, "unk_token", "model.unk_token") : null;
                if (unk != null && !vocab.containsKey(unk)) {
                    throw error("model.unk_token", "'" + unk + "' is not in the vocabulary");
                }
                JsonNode merges = model.get("merges");
                if (merges == null || !merges.isArray()) {
                    throw error("model.merges", "is not an array");
                }
                List<String[]> pairs = new ArrayList<>();
                for (int i = 0; i < merges.size(); i++) {
                    pairs.add(merge(merges.get(i), "model.merges[" + i + "]"));
                }
                JsonNode pre = root.get("pre_tokenizer");
                if (pre == null || pre.isNull() || !"ByteLevel".equals(pre.path("type").asText())) {
                    throw error("pre_tokenizer", "is not ByteLevel; attn4j reads byte-level BPE (GPT-2) only");
                }
                if (root.hasNonNull("normalizer")) {
                    throw error("normalizer", "is set; attn4j reads byte-level BPE without a normalizer");
                }
                ByteLevel byteLevel = new ByteLevel(
                        optionalBoolean(pre, "add_prefix_space", "pre_tokenizer.add_prefix_space", false),
                        optionalBoolean(pre, "use_regex", "pre_tokenizer.use_regex", true));
                return byteLevelBpe(vocab, pairs, unk,
                        optionalBoolean(model, "ignore_merges", "model.ignore_merges", false), added, byteLevel,
                        template, maxLength, padId);
            }
            default -> throw error("model.type", "'" + type + "' is not WordPiece or BPE");
        }
    }

    private Tokenizer byteLevelBpe(Map<String, Integer> vocab, List<String[]> merges, String unk, boolean ignore,
                                   List<AddedTokens.Token> added, ByteLevel byteLevel, Template template,
                                   int maxLength, int padId) throws Tokenizer.FormatException {
        Map<String, Map<String, Integer>> ranks = new HashMap<>();
        for (int i = 0; i < merges.size(); i++) {
            String a = merges.get(i)[0];
            String b = merges.get(i)[1];
            for (String s : new String[] {a, b, a + b}) {
                if (!vocab.containsKey(s)) {
                    throw error("merges[" + i + "]", "'" + a + " " + b + "' uses or makes '" + s
                            + "', which is not in the vocabulary");
                }
            }
            ranks.computeIfAbsent(a, k -> new HashMap<>()).putIfAbsent(b, i);
        }
        return new PipelineTokenizer(vocab, inverse(vocab, added), new AddedTokens(added), UnaryOperator.identity(),
                byteLevel::split, new Bpe(vocab, ranks, unk, ignore), template, ByteLevel::decode, maxLength, padId);
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

    private List<AddedTokens.Token> addedTokens(JsonNode node) throws Tokenizer.FormatException {
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
            out.add(new AddedTokens.Token(content, id(t.path("id"), path + ".id"),
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
        return vocab.getOrDefault("[PAD]", 0);
    }

    private Template postProcessor(JsonNode node, Map<String, Integer> vocab, List<AddedTokens.Token> added)
            throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return Template.NONE;
        }
        String type = text(node, "type", "post_processor.type");
        switch (type) {
            case "ByteLevel" -> {
                return Template.NONE;
            }
            case "BertProcessing", "RobertaProcessing" -> {
                Template.Piece cls = special(node.get("cls"), "post_processor.cls", 0);
                Template.Piece sep = special(node.get("sep"), "post_processor.sep", 0);
                Template.Piece a = new Template.Piece(true, false, List.of(), List.of(), 0);
                if (type.equals("BertProcessing")) {
                    Template.Piece sep1 = special(node.get("sep"), "post_processor.sep", 1);
                    return new Template(List.of(cls, a, sep), List.of(cls, a, sep,
                            new Template.Piece(false, true, List.of(), List.of(), 1), sep1));
                }
                return new Template(List.of(cls, a, sep), List.of(cls, a, sep, sep,
                        new Template.Piece(false, true, List.of(), List.of(), 0), sep));
            }
            case "TemplateProcessing" -> {
                Map<String, Template.Piece> specials = new HashMap<>();
                JsonNode st = object(node, "special_tokens", "post_processor.special_tokens");
                for (Map.Entry<String, JsonNode> e : st.properties()) {
                    String path = "post_processor.special_tokens['" + e.getKey() + "']";
                    JsonNode ids = e.getValue().path("ids");
                    JsonNode tokens = e.getValue().path("tokens");
                    if (!ids.isArray() || !tokens.isArray() || ids.size() != tokens.size()) {
                        throw error(path, "has no ids and tokens arrays of one length");
                    }
                    List<Integer> idList = new ArrayList<>();
                    List<String> tokenList = new ArrayList<>();
                    for (int i = 0; i < ids.size(); i++) {
                        idList.add(id(ids.get(i), path + ".ids[" + i + "]"));
                        if (!tokens.get(i).isTextual()) {
                            throw error(path + ".tokens[" + i + "]", "is not a string");
                        }
                        tokenList.add(tokens.get(i).asText());
                    }
                    specials.put(e.getKey(), new Template.Piece(false, false, idList, tokenList, 0));
                }
                return new Template(template(node.get("single"), "post_processor.single", specials, false),
                        template(node.get("pair"), "post_processor.pair", specials, true));
            }
            default -> throw error("post_processor.type", "'" + type + "' is not supported");
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
            case "Lowercase" -> {
                return s -> s.toLowerCase(Locale.ROOT);
            }
            case "NFD", "NFC", "NFKD", "NFKC" -> {
                Normalizer.Form form = Normalizer.Form.valueOf(type);
                return s -> Normalizer.normalize(s, form);
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

    private PipelineTokenizer.PreTokenizer preTokenizer(JsonNode node) throws Tokenizer.FormatException {
        if (node == null || node.isNull()) {
            return (text, words) -> {
                if (!text.isEmpty()) {
                    words.add(text);
                }
            };
        }
        String type = text(node, "type", "pre_tokenizer.type");
        if (type.equals("BertPreTokenizer")) {
            return BertPreTokenizer::split;
        }
        throw error("pre_tokenizer.type", "'" + type + "' is not supported with a WordPiece model");
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
