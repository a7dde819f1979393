package org.attn4j.server;

import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a served model's first request costs, logged at INFO through {@link System.Logger} (logger
 * {@code org.attn4j.server.StartupLog}), one line each: how long each model took to load, and how long its first
 * call took ({@link FirstCall}): the embeddings batch, the rerank, the decoding step.
 */
final class StartupLog {
    private static final System.Logger LOG = System.getLogger(StartupLog.class.getName());

    private StartupLog() {
    }

    /**
     * @param kind what was loaded ("encoder", "decoder", "chat model", "reranker")
     * @param name the name it is served under
     * @param startNanos {@link System#nanoTime()} when its loading began
     */
    static void loaded(String kind, String name, long startNanos) {
        long ms = (System.nanoTime() - startNanos) / 1_000_000;
        LOG.log(Level.INFO, () -> String.format(Locale.ROOT, "attn4j server: %s %s loaded in %d ms", kind, name, ms));
    }

    /** The first call of one model: its time is logged once, the later calls' never. */
    static final class FirstCall {
        private final String what;
        private final AtomicBoolean done = new AtomicBoolean();

        /** @param what the call, for example {@code "embeddings call of all-minilm-l6-v2"} */
        FirstCall(String what) {
            this.what = what;
        }

        /**
         * Logs the call that began at {@code startNanos} if it is the first to end.
         *
         * @param startNanos {@link System#nanoTime()} when it began
         * @param size what it did, for example {@code "3 texts"}
         */
        void ended(long startNanos, String size) {
            if (done.compareAndSet(false, true)) {
                long ms = (System.nanoTime() - startNanos) / 1_000_000;
                LOG.log(Level.INFO, () -> String.format(Locale.ROOT, "attn4j server: first %s (%s) took %d ms", what,
                        size, ms));
            }
        }
    }
}
