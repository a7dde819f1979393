package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelFilesTest {

    @TempDir
    Path dir;

    @Test
    void pathsWithoutASchemeOrWithFileAreReadInPlaceAndOthersAreCopied() {
        assertTrue(ModelFiles.isLocal("/models/minilm"));
        assertTrue(ModelFiles.isLocal("models/minilm"));
        assertTrue(ModelFiles.isLocal("file:///models/minilm"));
        assertFalse(ModelFiles.isLocal("hdfs://namenode:8020/models/minilm"));
        assertFalse(ModelFiles.isLocal("s3a://bucket/models/minilm"));
        assertEquals(Path.of("/models/minilm"), ModelFiles.local("file:///models/minilm"));
        assertEquals(Path.of("/models/minilm"), ModelFiles.local("/models/minilm"));
    }

    @Test
    void aFolderIsCopiedWholeThroughItsHadoopFileSystem() throws IOException {
        Path model = dir.resolve("source/minilm");
        Files.createDirectories(model.resolve("1_Pooling"));
        Files.writeString(model.resolve("config.json"), "{\"model_type\": \"bert\"}");
        Files.writeString(model.resolve("1_Pooling/config.json"), "{\"pooling_mode_mean_tokens\": true}");
        byte[] weights = new byte[100_000];
        new java.util.Random(3).nextBytes(weights);
        Files.write(model.resolve("model.safetensors"), weights);

        Path copy = ModelFiles.copyToLocal(model.toUri().toString(), new Configuration());
        try {
            assertEquals("minilm", copy.getFileName().toString());
            assertEquals(List.of("1_Pooling/config.json", "config.json", "model.safetensors"), files(copy));
            assertArrayEquals(weights, Files.readAllBytes(copy.resolve("model.safetensors")));
            assertEquals(Files.readString(model.resolve("1_Pooling/config.json")),
                    Files.readString(copy.resolve("1_Pooling/config.json")));
        } finally {
            try (Stream<Path> s = Files.walk(copy.getParent())) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aFileWhereAFolderIsExpectedIsRefused() throws IOException {
        Path file = Files.writeString(dir.resolve("model.safetensors"), "x");
        IOException e = assertThrows(IOException.class,
                () -> ModelFiles.copyToLocal(file.toUri().toString(), new Configuration()));
        assertTrue(e.getMessage().endsWith("is not a folder (a Hugging Face model folder is expected)"),
                e.getMessage());
    }

    @Test
    void theDriversHadoopConfigurationReachesTheExecutorIntact() {
        Configuration conf = new Configuration(false);
        conf.set("fs.s3a.endpoint", "http://minio:9000");
        conf.setInt("dfs.replication", 2);
        Configuration back = ModelFiles.deserialize(ModelFiles.serialize(conf));
        assertEquals("http://minio:9000", back.get("fs.s3a.endpoint"));
        assertEquals(2, back.getInt("dfs.replication", 0));
    }

    @Test
    void aTaskCarriesTheModelsNameAndOptionsButNoModel() throws IOException {
        ModelKey key = new ModelKey("", "ejml", "mean", true, 256, 32, 0, "query", null, "truncate");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new PartitionEmbedder(key, 1, false, null));
        }
        assertTrue(bytes.size() < 2_000, bytes.size() + " bytes");
    }

    private static List<String> files(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .sorted().toList();
        }
    }
}
