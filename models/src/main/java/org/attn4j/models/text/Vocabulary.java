package org.attn4j.models.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A word vocabulary built the way the tutorials build one: strip punctuation, split on whitespace, take the
 * sorted set of unique words and number them in that order, as
 * <pre>
 *   words = text.translate(str.maketrans("", "", string.punctuation)).split()
 *   vocab = {w: i for i, w in enumerate(sorted(set(words)))}
 * </pre>
 * The 32 ASCII punctuation characters of Python's {@code string.punctuation} are deleted (so {@code "don't"}
 * becomes {@code "dont"}); every other character stays, so emoji and accented words are words like any other.
 * Sorting is by UTF-16 code unit, which is Python's order for text in the Basic Multilingual Plane (upper case
 * before lower case).
 * Case is kept unless the vocabulary is built to lower-case.
 */
public final class Vocabulary {
    private static final Pattern PUNCTUATION = Pattern.compile("\\p{Punct}");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private final List<String> words;
    private final Map<String, Integer> ids;
    private final boolean lowercase;

    private Vocabulary(List<String> words, boolean lowercase) {
        this.words = List.copyOf(words);
        this.lowercase = lowercase;
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < words.size(); i++) {
            m.put(words.get(i), i);
        }
        this.ids = Map.copyOf(m);
    }

    /**
     * @param text any text
     * @return the vocabulary of its words, case kept
     */
    public static Vocabulary fromText(String text) {
        return fromText(text, false);
    }

    /**
     * @param text any text
     * @param lowercase whether words are lower-cased (in the root locale) before counting and encoding
     * @return the vocabulary of its words
     */
    public static Vocabulary fromText(String text, boolean lowercase) {
        return new Vocabulary(new ArrayList<>(new TreeSet<>(tokenize(text, lowercase))), lowercase);
    }

    /**
     * @param text any text
     * @param lowercase whether to lower-case
     * @return its words, punctuation deleted, in order of appearance
     */
    public static List<String> tokenize(String text, boolean lowercase) {
        String s = PUNCTUATION.matcher(lowercase ? text.toLowerCase(Locale.ROOT) : text).replaceAll("").strip();
        return s.isEmpty() ? List.of() : Arrays.asList(WHITESPACE.split(s));
    }

    /** @return the number of words */
    public int size() {
        return words.size();
    }

    /** @return the words in id order */
    public List<String> words() {
        return words;
    }

    /**
     * @param word a word of the vocabulary
     * @return its id
     * @throws IllegalArgumentException if the word is unknown
     */
    public int id(String word) {
        Integer id = ids.get(lowercase ? word.toLowerCase(Locale.ROOT) : word);
        if (id == null) {
            throw new IllegalArgumentException("Vocabulary: the word '" + word + "' is not in the vocabulary of "
                    + words.size() + " words");
        }
        return id;
    }

    /**
     * @param id an id in {@code [0, size())}
     * @return its word
     */
    public String word(int id) {
        if (id < 0 || id >= words.size()) {
            throw new IllegalArgumentException("Vocabulary: id " + id + " is outside [0, " + words.size() + ")");
        }
        return words.get(id);
    }

    /**
     * @param text text made of vocabulary words
     * @return the ids of its words, tokenized as the vocabulary was built
     * @throws IllegalArgumentException naming the first unknown word
     */
    public int[] encode(String text) {
        return tokenize(text, lowercase).stream().mapToInt(this::id).toArray();
    }

    /**
     * @param tokenIds ids in {@code [0, size())}; not modified
     * @return the words joined by single spaces
     */
    public String decode(int[] tokenIds) {
        StringBuilder b = new StringBuilder();
        for (int id : tokenIds) {
            b.append(b.length() > 0 ? " " : "").append(word(id));
        }
        return b.toString();
    }
}
