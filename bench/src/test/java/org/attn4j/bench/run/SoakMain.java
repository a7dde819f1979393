package org.attn4j.bench.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.ProviderReport;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.bytedeco.javacpp.Pointer;

/**
 * A soak: on every available backend, {@code soak.calls} calls (default 20,000), each in its own scope, of what a
 * transformer layer does per step (three tensors in, causal attention with weights, layer norm, a copy out), with
 * the memory read every 1,000 calls. It prints, per backend, the process's resident set (VmRSS), the heap in use
 * after a GC, and the off-heap bytes the JVM can see (NIO direct and mapped buffers, plus what JavaCPP, under ND4J,
 * has allocated), and the growth of each per 1,000 calls over the second half of the run (the first half warms
 * up). A leak shows as steady growth; a flat line is what a scope that frees everything gives. Run with
 * {@code mvn -B -q -pl bench -am verify -DskipTests -DskipReleaseArtifacts -Pbench} (after the benchmarks; {@code
 * -Dbench.soak.calls=N} sets the calls, {@code -Dbench.soak.skip=true} leaves the soak out).
 */
public final class SoakMain {
    private static final int EVERY = 1_000;

    private SoakMain() {
    }

    /** One reading of the process's memory. */
    private record Reading(int calls, long rss, long heap, long offHeap) {
        static Reading now(int calls) {
            System.gc();
            Runtime rt = Runtime.getRuntime();
            long direct = 0;
            for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                direct += Math.max(0, pool.getMemoryUsed());
            }
            return new Reading(calls, residentSetBytes(), rt.totalMemory() - rt.freeMemory(), direct + Pointer.totalBytes());
        }
    }

    /**
     * @param args ignored; {@code -Dsoak.calls=N} sets the calls per backend
     */
    public static void main(String[] args) {
        int calls = Integer.getInteger("soak.calls", 20_000);
        System.out.println("soak: " + calls + " calls per backend of attention [1, 4, 64, 32] causal with weights,"
                + " layerNorm and a copy out, each call in its own scope; memory read every " + EVERY + " calls");
        System.out.printf(Locale.ROOT, "%-8s %8s %12s %12s %12s %16s %16s %16s%n", "backend", "calls", "RSS MiB",
                "heap MiB", "off-heap MiB", "RSS B/1k calls", "heap B/1k calls", "off-heap B/1k");
        for (ProviderReport report : Backends.describe()) {
            if (!report.availability().available()) {
                System.out.println(report.name() + ": not run, " + report.availability().reason());
                continue;
            }
            Backend backend = Backends.load(report.name());
            List<Reading> readings = soak(backend, calls);
            Reading mid = readings.get(readings.size() / 2);
            Reading last = readings.get(readings.size() - 1);
            double per = (double) EVERY / Math.max(1, last.calls() - mid.calls());
            System.out.printf(Locale.ROOT, "%-8s %8d %12.1f %12.1f %12.1f %16.0f %16.0f %16.0f%n", backend.name(),
                    last.calls(), last.rss() / 1048576.0, last.heap() / 1048576.0, last.offHeap() / 1048576.0,
                    (last.rss() - mid.rss()) * per, (last.heap() - mid.heap()) * per,
                    (last.offHeap() - mid.offHeap()) * per);
        }
    }

    private static List<Reading> soak(Backend backend, int calls) {
        Random random = new Random(7);
        Shape shape = Shape.of(1, 4, 64, 32);
        float[][] qkv = new float[3][(int) shape.size()];
        for (float[] a : qkv) {
            for (int i = 0; i < a.length; i++) {
                a[i] = (float) random.nextGaussian();
            }
        }
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withWeights(true);
        List<Reading> readings = new ArrayList<>();
        readings.add(Reading.now(0));
        for (int c = 1; c <= calls; c++) {
            try (Scope scope = backend.newScope()) {
                Tensor q = scope.tensor(qkv[0], shape);
                Tensor k = scope.tensor(qkv[1], shape);
                Tensor v = scope.tensor(qkv[2], shape);
                Tensor out = scope.ops().attention(q, k, v, options).output();
                scope.ops().layerNorm(out, null, null, 1e-5).toFloatArray();
            }
            if (c % EVERY == 0) {
                readings.add(Reading.now(c));
            }
        }
        return readings;
    }

    /** @return the resident set size of this process in bytes, from /proc/self/status (0 where there is none) */
    private static long residentSetBytes() {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return 0;
        }
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + status, e);
        }
        return 0;
    }
}
