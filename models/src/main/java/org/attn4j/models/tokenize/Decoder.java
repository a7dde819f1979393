package org.attn4j.models.tokenize;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A decoder of a tokenizer.json: turns the tokens of some ids into strings that, joined, are the text, as Hugging
 * Face's {@code decode_chain}. The decoders that are not their own type ({@link ByteLevel}, {@link Metaspace},
 * WordPiece) are made here: {@link #replace}, {@link #byteFallback}, {@link #fuse}, {@link #strip},
 * {@link #sequence}.
 */
interface Decoder {

    /**
     * @param tokens tokens as the vocabulary spells them (special tokens already dropped if asked)
     * @return the decoded pieces, in order
     */
    List<String> decode(List<String> tokens);

    /**
     * @param pattern what to replace in each token (a literal string, or a compiled Oniguruma regex)
     * @param content what replaces it, taken literally
     * @return Hugging Face's {@code Replace} decoder
     */
    static Decoder replace(Pattern pattern, String content) {
        String literal = Matcher.quoteReplacement(content);
        return tokens -> tokens.stream().map(t -> pattern.matcher(t).replaceAll(literal)).toList();
    }

    /**
     * Hugging Face's {@code ByteFallback}: each run of {@code <0xNN>} tokens becomes the text its bytes spell in
     * UTF-8, or one U+FFFD per byte when they are not valid UTF-8.
     *
     * @return the decoder
     */
    static Decoder byteFallback() {
        return tokens -> {
            List<String> out = new ArrayList<>(tokens.size());
            ByteArrayOutputStream run = new ByteArrayOutputStream();
            for (String t : tokens) {
                int b = byteToken(t);
                if (b >= 0) {
                    run.write(b);
                    continue;
                }
                flush(run, out);
                out.add(t);
            }
            flush(run, out);
            return out;
        };
    }

    private static int byteToken(String t) {
        if (t.length() != 6 || !t.startsWith("<0x") || t.charAt(5) != '>') {
            return -1;
        }
        String hex = t.substring(3, 5);
        if (hex.charAt(0) == '+') {
            hex = hex.substring(1);
        }
        try {
            return Integer.parseInt(hex, 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void flush(ByteArrayOutputStream run, List<String> out) {
        if (run.size() == 0) {
            return;
        }
        byte[] bytes = run.toByteArray();
        run.reset();
        try {
            out.add(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString());
        } catch (java.nio.charset.CharacterCodingException e) {
            for (int i = 0; i < bytes.length; i++) {
                out.add("\uFFFD");
            }
        }
    }

    /** @return Hugging Face's {@code Fuse}: all tokens joined into one */
    static Decoder fuse() {
        return tokens -> List.of(String.join("", tokens));
    }

    /**
     * @param content the character to strip
     * @param start how many of it at most to take off the start of each token
     * @param stop how many at the end
     * @return Hugging Face's {@code Strip} decoder
     */
    static Decoder strip(int content, int start, int stop) {
        return tokens -> tokens.stream().map(t -> {
            int[] cps = t.codePoints().toArray();
            int from = 0;
            while (from < Math.min(start, cps.length) && cps[from] == content) {
                from++;
            }
            int to = cps.length;
            for (int i = 0; i < stop && to > from && cps[to - 1] == content; i++) {
                to--;
            }
            return new String(cps, from, to - from);
        }).toList();
    }

    /**
     * @param decoders decoders applied one after the other
     * @return Hugging Face's {@code Sequence} decoder
     */
    static Decoder sequence(List<Decoder> decoders) {
        List<Decoder> all = List.copyOf(decoders);
        return tokens -> {
            List<String> current = tokens;
            for (Decoder d : all) {
                current = d.decode(current);
            }
            return current;
        };
    }
}
