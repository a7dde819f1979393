package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The figures {@code attn4j generate --stats} prints on standard error after the text, as llama.cpp prints its
 * timings: the prompt's tokens per second (the forward over the whole prompt, which also yields the first new
 * token), the generated tokens per second (every later step), and the process's peak resident memory.
 * <pre>
 *   load: S s (backend ejml, weights Q4_K_M: Q8_0 15, Q5_0 166, Q4_K 16, Q6_K 14, F32 61; M MiB)
 *   prefill: N tokens in T ms (T/N ms per token, R tokens/s)
 *   decode: N tokens in T ms (T/N ms per token, R tokens/s)
 *   peak memory: M MiB resident (VmHWM)
 * </pre>
 * The load line names the mix of the weights (a GGUF file's {@code general.file_type}, the {@code --weights}
 * asked for, or {@code as in the file}), counts the checkpoint's tensors by the type each is held in and gives the
 * bytes they occupy on the backend. A step that ended generation on a stop token counts as a decoded token. Where the OS has no
 * {@code /proc/self/status}, the peak memory is the Java heap's (the sum of its pools' peaks).
 */
final class GenerationStats {
    private final long start;
    private long loaded;
    private long promptStart;
    private long firstToken;
    private long last;
    private int tokens;

    GenerationStats() {
        start = System.nanoTime();
    }

    /** Marks the model as bound. */
    void loaded() {
        loaded = System.nanoTime();
    }

    /** Marks the start of the prompt's forward. */
    void promptStarts() {
        promptStart = System.nanoTime();
    }

    /** Marks a token as chosen. */
    void token() {
        long now = System.nanoTime();
        if (tokens++ == 0) {
            firstToken = now;
        }
        last = now;
    }

    /**
     * Prints the figures.
     *
     * @param err where to
     * @param promptTokens the prompt's length
     * @param stoppedEarly whether a stop token ended generation (its step then counts as one more decoded token)
     * @param what the backend and weights, for the load line
     */
    void print(PrintWriter err, int promptTokens, boolean stoppedEarly, String what) {
        long end = System.nanoTime();
        err.println(String.format(Locale.ROOT, "load: %.2f s (%s)", (loaded - start) / 1e9, what));
        if (tokens == 0) {
            err.println(String.format(Locale.ROOT, "prefill: %d tokens in %.1f ms, then a stop token",
                    promptTokens, (end - promptStart) / 1e6));
        } else {
            err.println(rate("prefill", promptTokens, firstToken - promptStart));
            int decoded = tokens - 1 + (stoppedEarly ? 1 : 0);
            err.println(rate("decode", decoded, (stoppedEarly ? end : last) - firstToken));
        }
        err.println(peakMemory());
        err.flush();
    }

    private static String rate(String what, int count, long nanos) {
        double ms = nanos / 1e6;
        if (count == 0) {
            return what + ": 0 tokens";
        }
        return String.format(Locale.ROOT, "%s: %d tokens in %.1f ms (%.2f ms per token, %.2f tokens/s)", what, count,
                ms, ms / count, count / (ms / 1e3));
    }

    /** @return the peak resident memory of this process (Linux {@code VmHWM}), else the heap's peak */
    static String peakMemory() {
        Path status = Path.of("/proc/self/status");
        if (Files.isReadable(status)) {
            try {
                for (String line : Files.readAllLines(status)) {
                    if (line.startsWith("VmHWM:")) {
                        long kb = Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                        return String.format(Locale.ROOT, "peak memory: %.1f MiB resident (VmHWM)", kb / 1024.0);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // fall through to the heap's figure
            }
        }
        long heap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                heap += pool.getPeakUsage().getUsed();
            }
        }
        return String.format(Locale.ROOT, "peak memory: %.1f MiB of Java heap (no /proc/self/status here)",
                heap / 1048576.0);
    }
}
