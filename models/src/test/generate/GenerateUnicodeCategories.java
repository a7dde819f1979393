import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code models/src/main/resources/org/attn4j/models/tokenize/unicode-categories.txt}: the Unicode general
 * category of every code point as runs, one line per run ({@code <first code point, hex> <category>}), each run
 * lasting until the next line's code point, the last one up to U+10FFFF. The categories are those of the JDK that
 * runs this program ({@link Character#getType(int)}), so it must run on a JDK whose Unicode version is the one the
 * file states (JDK 24 and 25: Unicode 16.0, the tables of the Oniguruma that Hugging Face's tokenizers run):
 *
 * <pre>
 *   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java models/src/test/generate/GenerateUnicodeCategories.java
 *   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java models/src/test/generate/GenerateUnicodeCategories.java --check
 * </pre>
 *
 * {@code --check} compares what it would write with the committed file instead of writing it.
 */
public final class GenerateUnicodeCategories {
    private static final String UNICODE = "16.0";
    private static final Path OUT = Path.of("models/src/main/resources/org/attn4j/models/tokenize/unicode-categories.txt");
    /** The two-letter names, indexed by {@link Character#getType(int)}'s value (17 is unused). */
    private static final String[] NAMES = {"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No",
        "Zs", "Zl", "Zp", "Cc", "Cf", null, "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi",
        "Pf"};

    private GenerateUnicodeCategories() {
    }

    public static void main(String[] args) throws IOException {
        int feature = Runtime.version().feature();
        if (feature != 24 && feature != 25) {
            throw new IllegalStateException("Java " + feature + " does not have Unicode " + UNICODE
                    + "'s tables; run this on JDK 24 or 25");
        }
        StringBuilder out = new StringBuilder();
        out.append("# Unicode ").append(UNICODE).append(" general categories, written by ")
                .append("models/src/test/generate/GenerateUnicodeCategories.java.\n# Each line: the first code point of a run (hex) and the category of every code point up")
                .append(" to the next line's.\n");
        int previous = -1;
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            int type = Character.getType(c);
            if (type != previous) {
                out.append(Integer.toHexString(c).toUpperCase()).append(' ').append(NAMES[type]).append('\n');
                previous = type;
            }
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.US_ASCII);
        if (args.length == 1 && args[0].equals("--check")) {
            if (!java.util.Arrays.equals(bytes, Files.readAllBytes(OUT))) {
                throw new IllegalStateException(OUT + " differs from what Java " + feature + " gives");
            }
            System.out.println(OUT + " is what Java " + feature + " gives");
            return;
        }
        if (args.length != 0) {
            throw new IllegalArgumentException("usage: GenerateUnicodeCategories [--check]");
        }
        Files.write(OUT, bytes);
        System.out.println("wrote " + OUT);
    }
}
