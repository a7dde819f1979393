package org.attn4j.models.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JSON automaton against RFC 8259, with Jackson (strict: no trailing tokens, no leading zeros, no control
 * characters in strings) as the oracle on random texts and their mutations.
 */
class JsonRecognizerTest {
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final String[] PIECES = {"{", "}", "[", "]", ",", ":", "\"", "\\", "/", " ", "-", "+", ".", "0",
        "1", "9", "e", "E", "t", "r", "u", "f", "a", "l", "s", "n", "\n", "b", "x", "é", "€", "😀", "\u0001"};

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "12", "-3.25", "1e5", "1E-7", "2.5e+10", "true", "false", "null", "\"\"",
            "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\\uD83D\\uDE00\"", "\"é€😀\"", "{}", "[]", "[1, 2 ,3]",
            "{\"a\": {\"b\": [true, null, {}]}, \"c\": \"d\"}", "{\n  \"a\" : 1\n}"})
    void acceptsWholeValuesOfRfc8259(String text) {
        assertTrue(JsonGrammar.anyValue().accepts(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"01", "-", "1.", ".5", "1e", "+1", "tru", "True", "\"a", "\"\\x\"", "\"\\u12g4\"",
            "{\"a\"}", "{\"a\":}", "{,}", "[1,]", "[,1]", "{\"a\":1,}", "nul", " 1", "1 ", "[1] ", "\"\u0001\"",
            "{'a': 1}"})
    void refusesWhatRfc8259Refuses(String text) {
        assertFalse(JsonGrammar.anyValue().accepts(text), text);
    }

    @Test
    void everyPrefixOfAValueIsAlive() {
        String text = "{\"k\": [1.5e3, \"x\\u0041é\", {\"n\": null}], \"t\": true}";
        JsonRecognizer s = JsonGrammar.anyValue().start();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            assertFalse(s.complete(), "complete after " + i + " bytes of " + text);
            s = s.advance(bytes[i]);
            assertNotNull(s, "byte " + i + " of " + text + " refused");
        }
        assertTrue(s.complete());
    }

    @Test
    void utf8IsCheckedByteByByteSoATokenMayEndInsideACharacter() {
        JsonRecognizer open = JsonGrammar.anyValue().start().advance("\"");
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        JsonRecognizer half = open.advance(new byte[] {euro[0], euro[1]});
        assertNotNull(half);
        assertNull(half.advance((byte) '"'), "a string cannot close inside a character");
        assertNotNull(half.advance(euro[2]).advance((byte) '"'));
        assertNull(open.advance((byte) 0xC0), "overlong lead byte");
        assertNull(open.advance(new byte[] {(byte) 0xED, (byte) 0xA0}), "UTF-16 surrogate in UTF-8");
        assertNull(open.advance((byte) 0xF5), "past U+10FFFF");
    }

    @Test
    void aGapIsNothingOneSpaceOrANewlineAndAnIndentation() {
        String indent = " ".repeat(Tasks.MAX_INDENT);
        assertTrue(JsonGrammar.anyValue().accepts("{\n" + indent + "\"a\" : [1, 2],\n\t\"b\":{}\n}"));
        assertNull(JsonGrammar.anyValue().start().advance("[\n" + indent + " "));
        assertNull(JsonGrammar.anyValue().start().advance("[  "));
        assertNull(JsonGrammar.anyValue().start().advance("[ \n"));
        assertNull(JsonGrammar.anyValue().start().advance("[\n\n"));
        assertNull(JsonGrammar.anyObject().start().advance("{\"a\":\r"));
    }

    @Test
    void anyObjectTakesObjectsOnly() {
        assertTrue(JsonGrammar.anyObject().accepts("{\"a\": [1, {\"b\": \"c\"}]}"));
        assertFalse(JsonGrammar.anyObject().accepts("[]"));
        assertNull(JsonGrammar.anyObject().start().advance("\""));
    }

    /** Law: on any text without whitespace at its ends, the automaton accepts exactly what a strict parser does. */
    @Test
    void agreesWithAStrictParserOnRandomTextsAndTheirMutations() {
        SplittableRandom random = new SplittableRandom(20261202L);
        int accepted = 0;
        for (int i = 0; i < 4000; i++) {
            String text = randomValue(random, 0);
            if (i % 2 == 1) {
                text = mutate(text, random);
            }
            if (text.isEmpty() || Character.isWhitespace(text.charAt(0))
                    || Character.isWhitespace(text.charAt(text.length() - 1)) || !gapsAllowed(text)) {
                continue;
            }
            boolean expected = parses(text);
            assertEquals(expected, JsonGrammar.anyValue().accepts(text), "text " + i + ": " + text);
            accepted += expected ? 1 : 0;
        }
        assertTrue(accepted > 2000, "valid texts among the random ones: " + accepted);
    }

    /** @return whether every run of whitespace, in strings too, is a gap the grammar writes */
    private static boolean gapsAllowed(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[ \t\n\r]+").matcher(text);
        while (m.find()) {
            if (!m.group().matches(" |\n[ \t]{0," + Tasks.MAX_INDENT + "}")) {
                return false;
            }
        }
        return true;
    }

    private static boolean parses(String text) {
        try {
            STRICT.readTree(text);
            return true;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    private static String mutate(String text, SplittableRandom random) {
        StringBuilder b = new StringBuilder(text);
        int at = random.nextInt(b.length() + 1);
        if (at < b.length() && Character.isLowSurrogate(b.charAt(at))) {
            return text;
        }
        int width = at < b.length() ? Character.charCount(b.codePointAt(at)) : 0;
        String piece = PIECES[random.nextInt(PIECES.length)];
        switch (random.nextInt(3)) {
            case 0 -> b.insert(at, piece);
            case 1 -> b.delete(at, at + width);
            default -> b.replace(at, at + width, piece);
        }
        return b.toString();
    }

    private static String randomValue(SplittableRandom random, int depth) {
        int kind = random.nextInt(depth > 3 ? 5 : 7);
        String ws = new String[] {"", "", "", " ", "\n", "\n  ", "\n\t"}[random.nextInt(7)];
        return switch (kind) {
            case 0 -> String.valueOf(random.nextInt(-1000, 1000));
            case 1 -> random.nextInt(2) == 0 ? String.valueOf(random.nextDouble() * 1e3 - 500)
                    : random.nextInt(100) + "e" + (random.nextInt(2) == 0 ? "-" : "") + random.nextInt(30);
            case 2 -> new String[] {"true", "false", "null"}[random.nextInt(3)];
            case 3, 4 -> {
                StringBuilder s = new StringBuilder("\"");
                int n = random.nextInt(6);
                for (int i = 0; i < n; i++) {
                    s.append(new String[] {"a", "é", "€", "😀", "\\n", "\\\"", "\\u00e9", "b c", "\\\\", "/"}[
                            random.nextInt(10)]);
                }
                yield s.append('"').toString();
            }
            case 5 -> {
                StringBuilder s = new StringBuilder("[").append(ws);
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," + ws : "").append(randomValue(random, depth + 1));
                }
                yield s.append(ws).append(']').toString();
            }
            default -> {
                StringBuilder s = new StringBuilder("{").append(ws);
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," : "").append(ws).append("\"k").append(i).append("\"").append(ws).append(':')
                            .append(ws).append(randomValue(random, depth + 1));
                }
                yield s.append(ws).append('}').toString();
            }
        };
    }
}
