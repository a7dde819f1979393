package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's {@code java} block, compiled as written and its methods run on a local Dataset. */
class ReadmeExamplesTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @TempDir
    Path dir;

    @Test
    void theReadmeExampleCompilesAndEmbedsWithTheTransformerAndTheHelper() throws Exception {
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(Files.readString(Path.of("README.md")));
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertEquals(1, blocks.size(), "java blocks in README.md");
        Class<?> example = compile("EmbedTexts", blocks.get(0));

        Dataset<Row> texts = Corpus.frame(LocalSpark.session(), List.of("The cat sat on the mat.", "Hello!"), 2,
                List.of());
        for (String method : List.of("withTheTransformer", "withTheHelper")) {
            Method run = example.getMethod(method, Dataset.class);
            @SuppressWarnings("unchecked")
            Dataset<Row> embedded = (Dataset<Row>) run.invoke(null, texts);
            assertEquals(List.of("id", "text", "embedding"), List.of(embedded.columns()), method);
            for (Row row : embedded.collectAsList()) {
                assertEquals(384, row.getList(2).size(), method + " row " + row.getInt(0));
            }
        }
    }

    private Class<?> compile(String name, String source) throws IOException, ClassNotFoundException {
        Path file = Files.writeString(Files.createDirectories(dir.resolve("src")).resolve(name + ".java"), source);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = ToolProvider.getSystemJavaCompiler().run(null, diagnostics, diagnostics, "-classpath",
                System.getProperty("java.class.path"), "-d", classes.toString(), "-proc:none", file.toString());
        assertEquals(0, status, "README.md's java block does not compile:\n" + diagnostics);
        URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        return loader.loadClass(name);
    }
}
