package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Hugging Face's encoding pipeline: added tokens in the raw text, normalizer, added tokens in the normalized
 * text, pre-tokenizer, model, truncation (longest first), post-processor template; and decoding through the
 * decoder with special tokens dropped.
 */
final class PipelineTokenizer implements Tokenizer {

    /** A pre-tokenizer: text to words, appended. */
    interface PreTokenizer {
        void split(String text, List<String> words);
    }

    private final Map<String, Integer> vocab;
    private final Map<Integer, String> tokens;
    private final AddedTokens added;
    private final Set<Integer> specialIds;
    private final UnaryOperator<String> normalizer;
    private final PreTokenizer preTokenizer;
    private final Model model;
    private final Template template;
    private final Function<List<String>, String> decoder;
    private final int maxLength;
    private final int padId;

    PipelineTokenizer(Map<String, Integer> vocab, Map<Integer, String> tokens, AddedTokens added,
                      UnaryOperator<String> normalizer, PreTokenizer preTokenizer, Model model, Template template,
                      Function<List<String>, String> decoder, int maxLength, int padId) {
        this.vocab = vocab;
        this.tokens = tokens;
        this.added = added;
        this.specialIds = Set.copyOf(added.all().stream().filter(AddedTokens.Token::special)
                .map(AddedTokens.Token::id).toList());
        this.normalizer = normalizer;
        this.preTokenizer = preTokenizer;
        this.model = model;
        this.template = template;
        this.decoder = decoder;
        this.maxLength = checkMaxLength(maxLength, template);
        this.padId = padId;
        for (int id : template.specialIds()) {
            if (!tokens.containsKey(id)) {
                throw new IllegalArgumentException("post_processor: special token id " + id
                        + " is not in the vocabulary");
            }
        }
    }

    private static int checkMaxLength(int maxLength, Template template) {
        if (maxLength < Math.max(1, template.added(false))) {
            throw new IllegalArgumentException("Tokenizer.withMaxLength: argument maxLength is " + maxLength
                    + " but the template adds " + template.added(false) + " special tokens to a text");
        }
        return maxLength;
    }

    @Override
    public Encoding encode(String text) {
        Template.Sequence a = sequence(text, "text", null);
        int budget = maxLength - template.added(false);
        return template.apply(a.truncated(budget), null);
    }

    @Override
    public Encoding encode(String text, String pair) {
        Template.Sequence a = sequence(text, "text", null);
        Template.Sequence b = sequence(pair, "pair", null);
        int budget = maxLength - template.added(true);
        if (budget < 0) {
            throw new IllegalArgumentException("Tokenizer.encode: maxLength " + maxLength + " cannot hold the "
                    + template.added(true) + " special tokens of a pair");
        }
        if (a.length() + b.length() > budget) {
            int n1 = Math.min(a.length(), b.length());
            int n2 = n1 > budget ? n1 : Math.max(n1, budget - n1);
            if (n1 + n2 > budget) {
                n1 = budget / 2;
                n2 = n1 + budget % 2;
            }
            boolean firstIsLonger = a.length() > b.length();
            a = a.truncated(firstIsLonger ? n2 : n1);
            b = b.truncated(firstIsLonger ? n1 : n2);
        }
        return template.apply(a, b);
    }

    @Override
    public List<Encoding> encodeWindows(String text) {
        List<Integer> starts = new ArrayList<>();
        Template.Sequence a = sequence(text, "text", starts);
        int budget = maxLength - template.added(false);
        if (a.length() <= budget) {
            return List.of(template.apply(a, null));
        }
        if (budget < 1) {
            throw new IllegalArgumentException("Tokenizer.encodeWindows: maxLength " + maxLength
                    + " leaves no room for a token beside the template's " + template.added(false) + " special ones");
        }
        List<Encoding> windows = new ArrayList<>();
        int word = 0;
        for (int from = 0; from < a.length(); ) {
            int to = Math.min(from + budget, a.length());
            if (to < a.length()) {
                while (word + 1 < starts.size() && starts.get(word + 1) <= to) {
                    word++;
                }
                if (starts.get(word) > from) {
                    to = starts.get(word);
                }
            }
            windows.add(template.apply(new Template.Sequence(a.ids().subList(from, to), a.tokens().subList(from, to)),
                    null));
            from = to;
        }
        return windows;
    }

    /**
     * @param starts if not null, receives the index of every word's first token: a word is what the
     *     pre-tokenizer gives (or an added token), whose tokens a window never splits
     */
    private Template.Sequence sequence(String text, String argument, List<Integer> starts) {
        if (text == null) {
            throw new IllegalArgumentException("Tokenizer.encode: argument " + argument + " is null");
        }
        List<Integer> ids = new ArrayList<>();
        List<String> out = new ArrayList<>();
        List<String> words = new ArrayList<>();
        for (AddedTokens.Piece raw : added.splitRaw(text)) {
            if (raw.id() >= 0) {
                markStart(starts, ids);
                ids.add(raw.id());
                out.add(raw.text());
                continue;
            }
            for (AddedTokens.Piece p : added.splitNormalized(normalizer.apply(raw.text()))) {
                if (p.id() >= 0) {
                    markStart(starts, ids);
                    ids.add(p.id());
                    out.add(p.text());
                    continue;
                }
                words.clear();
                preTokenizer.split(p.text(), words);
                for (String w : words) {
                    markStart(starts, ids);
                    model.encode(w, ids, out);
                }
            }
        }
        return new Template.Sequence(ids, out);
    }

    private static void markStart(List<Integer> starts, List<Integer> ids) {
        if (starts != null && (starts.isEmpty() || starts.get(starts.size() - 1) < ids.size())) {
            starts.add(ids.size());
        }
    }

    @Override
    public String decode(int[] ids) {
        List<String> parts = new ArrayList<>(ids.length);
        for (int id : ids) {
            String t = tokens.get(id);
            if (t == null) {
                throw new IllegalArgumentException("Tokenizer.decode: id " + id + " is not in the vocabulary of "
                        + vocabSize());
            }
            if (!specialIds.contains(id)) {
                parts.add(t);
            }
        }
        return decoder.apply(parts);
    }

    @Override
    public Tokenizer withMaxLength(int length) {
        return new PipelineTokenizer(vocab, tokens, added, normalizer, preTokenizer, model, template, decoder,
                length, padId);
    }

    @Override
    public int maxLength() {
        return maxLength;
    }

    @Override
    public int vocabSize() {
        return tokens.size();
    }

    @Override
    public int padId() {
        return padId;
    }

    @Override
    public OptionalInt id(String token) {
        for (AddedTokens.Token t : added.all()) {
            if (t.content().equals(token)) {
                return OptionalInt.of(t.id());
            }
        }
        Integer id = vocab.get(token);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }
}
