package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code embed} holds a bounded number of texts whatever the input's length: 60,000 lines go through a JVM whose
 * heap is capped at {@value #HEAP}. Keeping them would not fit: each text's embedding (16 floats), ids, string and
 * objects take about 250 bytes, 15 MB for the input, and the list of its lines 5 MB more, besides the 6 MB or so the
 * command needs anyway. The run is asserted on its exit code and on every row arriving in the output, never on
 * time.
 */
class EmbedStreamsInFlatMemoryTest {
    private static final String HEAP = "-Xmx16m";
    private static final int LINES = 60_000;
    private static final int DIM = 16;

    @TempDir
    Path dir;

    @Test
    void sixtyThousandLinesGoThroughA16MegabyteHeap() throws IOException, InterruptedException {
        Path model = TinyBert.write(dir.resolve("tiny"), DIM, false);
        Path input = dir.resolve("lines.txt");
        try (BufferedWriter w = Files.newBufferedWriter(input)) {
            for (int i = 0; i < LINES; i++) {
                w.write("the cat sat on the mat");
                w.write(" word".repeat(i % 7));
                w.write(" " + i);
                w.newLine();
            }
        }
        Path output = dir.resolve("out.npy");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), HEAP,
                "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-Dattn4j.relaunch=false", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "embed", "--model", model.toString(), "--backend", "ejml", "--pooling", "mean",
                "--batch-size", "128", "--input", input.toString(), "--format", "npy", "--output", output.toString());
        Path log = dir.resolve("log.txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "embed did not finish");
        String transcript = Files.readString(log);
        assertEquals(0, p.exitValue(), transcript);
        assertTrue(transcript.contains(String.format(java.util.Locale.ROOT, "%,d texts embedded", LINES)), transcript);
        float[][] rows = EmbedCommandTest.npy(output);
        assertEquals(LINES, rows.length);
        assertEquals(DIM, rows[LINES - 1].length);
    }
}
