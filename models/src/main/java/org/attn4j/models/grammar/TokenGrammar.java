package org.attn4j.models.grammar;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link JsonGrammar} over a tokenizer's {@link TokenVocabulary}: what generation is held to when its output must
 * be JSON of a grammar. Shared by the generations held to it (thread-safe); each takes its own {@link State} from
 * {@link #start()}. The tokens allowed in a state are found once and kept for the {@value #CACHED_STATES} states
 * last met, so a state that comes back (inside a long string or number, the start of every reply, the same key of
 * another reply) costs a look-up instead of a walk.
 */
public final class TokenGrammar {
    /** How many states' token sets a grammar keeps, the least recently used dropped first. */
    static final int CACHED_STATES = 256;

    private final JsonGrammar grammar;
    private final TokenVocabulary vocabulary;
    private final Map<JsonRecognizer, BitSet> walked = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<JsonRecognizer, BitSet> eldest) {
            return size() > CACHED_STATES;
        }
    };

    /**
     * @param grammar the language the output must stay in
     * @param vocabulary the bytes of the tokens the model chooses from
     */
    public TokenGrammar(JsonGrammar grammar, TokenVocabulary vocabulary) {
        this.grammar = Objects.requireNonNull(grammar, "TokenGrammar: argument grammar is null");
        this.vocabulary = Objects.requireNonNull(vocabulary, "TokenGrammar: argument vocabulary is null");
    }

    /** @return the grammar */
    public JsonGrammar grammar() {
        return grammar;
    }

    /** @return a state before any output */
    public State start() {
        return new State(grammar.start());
    }

    /**
     * One generation's place in the grammar. Not thread-safe: it belongs to the generation's sampler.
     */
    public final class State {
        private JsonRecognizer recognizer;

        private State(JsonRecognizer recognizer) {
            this.recognizer = recognizer;
        }

        /**
         * The tokens that may come next: each token whose bytes keep the output a prefix of a text of the grammar,
         * and the stop tokens only once the output is a whole text (a stop id that is also an ordinary token, as
         * some checkpoints list, is allowed then and only then). Found by walking the vocabulary's trie beside the
         * automaton, a shared prefix read once and a refused one's subtree skipped.
         *
         * @param vocab the size of the logits row; ids past the tokenizer's vocabulary are never allowed
         * @param stopTokens the ids that end generation
         * @return the allowed ids
         */
        public BitSet allowed(int vocab, int[] stopTokens) {
            BitSet found;
            synchronized (walked) {
                found = walked.get(recognizer);
            }
            if (found == null) {
                found = new BitSet(vocabulary.size());
                walk(vocabulary.trie(), recognizer, found);
                synchronized (walked) {
                    walked.put(recognizer, found);
                }
            }
            BitSet out = (BitSet) found.clone();
            if (out.length() > vocab) {
                out.clear(vocab, out.length());
            }
            boolean complete = recognizer.complete();
            for (int s : stopTokens) {
                if (s >= 0 && s < vocab) {
                    out.set(s, complete);
                }
            }
            return out;
        }

        private void walk(TokenVocabulary.Trie node, JsonRecognizer state, BitSet out) {
            for (int i = 0; i < node.next.length; i++) {
                JsonRecognizer s = state.advance((byte) node.next[i]);
                if (s != null) {
                    TokenVocabulary.Trie child = node.children[i];
                    for (int id : child.ending()) {
                        out.set(id);
                    }
                    walk(child, s, out);
                }
            }
        }

        /**
         * Moves past a chosen token.
         *
         * @param token an id {@link #allowed} allowed and that is not a stop token
         * @throws IllegalArgumentException if the token's bytes leave the grammar
         */
        public void accept(int token) {
            byte[] b = vocabulary.bytesShared(token);
            JsonRecognizer next = b == null || b.length == 0 ? null : recognizer.advance(b);
            if (next == null) {
                throw new IllegalArgumentException("grammar: token " + token + " does not continue the output");
            }
            recognizer = next;
        }

        /** @return whether the output so far is a whole text of the grammar */
        public boolean complete() {
            return recognizer.complete();
        }
    }
}
