package org.attn4j.cli;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The lines of a file or of standard input as texts, read ahead by a thread of their own into a bounded queue, so
 * that the command embeds one chunk while the next is read and memory holds at most {@value #AHEAD} texts whatever
 * the input's length. Blank lines are skipped; every other line is a text (UTF-8, without its {@code \n} or
 * {@code \r\n}). A line that is not valid UTF-8 stops the input with an error naming its number.
 */
final class TextSource implements AutoCloseable {
    /** How many texts the reader may be ahead of the command. */
    static final int AHEAD = 8192;

    /**
     * One line.
     *
     * @param text the text
     * @param bytesRead how many bytes of the input had been read when it was queued
     */
    record Text(String text, long bytesRead) {
    }

    private record End(IOException failure) {
    }

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(AHEAD);
    private final Thread reader;
    private boolean ended;

    private TextSource(InputStream in, String name) {
        Counting counted = new Counting(in);
        reader = new Thread(() -> read(counted, name), "attn4j-input");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param in the input, read to its end by the reader thread (closed there, unless it is {@code System.in})
     * @param name how errors name it, for example {@code --input texts.txt}
     * @return the source, already reading
     */
    static TextSource start(InputStream in, String name) {
        return new TextSource(in, name);
    }

    /**
     * Waits for the next text, then for more until there are {@code max}, the input ends, or no text has come for
     * {@code lingerMillis}; a chunk of a file that keeps flowing is therefore always full, so its batches, and the
     * numbers, do not depend on timing.
     *
     * @param max the most texts to return, at least 1
     * @param lingerMillis how long to wait for one more text before returning what there is; 0 to return at once
     * @return the next texts in order; empty at the end of the input
     * @throws BadInput if a line is not valid UTF-8 (the message names it)
     * @throws IOException if the input could not be read
     */
    List<Text> next(int max, long lingerMillis) throws IOException {
        List<Text> out = new ArrayList<>();
        try {
            while (!ended && out.size() < max) {
                Object item = out.isEmpty() ? queue.take()
                        : lingerMillis == 0 ? queue.poll() : queue.poll(lingerMillis, TimeUnit.MILLISECONDS);
                if (item == null) {
                    break;
                }
                if (item instanceof End end) {
                    ended = true;
                    if (end.failure() != null) {
                        throw end.failure();
                    }
                    break;
                }
                out.add((Text) item);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for input");
        }
        return out;
    }

    /** Stops reading ahead. */
    @Override
    public void close() {
        reader.interrupt();
    }

    private void read(Counting in, String name) {
        IOException failure = null;
        long line = 0;
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        byte[] buffer = new byte[1 << 16];
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        try (in) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        current.write(buffer, start, i - start);
                        start = i + 1;
                        line++;
                        emit(current, decoder, in.count, name, line);
                        current.reset();
                    }
                }
                current.write(buffer, start, n - start);
            }
            if (current.size() > 0) {
                line++;
                emit(current, decoder, in.count, name, line);
            }
        } catch (BadInput e) {
            failure = e;
        } catch (IOException e) {
            failure = new IOException(name + ": reading stopped after line " + line + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            return;
        }
        try {
            queue.put(new End(failure));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Decodes one line (without its {@code \n}, and a {@code \r} before it) and queues it unless blank. */
    private void emit(ByteArrayOutputStream bytes, CharsetDecoder decoder, long read, String name, long line)
            throws BadInput, InterruptedException {
        byte[] b = bytes.toByteArray();
        int length = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
        String text;
        try {
            text = decoder.decode(ByteBuffer.wrap(b, 0, length)).toString();
        } catch (CharacterCodingException e) {
            throw new BadInput(name + ": line " + line + " is not valid UTF-8");
        }
        if (!text.isBlank()) {
            queue.put(new Text(text, read));
        }
    }

    /** Input the command cannot read as texts: exit code 2, as other bad input. */
    static final class BadInput extends IOException {
        private static final long serialVersionUID = 1L;

        BadInput(String message) {
            super(message);
        }
    }

    /** Counts the bytes read, for the progress line; never closes {@code System.in}. */
    private static final class Counting extends FilterInputStream {
        private volatile long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            if (in != System.in) {
                super.close();
            }
        }
    }
}
