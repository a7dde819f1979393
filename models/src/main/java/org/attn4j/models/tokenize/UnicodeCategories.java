package org.attn4j.models.tokenize;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Unicode 16.0 general category of every code point, the tables of the Oniguruma that Hugging Face's
 * tokenizers run, carried as data so that a regex's {@code \p{L}} means the same on every JDK (Java 17's own
 * tables are Unicode 13's, where everything added in Unicode 14 to 16 is unassigned). The runs are read from
 * {@code unicode-categories.txt}, which {@code models/src/test/generate/GenerateUnicodeCategories.java} writes from
 * JDK 25's tables.
 */
final class UnicodeCategories {
    /** The two-letter names, indexed by the {@link Character#getType(int)} constant of that category. */
    private static final String[] NAMES = {"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No",
        "Zs", "Zl", "Zp", "Cc", "Cf", null, "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi",
        "Pf"};
    private static final int[] STARTS;
    private static final byte[] TYPES;

    static {
        List<String> lines;
        try (InputStream in = UnicodeCategories.class.getResourceAsStream("unicode-categories.txt")) {
            if (in == null) {
                throw new IllegalStateException("unicode-categories.txt is missing from the class path");
            }
            lines = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines()
                    .filter(l -> !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        STARTS = new int[lines.size()];
        TYPES = new byte[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            String[] run = lines.get(i).split(" ");
            STARTS[i] = Integer.parseInt(run[0], 16);
            int type = Arrays.asList(NAMES).indexOf(run[1]);
            if (type < 0) {
                throw new IllegalStateException("unicode-categories.txt: '" + run[1] + "' is not a category");
            }
            TYPES[i] = (byte) type;
        }
    }

    private UnicodeCategories() {
    }

    /** @return the code point's Unicode 16 general category, as a {@link Character#getType(int)} constant */
    static int type(int codePoint) {
        if (codePoint < 0 || codePoint > Character.MAX_CODE_POINT) {
            throw new IllegalArgumentException("UnicodeCategories.type: " + codePoint + " is not a code point");
        }
        int i = Arrays.binarySearch(STARTS, codePoint);
        return TYPES[i >= 0 ? i : -i - 2];
    }

    /**
     * @param name a general category as a regex names it: one letter ({@code L}, {@code M}, {@code N}, {@code P},
     *     {@code S}, {@code Z}, {@code C}: every category of that letter), two letters ({@code Lu}, {@code Nd}, …,
     *     {@code Cn}) or {@code LC} ({@code Lu}, {@code Ll}, {@code Lt})
     * @return whether it is one
     */
    static boolean isCategory(String name) {
        return name.equals("LC") || (name.length() == 1 && "LMNPSZC".contains(name))
                || (name.length() == 2 && Arrays.asList(NAMES).contains(name));
    }

    /**
     * @param name a category name that {@link #isCategory} accepts
     * @return the code points of that category as sorted, disjoint, non-adjacent inclusive ranges
     *     {@code [first0, last0, first1, last1, …]}
     */
    static int[] ranges(String name) {
        if (!isCategory(name)) {
            throw new IllegalArgumentException("UnicodeCategories.ranges: '" + name + "' is not a general category");
        }
        boolean[] wanted = new boolean[NAMES.length];
        for (int t = 0; t < NAMES.length; t++) {
            wanted[t] = NAMES[t] != null && (name.equals("LC") ? NAMES[t].matches("L[ult]")
                    : name.length() == 1 ? NAMES[t].startsWith(name) : NAMES[t].equals(name));
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < STARTS.length; i++) {
            if (!wanted[TYPES[i]]) {
                continue;
            }
            int last = i + 1 < STARTS.length ? STARTS[i + 1] - 1 : Character.MAX_CODE_POINT;
            if (!out.isEmpty() && out.get(out.size() - 1) == STARTS[i] - 1) {
                out.set(out.size() - 1, last);
            } else {
                out.add(STARTS[i]);
                out.add(last);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
