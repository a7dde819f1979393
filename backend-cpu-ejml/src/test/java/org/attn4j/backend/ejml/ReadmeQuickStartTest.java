package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.attn4j.api.Backends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compiles and runs the quick start of the root README.md exactly as printed, so the snippet cannot rot. */
class ReadmeQuickStartTest {

    @Test
    void readmeQuickStartCompilesAndComputesCausalAttentionOnEjml(@TempDir Path dir) throws Exception {
        String source = quickStartSource();
        Path file = dir.resolve("QuickStart.java");
        Files.writeString(file, source);
        String apiClasses = Path.of(Backends.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-classpath", apiClasses, "-d", dir.toString(),
                file.toString());
        assertEquals(0, status, "the README quick start does not compile:\n" + diagnostics);

        String printed = runMain(dir);
        List<String> lines = printed.lines().toList();
        assertEquals("ejml [1, 1, 4, 8]", lines.get(0), printed);
        assertTrue(lines.get(1).startsWith("[1.0, 0.0, 0.0, 0.0, "), "the first query may attend only to itself: "
                + lines.get(1));
    }

    private static String quickStartSource() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(), "README.md has no ```java block");
        return m.group(1);
    }

    private static String runMain(Path classes) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeQuickStartTest.class.getClassLoader())) {
            Method main = loader.loadClass("QuickStart").getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
