package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;

/**
 * The post-processor: where the special tokens go around one text or a pair, and each piece's type id, as
 * Hugging Face's {@code TemplateProcessing} ({@code BertProcessing} and {@code RobertaProcessing} are read into
 * the same form, a {@code ByteLevel} processor adds nothing but offsets). A piece is a special token (its ids and
 * tokens) or sequence {@code A} or {@code B}.
 */
final class Template {

    record Piece(boolean sequenceA, boolean sequenceB, List<Integer> ids, List<String> tokens, int typeId) {
    }

    static final Template NONE = new Template(
            List.of(new Piece(true, false, List.of(), List.of(), 0)),
            List.of(new Piece(true, false, List.of(), List.of(), 0), new Piece(false, true, List.of(), List.of(), 1)));

    private final List<Piece> single;
    private final List<Piece> pair;

    /**
     * @param single the pieces around one text
     * @param pair the pieces around a pair, or {@code null} when the post-processor has no pair template
     */
    Template(List<Piece> single, List<Piece> pair) {
        this.single = List.copyOf(single);
        this.pair = pair == null ? null : List.copyOf(pair);
    }

    /** @return the ids of every special token the template adds */
    List<Integer> specialIds() {
        List<Integer> ids = new ArrayList<>();
        for (Piece p : pair == null ? List.<Piece>of() : pair) {
            ids.addAll(p.ids());
        }
        for (Piece p : single) {
            ids.addAll(p.ids());
        }
        return ids;
    }

    /**
     * @param bos the special token before it, or {@code null}
     * @param eos the special token after it, or {@code null}
     * @return {@code [bos] $A [eos]} for one text and {@code [bos] $A [eos] [bos] $B [eos]} (type id 1 from the second
     *     {@code bos}) for a pair, as transformers' Llama and Gemma tokenizers rebuild the post-processor from
     *     {@code add_bos_token} and {@code add_eos_token}
     */
    static Template bosEos(Piece bos, Piece eos) {
        List<Piece> one = new ArrayList<>();
        List<Piece> two = new ArrayList<>();
        if (bos != null) {
            one.add(bos);
        }
        one.add(new Piece(true, false, List.of(), List.of(), 0));
        if (eos != null) {
            one.add(eos);
        }
        two.addAll(one);
        if (bos != null) {
            two.add(new Piece(false, false, bos.ids(), bos.tokens(), 1));
        }
        two.add(new Piece(false, true, List.of(), List.of(), 1));
        if (eos != null) {
            two.add(new Piece(false, false, eos.ids(), eos.tokens(), 1));
        }
        return new Template(one, two);
    }

    /** @return how many special tokens the template adds to one text or a pair */
    int added(boolean forPair) {
        int n = 0;
        for (Piece p : forPair ? pairPieces() : single) {
            n += p.ids().size();
        }
        return n;
    }

    /**
     * @param a the first text's tokens
     * @param b the second's, or {@code null}
     * @param addSpecialTokens whether the template's special tokens go in; without them the texts keep their type
     *     ids, as Hugging Face does with {@code add_special_tokens=False}
     * @return the encoding
     */
    Encoding apply(Sequence a, Sequence b, boolean addSpecialTokens) {
        List<Integer> ids = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        for (Piece p : b == null ? single : pairPieces()) {
            Sequence s = p.sequenceA() ? a : p.sequenceB() ? b : null;
            if (s == null && !addSpecialTokens) {
                continue;
            }
            List<Integer> pieceIds = s == null ? p.ids() : s.ids();
            ids.addAll(pieceIds);
            tokens.addAll(s == null ? p.tokens() : s.tokens());
            for (int i = 0; i < pieceIds.size(); i++) {
                types.add(p.typeId());
            }
        }
        return new Encoding(ids.stream().mapToInt(Integer::intValue).toArray(),
                types.stream().mapToInt(Integer::intValue).toArray(), tokens);
    }

    private List<Piece> pairPieces() {
        if (pair == null) {
            throw new IllegalArgumentException("Tokenizer.encode: the post_processor has no pair template");
        }
        return pair;
    }

    /** The tokens of one text before the template, truncated in place. */
    record Sequence(List<Integer> ids, List<String> tokens) {

        int length() {
            return ids.size();
        }

        Sequence truncated(int length) {
            return length >= ids.size() ? this : new Sequence(ids.subList(0, length), tokens.subList(0, length));
        }
    }
}
