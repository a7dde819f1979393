package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;

/**
 * The post-processor: where the special tokens go around one text or a pair, and each piece's type id, as
 * Hugging Face's {@code TemplateProcessing} ({@code BertProcessing} and {@code RobertaProcessing} are read into
 * the same form). A piece is a special token (its ids and tokens) or sequence {@code A} or {@code B}.
 */
final class Template {

    record Piece(boolean sequenceA, boolean sequenceB, List<Integer> ids, List<String> tokens, int typeId) {
    }

    static final Template NONE = new Template(
            List.of(new Piece(true, false, List.of(), List.of(), 0)),
            List.of(new Piece(true, false, List.of(), List.of(), 0), new Piece(false, true, List.of(), List.of(), 1)));

    private final List<Piece> single;
    private final List<Piece> pair;

    Template(List<Piece> single, List<Piece> pair) {
        this.single = List.copyOf(single);
        this.pair = List.copyOf(pair);
    }

    /** @return the ids of every special token the template adds */
    List<Integer> specialIds() {
        List<Integer> ids = new ArrayList<>();
        for (Piece p : pair) {
            ids.addAll(p.ids());
        }
        for (Piece p : single) {
            ids.addAll(p.ids());
        }
        return ids;
    }

    /** @return how many special tokens the template adds to one text or a pair */
    int added(boolean forPair) {
        int n = 0;
        for (Piece p : forPair ? pair : single) {
            n += p.ids().size();
        }
        return n;
    }

    Encoding apply(Sequence a, Sequence b) {
        List<Integer> ids = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        for (Piece p : b == null ? single : pair) {
            Sequence s = p.sequenceA() ? a : p.sequenceB() ? b : null;
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
