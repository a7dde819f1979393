package org.attn4j.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A file the command line writes so that its target is either the whole result or untouched: the bytes go to a
 * temporary file beside the target ({@code .NAME.RANDOM.tmp}), which {@link #commit()} moves over the target
 * (atomically where the file system can). The temporary file is created like any new file, so the operating system
 * gives it the permissions of the user's umask ({@code 0644} under {@code 022}), and the move keeps them;
 * {@link java.nio.file.Files#createTempFile} would make it {@code 0600}. Closing without {@link #commit()} deletes
 * the temporary file.
 */
final class AtomicFile implements AutoCloseable {
    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final OutputStream stream;
    private boolean committed;

    private AtomicFile(Path target, Path temp, FileChannel channel) {
        this.target = target;
        this.temp = temp;
        this.channel = channel;
        this.stream = Channels.newOutputStream(channel);
    }

    /**
     * @param target the file to write
     * @return the temporary file beside it, open for writing
     * @throws IOException if the temporary file cannot be created
     */
    static AtomicFile create(Path target) throws IOException {
        Path absolute = target.toAbsolutePath();
        for (int attempt = 0; ; attempt++) {
            Path temp = absolute.resolveSibling("." + absolute.getFileName() + "."
                    + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
            try {
                return new AtomicFile(absolute, temp, FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE));
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }

    /**
     * @param target the file to write
     * @param content writes the whole content
     * @throws IOException if it cannot be written; the target is then untouched
     */
    static void write(Path target, Content content) throws IOException {
        try (AtomicFile f = create(target)) {
            content.writeTo(f.stream());
            f.commit();
        }
    }

    /** Writes a file's content. */
    @FunctionalInterface
    interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** @return the temporary file's stream (unbuffered; not to be closed by the caller) */
    OutputStream stream() {
        return stream;
    }

    /** @return the temporary file's channel, for writers that seek */
    FileChannel channel() {
        return channel;
    }

    /** @return the file this will become */
    Path target() {
        return target;
    }

    /**
     * Forces the bytes to the disk and moves the temporary file over the target.
     *
     * @throws IOException if it cannot be moved
     */
    void commit() throws IOException {
        channel.force(true);
        channel.close();
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        committed = true;
    }

    /** Deletes the temporary file unless it was committed. */
    @Override
    public void close() throws IOException {
        if (!committed) {
            channel.close();
            Files.deleteIfExists(temp);
        }
    }
}
