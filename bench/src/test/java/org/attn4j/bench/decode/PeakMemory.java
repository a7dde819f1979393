package org.attn4j.bench.decode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The peak resident memory of this process, in the line {@code attn4j generate --stats} prints. */
final class PeakMemory {
    private PeakMemory() {
    }

    /** @return {@code peak memory: M MiB resident (VmHWM)}, from Linux's {@code /proc/self/status} */
    static String line() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    long kb = Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                    return String.format(Locale.ROOT, "peak memory: %.1f MiB resident (VmHWM)", kb / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            return "peak memory: unknown (" + e.getMessage() + ")";
        }
        return "peak memory: unknown (no VmHWM in /proc/self/status)";
    }
}
