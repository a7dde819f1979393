package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** Each {@code java} block of README.md, run here word for word; the test checks the README still holds them. */
class ReadmeExamplesTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theReadmeJavaBlocksAreTheOnesRunHere() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String source = Files.readString(Path.of("src/test/java/org/attn4j/spark/ReadmeExamplesTest.java"));
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(readme);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertEquals(2, blocks.size(), "java blocks in README.md");
        for (String block : blocks) {
            assertTrue(source.contains(indent(block)), "README block not run by this test:\n" + block);
        }
    }

    @Test
    void theTransformerExample() {
        Dataset<Row> texts = Corpus.frame(LocalSpark.session(), List.of("The cat sat on the mat.", "Hello!"), 2,
                List.of());
        // README: the transformer
        SentenceEmbeddings embeddings = new SentenceEmbeddings()
                .setInputCol("text")
                .setOutputCol("embedding")          // array<float>, 384 values for all-MiniLM-L6-v2
                .setBackend("ejml");                // or leave it out: each executor picks its own
        Dataset<Row> embedded = embeddings.transform(texts);
        // end
        List<Row> rows = embedded.collectAsList();
        assertEquals(2, rows.size());
        assertEquals(384, rows.get(0).getList(2).size());
    }

    @Test
    void theDatasetHelperExample() {
        Dataset<Row> texts = Corpus.frame(LocalSpark.session(), List.of("Hello!"), 1, List.of());
        // README: the helper
        Dataset<Row> withVectors = DatasetEmbeddings.embed(texts, "text", "embedding");
        // end
        assertEquals(List.of("id", "text", "embedding"), List.of(withVectors.columns()));
        assertEquals(384, withVectors.first().getList(2).size());
    }

    private static String indent(String block) {
        return block.lines().map(l -> "        " + l).reduce((a, b) -> a + "\n" + b).orElse("") + "\n";
    }
}
