package org.attn4j.spark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Brings a model folder named by a Hadoop path to the executor's local disk. A path without a scheme or with
 * {@code file:} is read in place; any other scheme ({@code hdfs:}, {@code s3a:}, {@code abfs:}, …) is copied, folder
 * and all, into a new temporary directory through the Hadoop {@link FileSystem} of that scheme, configured as the
 * driver's Hadoop configuration was.
 */
final class ModelFiles {

    private ModelFiles() {
    }

    /** @return whether {@code modelPath} is read in place rather than copied */
    static boolean isLocal(String modelPath) {
        String scheme = new org.apache.hadoop.fs.Path(modelPath).toUri().getScheme();
        return scheme == null || scheme.equals("file");
    }

    /**
     * @param modelPath a path without a scheme or a {@code file:} URI
     * @return it as a local path
     */
    static Path local(String modelPath) {
        URI uri = new org.apache.hadoop.fs.Path(modelPath).toUri();
        return uri.getScheme() == null ? Path.of(uri.getPath()) : Path.of(uri);
    }

    /**
     * Copies the folder {@code modelPath} into a new directory under {@code java.io.tmpdir}.
     *
     * @param modelPath the folder, as a Hadoop path
     * @param hadoopConf the configuration its file system is opened with
     * @return the local copy; the caller deletes it
     * @throws IOException if it cannot be read or copied
     */
    static Path copyToLocal(String modelPath, Configuration hadoopConf) throws IOException {
        org.apache.hadoop.fs.Path source = new org.apache.hadoop.fs.Path(modelPath);
        FileSystem fs = source.getFileSystem(hadoopConf);
        if (!fs.getFileStatus(source).isDirectory()) {
            throw new IOException(modelPath + " is not a folder (a Hugging Face model folder is expected)");
        }
        Path dir = Files.createTempDirectory("attn4j-model-");
        Path copy = dir.resolve(source.getName().isEmpty() ? "model" : source.getName());
        fs.copyToLocalFile(false, source, new org.apache.hadoop.fs.Path(copy.toUri()), true);
        return copy;
    }

    /** @return {@code conf} as bytes, to ship from the driver to executors */
    static byte[] serialize(Configuration conf) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            conf.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @return the configuration {@link #serialize} wrote */
    static Configuration deserialize(byte[] bytes) {
        Configuration conf = new Configuration(false);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            conf.readFields(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return conf;
    }
}
