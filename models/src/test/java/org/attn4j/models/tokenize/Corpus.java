package org.attn4j.models.tokenize;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The tokenizer test corpus: hand-written lines for each hard case, then seeded random mixtures of words, scripts,
 * punctuation, numbers, emoji, white space and invisible characters. Stored one JSON string a line
 * ({@code corpus.jsonl}) so that control characters and line separators survive exactly. Run {@link #main} from
 * the module directory to write the file again; {@code CorpusTest} checks that the file is what this writes.
 */
final class Corpus {
    static final String RESOURCE = "corpus.jsonl";
    static final long SEED = 20_261_122L;
    static final int RANDOM_LINES = 2_000;

    private static final String[] HAND_WRITTEN = {
        "Hello, world!",
        "The quick brown fox jumps over the lazy dog.",
        "I can't believe it's not butter; they're sure we'd've won.",
        "Café naïve résumé coöperate façade jalapeño piñata Ångström Straße",
        "ÀÁÂÃÄÅ àáâãäå ÈÉÊË ÌÍÎÏ ÒÓÔÕÖ ÙÚÛÜ Ýÿ Ññ Çç Œœ Ææ Øø ß",
        "Tiếng Việt có dấu: Hà Nội, Đà Nẵng, Thành phố Hồ Chí Minh.",
        "ΟΔΥΣΣΕΥΣ Οδυσσεύς ΣΟΦΟΣ σοφός ΑΘΗΝΑ",
        "İstanbul'da ışık ılık; Iğdır ve İzmir.",
        "Москва — столица России. Привет, как дела? Ёжик в тумане.",
        "Київ, Україна. Слава Україні! ґ є і ї",
        "日本語のテキストです。東京は大きい都市です。",
        "中文测试：北京欢迎你！我爱自然语言处理。",
        "한국어 텍스트: 안녕하세요, 세계! 서울특별시",
        "مرحبا بالعالم! هذه جملة عربية مُشَكَّلَة: الْعَرَبِيَّةُ",
        "שלום עולם! זוהי משפט בעברית.",
        "नमस्ते दुनिया! हिन्दी में वाक्य। क्षत्रिय",
        "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง",
        "Emoji: 😀 😂 🥰 👍🏽 👨‍👩‍👧‍👦 🇫🇷 🇯🇵 ❤️ ☕ 🏳️‍🌈",
        "https://example.com/path/to/page?query=1&lang=en#section-2",
        "mailto:someone@example.org, ftp://files.example.net/pub/file_v2.tar.gz",
        "Call +1 (555) 123-4567 or 555.987.6543 before 10:30pm.",
        "Pi is 3.14159265358979; e = 2.71828; 1,234,567.89; 1e-10; 0x1F; 50% off; $19.99; €5; ¥1000",
        "Supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
        "a".repeat(99),
        "b".repeat(100),
        "c".repeat(101),
        "d".repeat(250) + " short",
        "tab\there\tand\ttabs",
        "line\nbreaks\r\nand\rreturns",
        "no-break\u00A0space, em\u2003space, ideographic\u3000space, thin\u2009space",
        "line\u2028separator and paragraph\u2029separator and next\u0085line",
        "nul\u0000char bell\u0007char escape\u001B[31mred\u001B[0m delete\u007F",
        "zero\u200Bwidth\u200Cnon\u200Djoiner\uFEFFbom\u2060wj",
        "soft\u00ADhyphen and replacement \uFFFD char",
        "   leading and trailing spaces   ",
        "",
        " ",
        "\t\n",
        "[CLS] already [SEP] has [MASK] specials [PAD] and [UNK]",
        "[cls] lower-case look-alikes [sep] [mask]",
        "word[MASK]glued and [[MASK]] brackets",
        "«Guillemets» „Anführungszeichen“ “curly” ‘single’ ‹angle›",
        "Dashes: - – — ― and ellipsis … and bullets • ·",
        "Math: ∑∫∂√∞ ≠ ≤ ≥ ± × ÷ α+β=γ",
        "Currency: $ € £ ¥ ₹ ₽ ₩ ₿ ¢",
        "C++ & C# are languages; so is F#. <html><body>Hi</body></html>",
        "snake_case_identifier camelCaseIdentifier kebab-case-identifier",
        "file.txt, archive.tar.gz, v1.2.3-beta+build.45",
        "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ ！？",
        "ﬁ ﬂ ligatures, ℌ ℍ ℕ letterlike, ① ② ③ circled, Ⅻ roman",
        "Combining: e\u0301 a\u0308 o\u0303 n\u0303 c\u0327 (decomposed)",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 𝐁𝐨𝐥𝐝 (astral letters)",
        "𠜎𠜱𠝹𠱓 rare CJK extension B, 𪚥 𫝀 extension C/D",
        "Private use \uE000\uF8FF and unassigned \u0378 chars",
        "ǅungla ǈudi ǋ titlecase digraphs",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "!!!???...,,,;;;:::---___===+++",
        "12345678901234567890123456789012345678901234567890",
    };

    private static final String[][] POOLS = {
        {"the", "of", "and", "to", "in", "is", "was", "for", "on", "that", "with", "as", "by", "at", "from",
            "embedding", "transformer", "attention", "tokenizer", "unbelievable", "preprocessing", "Java",
            "Hugging", "Face", "BERT", "GPT", "running", "jumped", "happiness", "internationalization", "don't",
            "it's", "o'clock", "rock'n'roll", "e-mail", "co-operate", "U.S.A.", "Ph.D.", "etc."},
        {"café", "naïve", "résumé", "Zürich", "Ærøskøbing", "São", "Paulo", "Kraków", "Dvořák", "Malmö", "Øre",
            "façade", "crème", "brûlée", "Ñandú", "Île", "Açaí", "ŠKODA", "Łódź", "Ğ", "ǆ"},
        {"Привет", "мир", "данные", "язык", "Ёлка", "объём", "Ґанок", "Београд", "Ѓорѓи", "Ὀδυσσεύς", "ΣΙΣΥΦΟΣ",
            "λόγος", "ψυχή"},
        {"日本", "東京", "中文", "北京", "你好", "世界", "漢字", "カタカナ", "ひらがな", "한국어", "서울", "안녕",
            "𠀀", "𪜀", "豈", "丽"},
        {"السلام", "عليكم", "كِتَاب", "مُحَمَّد", "שלום", "עברית", "हिन्दी", "भाषा", "தமிழ்", "ไทย", "ລາວ", "ქართული",
            "Հայերեն", "አማርኛ"},
        {"😀", "🙈", "🚀", "🤖", "👩🏾‍💻", "🧑‍🤝‍🧑", "🇩🇪", "✈️", "⚡", "🔥🔥", "☃", "♥", "✔", "🀄", "🃏", "🫠",
            "🦩"},
        {"0", "7", "42", "3.14", "1,000", "10^6", "2024-11-22", "12:34:56", "#1", "No.5", "50%", "-17", "+3",
            "1/2", "½", "²", "٣", "४", "Ⅳ"},
        {"!", "?", ".", ",", ";", ":", "(", ")", "[", "]", "{", "}", "\"", "'", "`", "~", "@", "#", "$", "%",
            "^", "&", "*", "-", "_", "=", "+", "<", ">", "/", "\\", "|", "¿", "¡", "§", "¶", "†", "‰", "′", "※"},
        {"https://attn4j.org/docs", "www.example.com", "user@example.com", "http://a.b/c?d=e&f=g",
            "C:\\Windows\\System32", "/usr/local/bin", "#hashtag", "@mention", "$HOME", "${var}"},
    };

    private static final String[] SPACES = {" ", " ", " ", " ", "  ", "\t", "\n", "\r\n", "\u00A0", "\u2003",
        "\u3000", "\u2028", "\u200B", "\u200D", "\uFEFF", "", "\u0000", "\u0007", "\u0085", "\u00AD"};

    private Corpus() {
    }

    static List<String> generate() {
        List<String> lines = new ArrayList<>(List.of(HAND_WRITTEN));
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < RANDOM_LINES; i++) {
            lines.add(randomLine(random));
        }
        return lines;
    }

    private static String randomLine(SplittableRandom random) {
        StringBuilder line = new StringBuilder();
        int words = 1 + random.nextInt(random.nextInt(10) == 0 ? 60 : 14);
        for (int w = 0; w < words; w++) {
            if (w > 0) {
                line.append(SPACES[random.nextInt(SPACES.length)]);
            }
            String[] pool = POOLS[random.nextInt(POOLS.length)];
            String word = pool[random.nextInt(pool.length)];
            switch (random.nextInt(12)) {
                case 0 -> word = word.toUpperCase(java.util.Locale.ROOT);
                case 1 -> word = word + POOLS[7][random.nextInt(POOLS[7].length)];
                case 2 -> word = word + pool[random.nextInt(pool.length)];
                case 3 -> word = word.repeat(2 + random.nextInt(random.nextInt(5) == 0 ? 40 : 4));
                case 4 -> word = word + randomCodePoint(random);
                default -> {
                }
            }
            line.append(word);
        }
        return line.toString();
    }

    /** Any code point but a surrogate, most often from the planes and blocks real text uses. */
    private static String randomCodePoint(SplittableRandom random) {
        int c = switch (random.nextInt(4)) {
            case 0 -> random.nextInt(0x80, 0x800);
            case 1 -> random.nextInt(0x800, 0x10000);
            case 2 -> random.nextInt(0x1F300, 0x1FB00);
            default -> random.nextInt(0x10000, 0x30000);
        };
        if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
            c = 0x2603;
        }
        return new String(Character.toChars(c));
    }

    static List<String> read() {
        ObjectMapper json = new ObjectMapper();
        try (InputStream in = Corpus.class.getResourceAsStream(RESOURCE)) {
            List<String> lines = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(json.readValue(l, String.class));
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String toJsonLines(List<String> lines) throws IOException {
        ObjectMapper json = new ObjectMapper();
        StringBuilder out = new StringBuilder();
        for (String l : lines) {
            out.append(json.writeValueAsString(l)).append('\n');
        }
        return out.toString();
    }

    /**
     * Writes the corpus file.
     *
     * @param args optionally the output path; by default the test resource, from the models module directory
     * @throws IOException if it cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0]
                : "src/test/resources/org/attn4j/models/tokenize/" + RESOURCE);
        Files.writeString(out, toJsonLines(generate()));
        System.out.println("wrote " + out);
    }
}
