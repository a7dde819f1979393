package org.attn4j.models.tokenize;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Regular expressions of a {@code tokenizer.json} ({@code Split} and {@code Replace} patterns), which Hugging Face
 * runs with Oniguruma, compiled to {@link Pattern}s that match the same strings. Oniguruma's Unicode classes differ
 * from Java's defaults, so they are written out:
 * <ul>
 *   <li>{@code \s}: U+0009–U+000D, U+0085 and the categories Zs, Zl, Zp (not U+FEFF); {@code \S} its complement;</li>
 *   <li>{@code \d}: {@code \p{Nd}}; {@code \w}: letters, marks, {@code Nd} and {@code Pc} ({@code \D}, {@code \W}
 *       their complements);</li>
 *   <li>{@code (?i)}: Unicode case folding ({@code (?iu)} in Java, so that {@code 's} also matches {@code 'ſ});</li>
 *   <li>{@code \p{…}}, {@code \r}, {@code \n}, {@code \t}, groups, look-arounds, quantifiers: as written.</li>
 * </ul>
 * Escapes whose meaning differs and that no tokenizer.json of the supported families uses ({@code \h}, {@code \R},
 * {@code \X}, {@code \K}, {@code \G}, {@code \A}, {@code \z}, {@code \Z}, {@code \b}, {@code \B}, {@code \O}) are
 * refused rather than read with Java's meaning.
 */
final class OnigRegex {
    /** Oniguruma's Unicode {@code \s}, as the inside of a character class. */
    static final String SPACE = "\\t\\n\\x0B\\f\\r\\x{85}\\p{Zs}\\p{Zl}\\p{Zp}";
    private static final String WORD = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";

    private OnigRegex() {
    }

    /**
     * @param regex an Oniguruma regular expression as a tokenizer.json writes it
     * @return the equivalent Java pattern
     * @throws IllegalArgumentException if it uses a construct attn4j does not translate or does not compile
     */
    static Pattern compile(String regex) {
        StringBuilder out = new StringBuilder(regex.length() + 64);
        int depth = 0;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\' && i + 1 < regex.length()) {
                char e = regex.charAt(++i);
                boolean inClass = depth > 0;
                switch (e) {
                    case 's' -> out.append(inClass ? SPACE : "[" + SPACE + "]");
                    case 'S' -> out.append("[^" + SPACE + "]");
                    case 'd' -> out.append("\\p{Nd}");
                    case 'D' -> out.append("[^\\p{Nd}]");
                    case 'w' -> out.append(inClass ? WORD : "[" + WORD + "]");
                    case 'W' -> out.append("[^" + WORD + "]");
                    case 'h', 'H', 'R', 'X', 'K', 'G', 'A', 'z', 'Z', 'b', 'B', 'O', 'y', 'Y' ->
                            throw new IllegalArgumentException("regex '" + regex + "' uses \\" + e
                                    + ", which attn4j does not translate from Oniguruma");
                    case 'p', 'P' -> {
                        int end = regex.indexOf('}', i);
                        if (i + 1 >= regex.length() || regex.charAt(i + 1) != '{' || end < 0) {
                            throw new IllegalArgumentException("regex '" + regex + "' has a malformed \\" + e);
                        }
                        out.append('\\').append(regex, i, end + 1);
                        i = end;
                    }
                    default -> out.append('\\').append(e);
                }
                continue;
            }
            if (c == '[') {
                depth++;
                out.append(c);
                if (i + 1 < regex.length() && regex.charAt(i + 1) == '^') {
                    out.append('^');
                    i++;
                }
                if (i + 1 < regex.length() && regex.charAt(i + 1) == ']') {
                    out.append("\\]");
                    i++;
                }
                continue;
            }
            if (c == ']' && depth > 0) {
                depth--;
                out.append(c);
                continue;
            }
            if (c == '(' && depth == 0 && regex.startsWith("(?", i)) {
                int j = i + 2;
                StringBuilder flags = new StringBuilder();
                while (j < regex.length() && Character.isLetter(regex.charAt(j))) {
                    flags.append(regex.charAt(j++));
                }
                if (flags.indexOf("i") >= 0 && flags.indexOf("u") < 0) {
                    out.append("(?").append(flags).append('u');
                    i = j - 1;
                    continue;
                }
            }
            out.append(c);
        }
        try {
            return Pattern.compile(out.toString());
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("regex '" + regex + "' does not compile: " + e.getDescription(), e);
        }
    }
}
