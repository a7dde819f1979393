package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link FlashAttentionF32} and {@link FlashAttentionF64} are one algorithm written twice, since Java has no generics
 * over primitives. This test keeps them in step: it rewrites the F64 source into F32 words ({@code double → float},
 * {@code F64 → F32}, every floating-point literal in one canonical form), diffs it line by line against the F32 source, and
 * requires exactly the differences recorded in {@code flash-attention-twins.diff}: the places where the F32 kernel
 * is meant to differ (its fast exponential, its exponent buffer). A change made to one twin and not the other shows
 * up as a new difference; the failure prints the whole diff, so that a deliberate difference can be recorded.
 */
class FlashAttentionTwinsTest {
    private static final Path SOURCES = Path.of("src/main/java/org/attn4j/backend/ejml");
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])(\\d+\\.\\d*|\\d+)([fFdD]?)(?![\\w.])");

    @Test
    void theF32KernelDiffersFromTheF64KernelOnlyWhereRecorded() throws IOException {
        List<String> f64 = normalized(read("FlashAttentionF64.java"));
        List<String> f32 = normalized(read("FlashAttentionF32.java"));
        String actual = String.join("\n", diff(f64, f32));
        String expected;
        try (var in = FlashAttentionTwinsTest.class.getResourceAsStream("flash-attention-twins.diff")) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        assertEquals(expected, actual, () -> "FlashAttentionF32 and FlashAttentionF64 drifted apart: change both the"
                + " same way, or, if the new difference is meant, record it in src/test/resources/org/attn4j/backend/"
                + "ejml/flash-attention-twins.diff. The diff now (- F64 rewritten to F32 words, + F32):\n" + actual);
    }

    private static List<String> read(String file) throws IOException {
        return Files.readAllLines(SOURCES.resolve(file), StandardCharsets.UTF_8);
    }

    private static List<String> normalized(List<String> lines) {
        List<String> out = new ArrayList<>(lines.size());
        for (String line : lines) {
            String s = line.replace("double", "float").replace("Double", "Float").replace("F64", "F32").strip();
            Matcher m = NUMBER.matcher(s);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                boolean plain = m.group(2).isEmpty() && !m.group(1).contains(".");
                m.appendReplacement(b, Matcher.quoteReplacement(plain ? m.group(1)
                        : Double.toString(Double.parseDouble(m.group(1)))));
            }
            m.appendTail(b);
            out.add(b.toString());
        }
        return out;
    }

    /** A line diff by longest common subsequence: lines only in {@code a} as "- ", only in {@code b} as "+ ". */
    private static List<String> diff(List<String> a, List<String> b) {
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                i++;
                j++;
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
                out.add("+ " + b.get(j++));
            } else {
                out.add("- " + a.get(i++));
            }
        }
        return out;
    }
}
