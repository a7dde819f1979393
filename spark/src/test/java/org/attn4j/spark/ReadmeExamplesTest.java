package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * The README's {@code java} blocks, compiled as written: {@code EmbedTexts}' methods run on a local Dataset
 * ({@code EmbedCorpus}, the spark-submit application, runs on a cluster in {@code SparkSubmitRecipeIT}).
 */
class ReadmeExamplesTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile("(?m)^public (?:final )?class (\\w+)");

    @TempDir
    Path dir;

    @Test
    void theReadmeExampleCompilesAndEmbedsWithTheTransformerAndTheHelper() throws Exception {
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(Files.readString(Path.of("README.md")));
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertEquals(2, blocks.size(), "java blocks in README.md");
        Class<?> example = compile(blocks).loadClass("EmbedTexts");

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

    private ClassLoader compile(List<String> sources) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-classpath", System.getProperty("java.class.path"), "-d",
                classes.toString(), "-proc:none"));
        for (int i = 0; i < sources.size(); i++) {
            Matcher type = TYPE.matcher(sources.get(i));
            assertTrue(type.find(), "no public class in README.md's java block " + i);
            args.add(Files.writeString(src.resolve(type.group(1) + ".java"), sources.get(i)).toString());
        }
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = ToolProvider.getSystemJavaCompiler().run(null, diagnostics, diagnostics,
                args.toArray(String[]::new));
        assertEquals(0, status, "README.md's java blocks do not compile:\n" + diagnostics);
        return new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
    }
}
