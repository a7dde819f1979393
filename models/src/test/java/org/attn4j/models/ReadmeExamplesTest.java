package org.attn4j.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles and runs every {@code java} block of models/README.md that is a whole program (a {@code public class}
 * with a {@code main}) against the test class path, and checks that what it prints is what the block's comment
 * after the print says: a {@code // expected output} line right after {@code System.out.println}.
 */
class ReadmeExamplesTest {
    private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS = Pattern.compile("public class (\\w+)");
    private static final Pattern EXPECTED = Pattern.compile("System\\.out\\.println\\(.*\\);\\s*\\n\\s*// (.*?)"
            + "(?:\\s{3,}\\(.*)?\\n");

    @TempDir
    Path dir;

    @TestFactory
    Stream<DynamicTest> everyReadmeProgramCompilesRunsAndPrintsWhatItsCommentSays() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        List<DynamicTest> tests = new ArrayList<>();
        Matcher m = BLOCK.matcher(readme);
        while (m.find()) {
            String source = m.group(1);
            Matcher c = CLASS.matcher(source);
            if (c.find() && source.contains("void main(")) {
                tests.add(DynamicTest.dynamicTest(c.group(1), () -> run(c.group(1), source)));
            }
        }
        assertFalse(tests.isEmpty(), "models/README.md has no java program");
        return tests.stream();
    }

    private void run(String name, String source) throws Exception {
        Path classes = Files.createDirectories(dir.resolve(name));
        Path file = classes.resolve(name + ".java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-classpath", System.getProperty("java.class.path"),
                "-d", classes.toString(), file.toString());
        assertEquals(0, status, name + " does not compile:\n" + diagnostics);
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeExamplesTest.class.getClassLoader())) {
            Method main = loader.loadClass(name).getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(original);
        }
        List<String> printed = captured.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> expected = new ArrayList<>();
        Matcher e = EXPECTED.matcher(source);
        while (e.find()) {
            expected.add(e.group(1).strip());
        }
        assertTrue(!expected.isEmpty(), name + ": no '// expected output' comment after a println");
        assertEquals(expected, printed, name + " printed something else");
    }
}
