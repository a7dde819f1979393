package org.attn4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of every README.md in the repository is a complete source file: the blocks of one
 * README are compiled together against this module's test class path (api, models, tck, the EJML backend), and
 * every class with a {@code main} is run. A block that does not compile, or whose {@code main} throws, fails the
 * README's test.
 */
class ReadmeCodeBlocksTest {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
    private static final Pattern ANY_TYPE = Pattern.compile(
            "(?m)^(?:public\\s+)?(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");

    @TempDir
    Path work;

    @TestFactory
    Stream<DynamicTest> everyJavaBlockOfEveryReadmeCompilesAndRuns() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path readme : Readmes.all()) {
            List<String> sources = Readmes.blocks(Readmes.read(readme)).stream()
                    .filter(b -> b.language().equals("java")).map(Readmes.Block::text).toList();
            if (!sources.isEmpty()) {
                String name = Readmes.root().relativize(readme).toString();
                tests.add(DynamicTest.dynamicTest(name, () -> compileAndRun(name, sources)));
            }
        }
        return tests.stream();
    }

    @Test
    void theRootReadmeAndTheModulesReadmesHaveJavaBlocks() {
        List<String> withJava = Readmes.all().stream()
                .filter(p -> Readmes.blocks(Readmes.read(p)).stream().anyMatch(b -> b.language().equals("java")))
                .map(p -> Readmes.root().relativize(p).toString()).toList();
        assertTrue(withJava.containsAll(List.of("README.md", "models/README.md", "tck/README.md")),
                withJava.toString());
    }

    private void compileAndRun(String readme, List<String> sources) throws Exception {
        Path dir = Files.createTempDirectory(work, "readme");
        Path src = Files.createDirectories(dir.resolve("src"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        List<String> files = new ArrayList<>();
        List<String> typeNames = new ArrayList<>();
        for (String source : sources) {
            String type = typeName(readme, source);
            Matcher pkg = PACKAGE.matcher(source);
            String qualified = pkg.find() ? pkg.group(1) + "." + type : type;
            Path file = src.resolve(qualified.replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            files.add(file.toString());
            typeNames.add(qualified);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("-classpath", System.getProperty("java.class.path"),
                "-d", classes.toString(), "-proc:none"));
        args.addAll(files);
        int status = javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new));
        assertEquals(0, status, readme + ": its java blocks do not compile:\n" + diagnostics);

        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeCodeBlocksTest.class.getClassLoader())) {
            for (String type : typeNames) {
                Method main = mainOf(loader.loadClass(type));
                if (main != null) {
                    run(readme, type, main);
                }
            }
        }
    }

    private static String typeName(String readme, String source) {
        Matcher m = PUBLIC_TYPE.matcher(source);
        if (m.find()) {
            return m.group(1);
        }
        m = ANY_TYPE.matcher(source);
        assertTrue(m.find(), readme + ": a java block is not a complete source file (no top-level type):\n"
                + source);
        return m.group(1);
    }

    private static Method mainOf(Class<?> type) {
        try {
            Method main = type.getMethod("main", String[].class);
            return Modifier.isStatic(main.getModifiers()) ? main : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static void run(String readme, String type, Method main) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            throw new AssertionError(readme + ": " + type + ".main threw " + e.getCause() + "\nprinted:\n"
                    + printed.toString(StandardCharsets.UTF_8), e.getCause());
        } finally {
            System.setOut(original);
        }
    }
}
