package org.attn4j.models.tokenize;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.attn4j.models.io.Gguf;

/**
 * A tokenizer from a GGUF file's {@code tokenizer.ggml.*} metadata, as llama.cpp reads it:
 * <ul>
 *   <li>{@code model = gpt2}: byte-level BPE from {@code tokens} and {@code merges} ({@code "a b"} by rank), the
 *       text cut by the pre-tokenizer {@code pre} names: {@code default}, {@code gpt-2} (GPT-2's pattern, as
 *       {@link ByteLevel} cuts it),
 *       {@code llama-bpe} / {@code llama3} / {@code llama-v3} (Llama 3's, whole-word tokens taken before merges),
 *       {@code qwen2} (Llama 3's with single digits), {@code smollm} (single digits, then GPT-2's);</li>
 *   <li>{@code model = llama}: SentencePiece BPE from {@code tokens} and {@code scores} ({@link SentencePiece}), a
 *       space put before each text (unless {@code add_space_prefix} is false) and every space spelled {@code ▁},
 *       byte fallback through the {@code <0xNN>} tokens; decoding turns {@code ▁} back into spaces and drops the
 *       first leading space.</li>
 * </ul>
 * {@code model = bert} is BERT's WordPiece (see {@code wordPiece}).
 * Tokens of type control (3) and user-defined (4) in {@code token_type} are found in the raw text as whole tokens;
 * control tokens are special (left out when decoding). {@code bos_token_id} / {@code eos_token_id} are added around
 * a text per {@code add_bos_token} / {@code add_eos_token} (defaults: SentencePiece BOS only, Llama 3's BOS only,
 * the other BPE none); {@code padding_token_id} is the padding. Other tokenizer models and pre-tokenizers are
 * refused by name.
 */
final class GgufTokenizer {
    private static final String GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+"
            + "|\\s+(?!\\S)|\\s+";
    private static final String LLAMA3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    private static final String QWEN2 = LLAMA3.replace("\\p{N}{1,3}", "\\p{N}");
    private static final String SPACE = "\u2581";
    private static final int CONTROL = 3;
    private static final int USER_DEFINED = 4;
    private static final int UNUSED = 5;
    private static final int BYTE = 6;

    private GgufTokenizer() {
    }

    /** @return the pre-tokenizer that cuts each piece by the regexes in turn (each match a piece), then spells bytes */
    private static PreTokenizer regexes(String... expressions) {
        List<PreTokenizer> stages = new ArrayList<>();
        for (String e : expressions) {
            stages.add(new SplitPreTokenizer(null, OnigRegex.compile(e), SplitPreTokenizer.Behavior.ISOLATED, false));
        }
        stages.add(new ByteLevel(false, false));
        return PreTokenizer.sequence(stages);
    }

    static Tokenizer read(Gguf.Contents g) throws Tokenizer.FormatException {
        try {
            return build(g);
        } catch (Gguf.FormatException | IllegalArgumentException e) {
            throw new Tokenizer.FormatException("gguf tokenizer: " + e.getMessage(), e);
        }
    }

    /**
     * BERT's WordPiece from {@code model = bert}: the converter wrote each word-start token with a {@code ▁} before
     * it and each continuation without BERT's {@code ##}, and kept {@code [X]} tokens as they are; this undoes that
     * and builds the tokenizer {@code vocab.txt} gives, lower-cased as llama.cpp's WordPiece always is, with
     * {@code [CLS]} ({@code bos_token_id}) and {@code [SEP]} ({@code seperator_token_id}) around each text, the
     * unknown ({@code unknown_token_id}), padding ({@code padding_token_id}) and mask ({@code mask_token_id}) tokens
     * named by their ids. {@code add_bos_token} or {@code add_sep_token} set to false are refused.
     */
    private static Tokenizer wordPiece(Gguf.Contents g) throws Gguf.FormatException, Tokenizer.FormatException {
        for (String key : List.of("tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_sep_token")) {
            if (g.has(key) && !g.bool(key)) {
                throw new Tokenizer.FormatException("gguf tokenizer: " + key + " is false; attn4j puts BERT's [CLS]"
                        + " and [SEP] around every text");
            }
        }
        List<String> tokens = g.strings("tokenizer.ggml.tokens");
        StringBuilder vocab = new StringBuilder();
        for (String t : tokens) {
            String word = t.startsWith("[") && t.endsWith("]") ? t
                    : t.startsWith(SPACE) ? t.substring(SPACE.length()) : "##" + t;
            if (word.indexOf('\n') >= 0) {
                throw new Tokenizer.FormatException("gguf tokenizer: a WordPiece token holds a line break");
            }
            vocab.append(word).append('\n');
        }
        com.fasterxml.jackson.databind.node.ObjectNode config =
                new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("do_lower_case", true);
        String[][] roles = {{"unknown_token_id", "unk_token"}, {"bos_token_id", "cls_token"},
            {"seperator_token_id", "sep_token"}, {"padding_token_id", "pad_token"}, {"mask_token_id", "mask_token"}};
        for (String[] role : roles) {
            String key = "tokenizer.ggml." + role[0];
            if (g.has(key)) {
                long id = g.integer(key);
                if (id < 0 || id >= tokens.size()) {
                    throw new Tokenizer.FormatException("gguf tokenizer: " + key + " is " + id + ", outside the "
                            + tokens.size() + " tokens");
                }
                config.put(role[1], tokens.get((int) id));
            }
        }
        return TokenizerJson.fromVocabTxt(vocab.toString(), config.toString().getBytes(
                StandardCharsets.UTF_8), "gguf tokenizer.ggml.tokens");
    }

    private static Tokenizer build(Gguf.Contents g) throws Gguf.FormatException, Tokenizer.FormatException {
        String model = g.string("tokenizer.ggml.model");
        if (model.equals("bert")) {
            return wordPiece(g);
        }
        if (!model.equals("gpt2") && !model.equals("llama")) {
            throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml.model '" + model + "' is not "
                    + "supported; supported: gpt2 (byte-level BPE), llama (SentencePiece), bert (WordPiece)");
        }
        List<String> tokens = g.strings("tokenizer.ggml.tokens");
        int n = tokens.size();
        int[] types = g.has("tokenizer.ggml.token_type") ? g.ints("tokenizer.ggml.token_type") : new int[n];
        if (types.length < n) {
            throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml.token_type has " + types.length
                    + " entries for " + n + " tokens");
        }
        Map<String, Integer> vocab = new HashMap<>(2 * n);
        for (int i = 0; i < n; i++) {
            Integer before = vocab.put(tokens.get(i), i);
            if (before != null) {
                throw new Tokenizer.FormatException("gguf tokenizer: token '" + tokens.get(i) + "' has ids " + before
                        + " and " + i);
            }
        }
        boolean spm = model.equals("llama");
        String pre = g.has("tokenizer.ggml.pre") ? g.string("tokenizer.ggml.pre") : "default";
        boolean llama3 = !spm && (pre.equals("llama-bpe") || pre.equals("llama3") || pre.equals("llama-v3"));
        int bos = special(g, "bos", n, spm ? 1 : -1);
        int eos = special(g, "eos", n, spm ? 2 : -1);
        int unk = special(g, "unknown", n, spm ? 0 : -1);
        int pad = special(g, "padding", n, -1);
        boolean addBos = flag(g, "tokenizer.ggml.add_bos_token", spm || llama3);
        boolean addEos = flag(g, "tokenizer.ggml.add_eos_token", false);
        for (String[] need : new String[][] {{addBos ? "bos" : null, "add_bos_token"}, {addEos ? "eos" : null,
            "add_eos_token"}}) {
            if (need[0] != null && (need[0].equals("bos") ? bos : eos) < 0) {
                throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml." + need[1]
                        + " is true but tokenizer.ggml." + need[0] + "_token_id is not set");
            }
        }
        List<AddedTokens.Token> added = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (types[i] == CONTROL || types[i] == USER_DEFINED) {
                added.add(new AddedTokens.Token(tokens.get(i), i, false, false, false, false, types[i] == CONTROL));
            }
        }
        Template template = template(bos, addBos, eos, addEos, tokens);
        Map<Integer, String> inverse = new HashMap<>(2 * n);
        for (int i = 0; i < n; i++) {
            inverse.put(i, tokens.get(i));
        }
        int padId = pad >= 0 ? pad : Math.max(eos, 0);
        if (spm) {
            return sentencePiece(g, tokens, types, vocab, added, template, inverse, unk, padId);
        }
        PreTokenizer split = switch (pre) {
            case "default", "gpt-2" -> new ByteLevel(false, true);
            case "llama-bpe", "llama3", "llama-v3" -> regexes(LLAMA3);
            case "qwen2" -> regexes(QWEN2);
            case "smollm" -> regexes("\\p{N}", GPT2);
            default -> throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml.pre '" + pre + "' is not "
                    + "supported; supported: default, gpt-2, llama-bpe (llama3, llama-v3), qwen2, smollm");
        };
        List<String> merges = g.strings("tokenizer.ggml.merges");
        List<String[]> ranked = new ArrayList<>(merges.size());
        Set<String> seen = new HashSet<>(2 * merges.size());
        for (int i = 0; i < merges.size(); i++) {
            String m = merges.get(i);
            int space = m.indexOf(' ', 1);
            if (space < 0) {
                throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml.merges[" + i + "] '" + m
                        + "' is not two symbols separated by a space");
            }
            if (seen.add(m)) {
                ranked.add(new String[] {m.substring(0, space), m.substring(space + 1)});
            }
        }
        PipelineTokenizer.Parts parts = new PipelineTokenizer.Parts(vocab, inverse,
                new AddedTokens(added, UnaryOperator.identity()), UnaryOperator.identity(), split,
                new Bpe(vocab, ranked, unk >= 0 ? tokens.get(unk) : null, false, false, llama3), template,
                new ByteLevel(false, false), false);
        return new PipelineTokenizer(parts, Integer.MAX_VALUE, padId);
    }

    private static Tokenizer sentencePiece(Gguf.Contents g, List<String> tokens, int[] types,
                                           Map<String, Integer> vocab, List<AddedTokens.Token> added,
                                           Template template, Map<Integer, String> inverse, int unk, int padId)
            throws Gguf.FormatException, Tokenizer.FormatException {
        int n = tokens.size();
        float[] scores = g.has("tokenizer.ggml.scores") ? g.floats("tokenizer.ggml.scores") : new float[n];
        if (scores.length < n) {
            throw new Tokenizer.FormatException("gguf tokenizer: tokenizer.ggml.scores has " + scores.length
                    + " entries for " + n + " tokens");
        }
        boolean typed = g.has("tokenizer.ggml.token_type");
        int[] byteIds = new int[256];
        Arrays.fill(byteIds, -1);
        Map<String, Integer> byteOf = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String t = tokens.get(i);
            if ((!typed || types[i] == BYTE) && t.length() == 6 && t.startsWith("<0x") && t.endsWith(">")) {
                try {
                    int b = Integer.parseInt(t.substring(3, 5), 16);
                    byteIds[b] = i;
                    byteOf.put(t, b);
                } catch (NumberFormatException e) {
                    if (typed) {
                        throw new Tokenizer.FormatException("gguf tokenizer: byte token " + i + " '" + t
                                + "' is not <0xNN>");
                    }
                }
            }
        }
        String unknownText = unk >= 0 ? tokens.get(unk) : null;
        Set<String> unused = new HashSet<>();
        for (int i = 0; i < n; i++) {
            if (types[i] == UNUSED) {
                unused.add(tokens.get(i));
            }
        }
        boolean prefix = flag(g, "tokenizer.ggml.add_space_prefix", true);
        UnaryOperator<String> normalizer = s -> s.isEmpty() ? s : (prefix ? " " + s : s).replace(" ", SPACE);
        PipelineTokenizer.Parts parts = new PipelineTokenizer.Parts(vocab, inverse,
                new AddedTokens(added, UnaryOperator.identity()), normalizer, PreTokenizer.WHOLE,
                new SentencePiece(vocab, tokens, scores, byteIds, unk), template,
                pieces -> List.of(decode(pieces, byteOf, unknownText, unused, prefix)), false);
        return new PipelineTokenizer(parts, Integer.MAX_VALUE, padId);
    }

    private static String decode(List<String> parts, Map<String, Integer> byteOf, String unknown,
                                 Set<String> unused, boolean stripFirstSpace) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String p : parts) {
            Integer b = byteOf.get(p);
            if (b != null) {
                bytes.write(b);
            } else if (!unused.contains(p)) {
                String text = p.equals(unknown) ? "\u2585" : p.replace(SPACE, " ");
                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
            }
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        return stripFirstSpace && text.startsWith(" ") ? text.substring(1) : text;
    }

    private static Template template(int bos, boolean addBos, int eos, boolean addEos, List<String> tokens) {
        List<Template.Piece> single = new ArrayList<>();
        List<Template.Piece> pair = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            List<Template.Piece> pieces = new ArrayList<>();
            if (addBos) {
                pieces.add(new Template.Piece(false, false, List.of(bos), List.of(tokens.get(bos)), side));
            }
            pieces.add(new Template.Piece(side == 0, side == 1, List.of(), List.of(), side));
            if (addEos) {
                pieces.add(new Template.Piece(false, false, List.of(eos), List.of(tokens.get(eos)), side));
            }
            if (side == 0) {
                single.addAll(pieces);
            }
            pair.addAll(pieces);
        }
        return new Template(single, pair);
    }

    private static int special(Gguf.Contents g, String name, int n, int fallback)
            throws Gguf.FormatException, Tokenizer.FormatException {
        String key = "tokenizer.ggml." + name + "_token_id";
        if (!g.has(key)) {
            return fallback < n ? fallback : -1;
        }
        long id = g.integer(key);
        if (id < 0 || id >= n) {
            throw new Tokenizer.FormatException("gguf tokenizer: " + key + " is " + id + ", outside the " + n
                    + " tokens");
        }
        return (int) id;
    }

    private static boolean flag(Gguf.Contents g, String key, boolean fallback) throws Gguf.FormatException {
        return g.has(key) ? g.bool(key) : fallback;
    }
}
