package org.attn4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Follows the tck README's recipe as a backend author would, with the README's own text: its install command in a
 * copy of this repository, its {@code pom.xml} and test class in a fresh folder, a backend of that folder's own (the
 * template's {@code src/main} copied and renamed to the name the test class gives, as the README suggests), its run
 * command there, and compares what the kit prints with the README's expected output: line for line, every number
 * standing for any number and a line {@code …} for any lines ({@link ScratchBuild}: a private local Maven
 * repository).
 */
class TckRecipeIT {
    private static final Pattern NAME = Pattern.compile("super\\(\"([a-z0-9]+)\"\\)");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?(?:e[+-]\\d+)?");

    @Test
    void theRecipeBuildsAFreshBackendProjectAndItsKitRunSaysConformant() throws Exception {
        String section = Readmes.section(Readmes.read(Readmes.root().resolve("tck/README.md")),
                "Run the kit on your backend: the recipe");
        List<Readmes.Block> blocks = Readmes.blocks(section);
        List<String> commands = blocks.stream().filter(b -> b.language().equals("shell"))
                .map(b -> b.text().strip()).toList();
        assertEquals(2, commands.size(), "an install command and a run command:\n" + section);
        String pom = Readmes.only(blocks, "xml");
        String test = Readmes.only(blocks, "java");
        List<String> expected = Readmes.only(blocks, "text").lines().toList();
        Matcher named = NAME.matcher(test);
        assertTrue(named.find(), "the test class names its backend: " + test);
        String backend = named.group(1);

        ScratchBuild build = ScratchBuild.get();
        ScratchBuild.Run install = build.maven(build.repository(), commands.get(0));
        assertEquals(0, install.exit(), install.transcript());

        Path project = build.newFolder("recipe-" + backend);
        Files.writeString(project.resolve("pom.xml"), pom);
        copyTemplateAs(build.repository().resolve("backend-template/src/main"), project.resolve("src/main"), backend);
        Path testClass = project.resolve("src/test/java/" + className(test) + ".java");
        Files.createDirectories(testClass.getParent());
        Files.writeString(testClass, test);
        ScratchBuild.Run run = build.maven(project, commands.get(1));
        assertEquals(0, run.exit(), run.transcript());

        assertPrinted(expected, run);
        assertTrue(Files.isRegularFile(project.resolve("target/attn4j-tck/" + backend + ".json")), run.transcript());
    }

    private static String className(String source) {
        Matcher m = Pattern.compile("class (\\w+)").matcher(source);
        assertTrue(m.find(), source);
        return m.group(1);
    }

    /**
     * Copies the template's sources as an author starts a backend: package {@code com.example.<name>}, classes
     * {@code <Name>…}, provider name {@code <name>}.
     */
    private static void copyTemplateAs(Path from, Path to, String name) throws IOException {
        String type = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String relative = from.relativize(f).toString().replace('\\', '/')
                        .replace("org/attn4j/backend/template", "com/example/" + name).replace("Naive", type);
                String text = Files.readString(f).replace("org.attn4j.backend.template", "com.example." + name)
                        .replace("Naive", type).replace("naive", name);
                Path target = to.resolve(relative);
                Files.createDirectories(target.getParent());
                Files.writeString(target, text);
            }
        }
    }

    /** The README's expected lines, found in order in what Maven printed; numbers vary, {@code …} skips lines. */
    private static void assertPrinted(List<String> expected, ScratchBuild.Run run) {
        List<String> printed = run.lines().stream().map(l -> l.replaceAll(" +", " ")).toList();
        Pattern first = pattern(expected.get(0));
        int at = 0;
        while (at < printed.size() && !first.matcher(printed.get(at)).matches()) {
            at++;
        }
        assertTrue(at < printed.size(), "no line like '" + expected.get(0) + "'\n" + run.transcript());
        for (int i = 0; i < expected.size(); i++) {
            String want = expected.get(i);
            if (want.equals("…")) {
                Pattern next = pattern(expected.get(i + 1));
                while (at < printed.size() && !next.matcher(printed.get(at)).matches()) {
                    at++;
                }
                continue;
            }
            assertTrue(at < printed.size(), "output ends before '" + want + "'\n" + run.transcript());
            assertTrue(pattern(want).matcher(printed.get(at)).matches(), "line '" + printed.get(at)
                    + "' is not like the README's '" + want + "'\n" + run.transcript());
            at++;
        }
    }

    /** @return the line as a pattern in which every number matches any number, runs of spaces collapsed */
    private static Pattern pattern(String text) {
        String line = text.replaceAll(" +", " ");
        StringBuilder regex = new StringBuilder();
        Matcher m = NUMBER.matcher(line);
        int last = 0;
        while (m.find()) {
            regex.append(Pattern.quote(line.substring(last, m.start()))).append(NUMBER.pattern());
            last = m.end();
        }
        regex.append(Pattern.quote(line.substring(last)));
        return Pattern.compile(regex.toString().replace(NUMBER.pattern(), "(?:\\d+(?:\\.\\d+)?(?:e[+-]\\d+)?|inf)"));
    }
}
