package org.attn4j.models.tokenize;

import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Regular expressions of a {@code tokenizer.json} ({@code Split} and {@code Replace} patterns), which Hugging Face
 * runs with Oniguruma, compiled to {@link Pattern}s that match the same strings on every JDK. Oniguruma's Unicode
 * classes differ from Java's, so they are written out as code point ranges from {@link UnicodeCategories} (Unicode
 * 16.0), never left to the running JDK's tables:
 * <ul>
 *   <li>{@code \p{X}} and {@code \P{X}} for a general category {@code X}: one letter ({@code L}, {@code M},
 *       {@code N}, {@code P}, {@code S}, {@code Z}, {@code C}), two ({@code Lu}, {@code Nd}, …, {@code Cn}) or
 *       {@code LC}; any other property (a script, a binary property) is refused by name;</li>
 *   <li>{@code \s}: U+0009–U+000D, U+0085 and the categories Zs, Zl, Zp (not U+FEFF); {@code \S} its complement;</li>
 *   <li>{@code \d}: {@code \p{Nd}}; {@code \w}: letters, marks, {@code Nd} and {@code Pc} ({@code \D}, {@code \W}
 *       their complements);</li>
 *   <li>{@code (?i)}: Unicode case folding ({@code (?iu)} in Java, so that {@code 's} also matches {@code 'ſ});</li>
 *   <li>{@code \r}, {@code \n}, {@code \t}, literals, groups, look-arounds, quantifiers: as written.</li>
 * </ul>
 * A category of hundreds of ranges is written as a balanced tree of intersections ({@code [lo-hi&&[…]]}), so that a
 * code point outside a subtree's span is rejected by one comparison instead of by every range.
 * Escapes whose meaning differs and that no tokenizer.json of the supported families uses ({@code \h}, {@code \R},
 * {@code \X}, {@code \K}, {@code \G}, {@code \A}, {@code \z}, {@code \Z}, {@code \b}, {@code \B}, {@code \O}) are
 * refused rather than read with Java's meaning.
 */
final class OnigRegex {
    /** Ranges that a subtree of a written-out class holds at most before it is split in two. */
    private static final int LEAF = 8;
    /** Oniguruma's Unicode {@code \s}, as the inside of a character class. */
    static final String SPACE = "\\t\\n\\x0B\\f\\r\\x{85}" + body(UnicodeCategories.ranges("Z"));
    private static final String WORD = body(union(UnicodeCategories.ranges("L"), UnicodeCategories.ranges("M"),
            UnicodeCategories.ranges("Nd"), UnicodeCategories.ranges("Pc")));
    private static final String DIGIT = body(UnicodeCategories.ranges("Nd"));

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
                    case 'd' -> out.append(inClass ? DIGIT : "[" + DIGIT + "]");
                    case 'D' -> out.append("[^" + DIGIT + "]");
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
                        String name = regex.substring(i + 2, end);
                        if (!UnicodeCategories.isCategory(name)) {
                            throw new IllegalArgumentException("regex '" + regex + "' uses \\" + e + "{" + name
                                    + "}, which is not a general category (L, Lu, Ll, Lt, Lm, Lo, LC, M, Mn, Mc, Me,"
                                    + " N, Nd, Nl, No, P, Pc, Pd, Ps, Pe, Pi, Pf, Po, S, Sm, Sc, Sk, So, Z, Zs, Zl,"
                                    + " Zp, C, Cc, Cf, Cs, Co, Cn); attn4j does not translate other properties");
                        }
                        String body = body(UnicodeCategories.ranges(name));
                        out.append(e == 'P' ? "[^" + body + "]" : inClass ? body : "[" + body + "]");
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

    /**
     * @param ranges sorted, disjoint inclusive ranges {@code [first0, last0, …]}
     * @return them as the inside of a Java character class
     */
    static String body(int[] ranges) {
        StringBuilder out = new StringBuilder();
        body(ranges, 0, ranges.length / 2, out);
        return out.toString();
    }

    private static void body(int[] ranges, int from, int to, StringBuilder out) {
        if (to - from <= LEAF) {
            for (int i = from; i < to; i++) {
                out.append("\\x{").append(Integer.toHexString(ranges[2 * i])).append('}');
                if (ranges[2 * i + 1] != ranges[2 * i]) {
                    out.append("-\\x{").append(Integer.toHexString(ranges[2 * i + 1])).append('}');
                }
            }
            return;
        }
        int mid = (from + to) / 2;
        for (int[] half : new int[][] {{from, mid}, {mid, to}}) {
            out.append("[\\x{").append(Integer.toHexString(ranges[2 * half[0]])).append("}-\\x{")
                    .append(Integer.toHexString(ranges[2 * half[1] - 1])).append("}&&[");
            body(ranges, half[0], half[1], out);
            out.append("]]");
        }
    }

    /** @return the union of sorted, disjoint inclusive range lists, as one such list */
    private static int[] union(int[]... lists) {
        boolean[] in = new boolean[Character.MAX_CODE_POINT + 2];
        for (int[] list : lists) {
            for (int i = 0; i < list.length; i += 2) {
                Arrays.fill(in, list[i], list[i + 1] + 1, true);
            }
        }
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            if (in[c] && (c == 0 || !in[c - 1])) {
                out.add(c);
            }
            if (in[c] && !in[c + 1]) {
                out.add(c);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
