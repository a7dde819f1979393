package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The carried Unicode 16 categories: characters added in Unicode 14 to 16 have their categories on every JDK, and
 * the regex classes {@link OnigRegex} writes out match exactly the code points of their categories, over every
 * code point.
 */
class UnicodeCategoriesTest {

    @Test
    void charactersOfUnicode14To16HaveTheirCategoriesOnEveryJdk() {
        Map<Integer, Byte> expected = Map.of(
                0x1FAF6, Character.OTHER_SYMBOL,      // 🫶 heart hands, Unicode 14
                0x1F979, Character.OTHER_SYMBOL,      // 🥹 face holding back tears, Unicode 14
                0x1FAE0, Character.OTHER_SYMBOL,      // 🫠 melting face, Unicode 14
                0x1FA77, Character.OTHER_SYMBOL,      // 🩷 pink heart, Unicode 15
                0x1FAE9, Character.OTHER_SYMBOL,      // face with bags under eyes, Unicode 16
                0x16AC0, Character.DECIMAL_DIGIT_NUMBER,  // Tangsa digit zero, Unicode 14
                0x11F50, Character.DECIMAL_DIGIT_NUMBER,  // Kawi digit zero, Unicode 15
                0x10D40, Character.DECIMAL_DIGIT_NUMBER,  // Garay digit zero, Unicode 16
                0x10D50, Character.UPPERCASE_LETTER,      // Garay capital letter A, Unicode 16
                0x0897, Character.NON_SPACING_MARK);      // Arabic pepet, Unicode 16
        for (Map.Entry<Integer, Byte> e : expected.entrySet()) {
            assertEquals((int) e.getValue(), UnicodeCategories.type(e.getKey()),
                    "category of U+" + Integer.toHexString(e.getKey()).toUpperCase());
        }
        assertEquals(Character.UNASSIGNED, UnicodeCategories.type(0x10FFFF));
        assertEquals(Character.SURROGATE, UnicodeCategories.type(0xD800));
        assertEquals(Character.CONTROL, UnicodeCategories.type(0));
    }

    @Test
    void rangesCoverEachCodePointOnceOverAllCategories() {
        int[] seen = new int[Character.MAX_CODE_POINT + 1];
        for (String c : List.of("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
                "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn")) {
            int[] r = UnicodeCategories.ranges(c);
            for (int i = 0; i < r.length; i += 2) {
                assertTrue(r[i] <= r[i + 1] && (i == 0 || r[i] > r[i - 1] + 1), c + " range " + i / 2);
                for (int x = r[i]; x <= r[i + 1]; x++) {
                    seen[x]++;
                }
            }
        }
        for (int x = 0; x <= Character.MAX_CODE_POINT; x++) {
            assertEquals(1, seen[x], "categories holding U+" + Integer.toHexString(x).toUpperCase());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"L", "M", "N", "P", "S", "Z", "C", "Lu", "Ll", "Lo", "LC", "Nd", "No", "Pc", "So", "Cn"})
    void aCategoryClassMatchesExactlyItsCodePoints(String name) {
        IntPredicate in = c -> {
            String n = category(UnicodeCategories.type(c));
            return name.equals("LC") ? n.matches("L[ult]") : n.startsWith(name);
        };
        assertMatchesExactly("\\p{" + name + "}", in);
        assertMatchesExactly("\\P{" + name + "}", in.negate());
        assertMatchesExactly("[x\\p{" + name + "}]", in.or(c -> c == 'x'));
    }

    @Test
    void theClassesOfTheTokenizerRegexesMatchExactlyTheirCodePoints() {
        IntPredicate letter = c -> category(UnicodeCategories.type(c)).startsWith("L");
        IntPredicate number = c -> category(UnicodeCategories.type(c)).startsWith("N");
        IntPredicate space = c -> (c >= 0x09 && c <= 0x0D) || c == 0x85
                || category(UnicodeCategories.type(c)).startsWith("Z");
        assertMatchesExactly("[^\\s\\p{L}\\p{N}]", space.or(letter).or(number).negate());
        assertMatchesExactly("[^\\r\\n\\p{L}\\p{N}]", letter.or(number).or(c -> c == '\r' || c == '\n').negate());
        assertMatchesExactly("\\s", space);
        assertMatchesExactly("\\S", space.negate());
        assertMatchesExactly("\\d", c -> UnicodeCategories.type(c) == Character.DECIMAL_DIGIT_NUMBER);
        assertMatchesExactly("\\w", c -> {
            int t = UnicodeCategories.type(c);
            return letter.test(c) || category(t).startsWith("M") || t == Character.DECIMAL_DIGIT_NUMBER
                    || t == Character.CONNECTOR_PUNCTUATION;
        });
    }

    @Test
    void aPropertyThatIsNotAGeneralCategoryIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OnigRegex.compile("\\p{Han}+"));
        assertTrue(e.getMessage().contains("\\p{Han}"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> UnicodeCategories.ranges("Xx"));
    }

    private static String category(int type) {
        return switch (type) {
            case Character.UPPERCASE_LETTER -> "Lu";
            case Character.LOWERCASE_LETTER -> "Ll";
            case Character.TITLECASE_LETTER -> "Lt";
            case Character.MODIFIER_LETTER -> "Lm";
            case Character.OTHER_LETTER -> "Lo";
            case Character.NON_SPACING_MARK -> "Mn";
            case Character.COMBINING_SPACING_MARK -> "Mc";
            case Character.ENCLOSING_MARK -> "Me";
            case Character.DECIMAL_DIGIT_NUMBER -> "Nd";
            case Character.LETTER_NUMBER -> "Nl";
            case Character.OTHER_NUMBER -> "No";
            case Character.CONNECTOR_PUNCTUATION -> "Pc";
            case Character.DASH_PUNCTUATION -> "Pd";
            case Character.START_PUNCTUATION -> "Ps";
            case Character.END_PUNCTUATION -> "Pe";
            case Character.INITIAL_QUOTE_PUNCTUATION -> "Pi";
            case Character.FINAL_QUOTE_PUNCTUATION -> "Pf";
            case Character.OTHER_PUNCTUATION -> "Po";
            case Character.MATH_SYMBOL -> "Sm";
            case Character.CURRENCY_SYMBOL -> "Sc";
            case Character.MODIFIER_SYMBOL -> "Sk";
            case Character.OTHER_SYMBOL -> "So";
            case Character.SPACE_SEPARATOR -> "Zs";
            case Character.LINE_SEPARATOR -> "Zl";
            case Character.PARAGRAPH_SEPARATOR -> "Zp";
            case Character.CONTROL -> "Cc";
            case Character.FORMAT -> "Cf";
            case Character.SURROGATE -> "Cs";
            case Character.PRIVATE_USE -> "Co";
            default -> "Cn";
        };
    }

    /** Every code point but the surrogates (which a Java string cannot hold alone as one code point). */
    private static void assertMatchesExactly(String regex, IntPredicate expected) {
        Matcher m = OnigRegex.compile(regex).matcher("");
        List<String> wrong = new ArrayList<>();
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            if (c >= 0xD800 && c <= 0xDFFF) {
                continue;
            }
            boolean got = m.reset(Character.toString(c)).matches();
            if (got != expected.test(c) && wrong.size() < 8) {
                wrong.add("U+" + Integer.toHexString(c).toUpperCase() + " (" + category(UnicodeCategories.type(c))
                        + "): expected " + expected.test(c) + " but matched " + got);
            }
        }
        assertEquals(List.of(), wrong, regex);
    }
}
