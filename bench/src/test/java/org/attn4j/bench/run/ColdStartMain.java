package org.attn4j.bench.run;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Locale;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * What a user of a fresh JVM sees: load the embedded all-MiniLM-L6-v2, then embed one text of exactly L tokens N
 * times. Prints each call's milliseconds on one line, then a summary row {@code load | first | calls 2–5 | median of
 * calls 20–40 | RSS growth} that {@link MiniLmMain} {@code jvms} collects.
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp … org.attn4j.bench.run.ColdStartMain [backend] [L] [N]
 * </pre>
 */
public final class ColdStartMain {
    private ColdStartMain() {
    }

    /**
     * @param args backend (default ejml), L (128), N (40)
     * @throws IOException if the model cannot be read
     */
    public static void main(String[] args) throws IOException {
        String backend = args.length > 0 ? args[0] : "ejml";
        int length = args.length > 1 ? Integer.parseInt(args[1]) : 128;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        long rss0 = MiniLmMain.rssBytes();
        long t0 = System.nanoTime();
        SentenceEmbedder e = SentenceEmbedder.loadDefault(Backends.load(backend),
                EmbeddingOptions.defaults().withMaxLength(length));
        double loadMs = (System.nanoTime() - t0) / 1e6;
        long rss1 = MiniLmMain.rssBytes();
        String text = String.join(" ", Collections.nCopies(length - 2, "hello"));
        double[] ms = new double[calls];
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < calls; i++) {
            long s = System.nanoTime();
            int tokens = e.embed(text).ids().length;
            ms[i] = (System.nanoTime() - s) / 1e6;
            if (tokens != length) {
                throw new IllegalStateException("the text has " + tokens + " tokens, not " + length);
            }
            line.append(String.format(Locale.ROOT, "%.1f ", ms[i]));
        }
        System.out.println(line.toString().strip());
        double[] late = Arrays.copyOfRange(ms, Math.min(19, calls - 1), calls);
        Arrays.sort(late);
        double early = 0;
        for (int i = 1; i < Math.min(5, calls); i++) {
            early = Math.max(early, ms[i]);
        }
        System.out.printf(Locale.ROOT, "%.0f | %.1f | up to %.1f | %.1f | %.0f%n", loadMs, ms[0], early,
                late[late.length / 2], (rss1 - rss0) / 1e6);
        e.close();
    }
}
