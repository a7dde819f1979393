package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Hugging Face's encoding pipeline: added tokens in the raw text, normalizer, added tokens in the normalized
 * text, pre-tokenizer, model, truncation (longest first), post-processor template; and decoding through the
 * decoder with special tokens dropped (if asked) and, when the checkpoint's {@code tokenizer_config.json} says so,
 * transformers' {@code clean_up_tokenization}.
 */
final class PipelineTokenizer implements Tokenizer {

    /** The parts a tokenizer is made of. */
    record Parts(Map<String, Integer> vocab, Map<Integer, String> tokens, AddedTokens added,
                 UnaryOperator<String> normalizer, PreTokenizer preTokenizer, Model model, Template template,
                 Decoder decoder, boolean cleanUp) {

        Parts withTemplate(Template value) {
            return new Parts(vocab, tokens, added, normalizer, preTokenizer, model, value, decoder, cleanUp);
        }

        Parts withCleanUp(boolean value) {
            return new Parts(vocab, tokens, added, normalizer, preTokenizer, model, template, decoder, value);
        }
    }

    private final Parts parts;
    private final Set<Integer> specialIds;
    private final int maxLength;
    private final int padId;

    PipelineTokenizer(Parts parts, int maxLength, int padId) {
        this.parts = parts;
        this.specialIds = Set.copyOf(parts.added().all().stream().filter(AddedTokens.Token::special)
                .map(AddedTokens.Token::id).toList());
        this.maxLength = checkMaxLength(maxLength, parts.template());
        this.padId = padId;
        for (int id : parts.template().specialIds()) {
            if (!parts.tokens().containsKey(id)) {
                throw new IllegalArgumentException("post_processor: special token id " + id
                        + " is not in the vocabulary");
            }
        }
    }

    Parts parts() {
        return parts;
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
        return encode(text, true);
    }

    @Override
    public Encoding encode(String text, boolean addSpecialTokens) {
        Template.Sequence a = sequence(text, "text");
        int budget = maxLength - (addSpecialTokens ? parts.template().added(false) : 0);
        return parts.template().apply(a.truncated(budget), null, addSpecialTokens);
    }

    @Override
    public Encoding encode(String text, String pair) {
        Template.Sequence a = sequence(text, "text");
        Template.Sequence b = sequence(pair, "pair");
        int budget = maxLength - parts.template().added(true);
        if (budget < 0) {
            throw new IllegalArgumentException("Tokenizer.encode: maxLength " + maxLength + " cannot hold the "
                    + parts.template().added(true) + " special tokens of a pair");
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
        return parts.template().apply(a, b, true);
    }

    private Template.Sequence sequence(String text, String argument) {
        if (text == null) {
            throw new IllegalArgumentException("Tokenizer.encode: argument " + argument + " is null");
        }
        List<Integer> ids = new ArrayList<>();
        List<String> out = new ArrayList<>();
        List<PreTokenizer.Split> words = new ArrayList<>();
        for (AddedTokens.Piece raw : parts.added().splitRaw(text)) {
            if (raw.id() >= 0) {
                ids.add(raw.id());
                out.add(raw.text());
                continue;
            }
            if (raw.text().isEmpty()) {
                continue;
            }
            for (AddedTokens.Piece p : parts.added().splitNormalized(parts.normalizer().apply(raw.text()))) {
                if (p.id() >= 0) {
                    ids.add(p.id());
                    out.add(p.text());
                    continue;
                }
                if (p.text().isEmpty()) {
                    continue;
                }
                words.clear();
                parts.preTokenizer().split(new PreTokenizer.Split(p.text(), raw.start() == 0 && p.start() == 0),
                        words);
                for (PreTokenizer.Split w : words) {
                    parts.model().encode(w.text(), ids, out);
                }
            }
        }
        return new Template.Sequence(ids, out);
    }

    @Override
    public String decode(int[] ids) {
        return decode(ids, true);
    }

    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        List<String> pieces = new ArrayList<>(ids.length);
        for (int id : ids) {
            String t = parts.tokens().get(id);
            if (t == null) {
                throw new IllegalArgumentException("Tokenizer.decode: id " + id + " is not in the vocabulary of "
                        + vocabSize());
            }
            if (!skipSpecialTokens || !specialIds.contains(id)) {
                pieces.add(t);
            }
        }
        String text = parts.decoder() == null ? String.join(" ", pieces)
                : String.join("", parts.decoder().decode(pieces));
        return parts.cleanUp() ? cleanUp(text) : text;
    }

    /** transformers' {@code clean_up_tokenization}: the spaces BERT-era tokenizers left before punctuation go. */
    private static String cleanUp(String text) {
        return text.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" 's", "'s")
                .replace(" 've", "'ve").replace(" 're", "'re");
    }

    @Override
    public Tokenizer withMaxLength(int length) {
        return new PipelineTokenizer(parts, length, padId);
    }

    @Override
    public int maxLength() {
        return maxLength;
    }

    @Override
    public int vocabSize() {
        return parts.tokens().size();
    }

    @Override
    public int padId() {
        return padId;
    }

    @Override
    public OptionalInt id(String token) {
        for (AddedTokens.Token t : parts.added().all()) {
            if (t.content().equals(token)) {
                return OptionalInt.of(t.id());
            }
        }
        Integer id = parts.vocab().get(token);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    @Override
    public Optional<String> token(int id) {
        return Optional.ofNullable(parts.tokens().get(id));
    }

    @Override
    public boolean isSpecial(int id) {
        return specialIds.contains(id);
    }
}
