package org.attn4j.bench.run;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * Where a forward's time goes, op by op, from a JFR recording: a model runs its forwards on a backend while JFR
 * samples the calling thread every millisecond (Java and native frames), and each sample is charged to the op the
 * model's code called, the outermost {@code AbstractOps} frame of its stack (an op's inner calls count in it), or
 * to "outside ops" (tokenising, pooling, copies out). The report gives, per op, its share of the samples and the
 * wall time per forward that share stands for, beside the forward's mean wall time, the process's CPU time per
 * forward (all threads: the native libraries' pools included, spinning workers too) and the calling thread's (which,
 * with {@code OPENBLAS_NUM_THREADS=1}, is all the work, and unlike wall time does not count the waits for a core on a
 * loaded machine), then the innermost frames that the samples hit most. Threads JFR does not know (OpenBLAS's and OpenMP's workers) are not sampled; their
 * cost shows in the CPU time only.
 * <p>
 * Workloads: {@code minilm:BxL} (all-MiniLM-L6-v2 embedding B sentences of exactly L tokens, as {@link MiniLmBench})
 * and {@code gpt2} / {@code llama} (one decoding step of {@link GenerationBenchMain}'s small random decoders, the
 * cache holding {@value #CACHED} tokens). With the class path of the bench README:
 * <pre>
 *   java -cp … org.attn4j.bench.run.OpProfileMain minilm:1x16,minilm:1x128,gpt2,llama [report.md]
 * </pre>
 * System properties: {@code bench.backends} (default {@code nd4j}), {@code bench.warmup} (forwards before the
 * recording, default 30), {@code bench.forwards} (recorded forwards, default 100). The figures are means: compare
 * runs on a quiet machine only.
 */
public final class OpProfileMain {
    private static final int CACHED = 64;
    private static final int TOP_FRAMES = 12;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private OpProfileMain() {
    }

    /**
     * @param args workloads, comma-separated, and optionally a file to write the report to
     * @throws IOException if the model, the recording or the report cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        String[] workloads = (args.length > 0 ? args[0] : "minilm:1x16,minilm:1x128,gpt2,llama").split(",");
        String[] backends = System.getProperty("bench.backends", "nd4j").split(",");
        int warmup = Integer.getInteger("bench.warmup", 30);
        int forwards = Integer.getInteger("bench.forwards", 100);
        List<String> lines = new ArrayList<>();
        lines.add("# Op profile");
        lines.add("");
        lines.add("Load average before: " + load() + "; " + warmup + " forwards of warm-up, then " + forwards
                + " recorded; " + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors()
                + " processors.");
        for (String backendName : backends) {
            Backend backend = Backends.load(backendName);
            for (String workload : workloads) {
                try (Workload w = workload(workload, backend)) {
                    for (int i = 0; i < warmup; i++) {
                        w.forward().run();
                    }
                    Path jfr = Files.createTempFile("attn4j-op-profile", ".jfr");
                    long wall;
                    long cpu;
                    long thread;
                    try (Recording recording = new Recording()) {
                        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
                        recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(1));
                        recording.start();
                        wall = System.nanoTime();
                        cpu = processCpu();
                        thread = THREADS.getCurrentThreadCpuTime();
                        for (int i = 0; i < forwards; i++) {
                            w.forward().run();
                        }
                        wall = System.nanoTime() - wall;
                        cpu = processCpu() - cpu;
                        thread = THREADS.getCurrentThreadCpuTime() - thread;
                        recording.stop();
                        recording.dump(jfr);
                    }
                    lines.addAll(report(backendName, workload, jfr, wall / 1e3 / forwards, cpu / 1e3 / forwards,
                            thread / 1e3 / forwards));
                    Files.delete(jfr);
                }
            }
        }
        lines.add("");
        lines.add("Load average after: " + load() + ".");
        lines.forEach(System.out::println);
        if (args.length > 1) {
            Files.write(Path.of(args[1]), lines);
        }
    }

    private static List<String> report(String backend, String workload, Path jfr, double wallUs, double cpuUs,
                                       double threadUs) throws IOException {
        long thread = Thread.currentThread().getId();
        Map<String, Integer> byOp = new HashMap<>();
        Map<String, Integer> byFrame = new HashMap<>();
        int total = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
            RecordedThread sampled = event.getThread("sampledThread");
            RecordedStackTrace stack = event.getStackTrace();
            if (sampled == null || sampled.getJavaThreadId() != thread || stack == null
                    || stack.getFrames().isEmpty()) {
                continue;
            }
            total++;
            String op = "outside ops";
            for (RecordedFrame frame : stack.getFrames()) {
                if (frame.getMethod().getType().getName().equals("org.attn4j.api.spi.AbstractOps")
                        && Modifier.isPublic(frame.getMethod().getModifiers())) {
                    op = frame.getMethod().getName();
                }
            }
            byOp.merge(op, 1, Integer::sum);
            RecordedFrame top = stack.getFrames().get(0);
            byFrame.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName()
                    + (top.getType() == null ? "" : " (" + top.getType() + ")"), 1, Integer::sum);
        }
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add(String.format(Locale.ROOT, "## %s, %s: %.1f µs wall per forward, %.1f µs process CPU, %.1f µs CPU of"
                + " the calling thread, %d samples", backend, workload, wallUs, cpuUs, threadUs, total));
        lines.add("");
        lines.add("| op | share of samples | µs per forward |");
        lines.add("|---|---|---|");
        int samples = Math.max(1, total);
        sorted(byOp).forEach(e -> lines.add(String.format(Locale.ROOT, "| %s | %.1f %% | %.1f |", e.getKey(),
                100.0 * e.getValue() / samples, wallUs * e.getValue() / samples)));
        lines.add("");
        lines.add("| innermost frame | share of samples |");
        lines.add("|---|---|");
        sorted(byFrame).stream().limit(TOP_FRAMES).forEach(e -> lines.add(String.format(Locale.ROOT,
                "| `%s` | %.1f %% |", e.getKey(), 100.0 * e.getValue() / samples)));
        return lines;
    }

    private static List<Map.Entry<String, Integer>> sorted(Map<String, Integer> counts) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        return entries;
    }

    /** A model and one forward of it, freed when closed. */
    private record Workload(Runnable forward, AutoCloseable resources) implements AutoCloseable {
        @Override
        public void close() {
            try {
                resources.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static Workload workload(String workload, Backend backend) throws IOException {
        if (workload.startsWith("minilm:")) {
            String shape = workload.substring("minilm:".length());
            int batch = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
            int length = Integer.parseInt(shape.substring(shape.indexOf('x') + 1));
            List<String> texts = Collections.nCopies(batch, String.join(" ", Collections.nCopies(length - 2,
                    "hello")));
            SentenceEmbedder embedder = SentenceEmbedder.loadDefault(backend,
                    EmbeddingOptions.defaults().withMaxLength(length).withBatchSize(batch));
            if (embedder.embed(texts.get(0)).ids().length != length) {
                embedder.close();
                throw new IllegalStateException("the profile's text does not have " + length + " tokens");
            }
            return new Workload(() -> embedder.embed(texts), embedder);
        }
        DecoderConfig config = switch (workload) {
            case "gpt2" -> GenerationBenchMain.gpt2();
            case "llama" -> GenerationBenchMain.llama();
            default -> throw new IllegalArgumentException("unknown workload " + workload
                    + "; use minilm:BxL, gpt2 or llama");
        };
        CausalLM lm = CausalLM.of(config, GenerationBenchMain.randomWeights(config, 1), backend, DType.F32);
        KvCache cache = lm.newCache(1, CACHED + 1);
        Random random = new Random(5);
        try (Scope scope = backend.newScope()) {
            lm.next(scope, new int[][] {random.ints(CACHED, 0, config.vocabSize()).toArray()}, cache);
        }
        int[][] next = {{random.nextInt(config.vocabSize())}};
        return new Workload(() -> {
            try (Scope scope = backend.newScope()) {
                lm.next(scope, next, cache).toFloatArray();
            }
            cache.truncate(CACHED);
        }, () -> {
            cache.close();
            lm.close();
        });
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
