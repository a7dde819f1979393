package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded embeddings load on loopback: {@code clients} threads each send {@code requests} requests one after
 * another (one text each, the texts cycling through a pool of distinct sentences, so that a vector given to the
 * wrong request is caught), and every answer is checked against the in-process vector of its own text.
 */
final class EmbeddingsLoad {

    /**
     * What a run measured.
     *
     * @param sent requests sent
     * @param ok answers with status 200 whose vector matched its text within {@code tolerance}
     * @param exact answers whose vector was bit for bit the in-process one
     * @param failures a description of each other answer, at most 10
     * @param seconds wall time of the whole run
     * @param latenciesMillis every request's latency, sorted
     * @param worst the largest difference from an in-process vector
     */
    record Result(int sent, int ok, int exact, List<String> failures, double seconds, double[] latenciesMillis,
                  double worst) {
        double requestsPerSecond() {
            return sent / seconds;
        }

        double percentile(double p) {
            if (latenciesMillis.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(p / 100 * latenciesMillis.length) - 1;
            return latenciesMillis[Math.max(0, Math.min(latenciesMillis.length - 1, i))];
        }

        String summary() {
            return String.format(Locale.ROOT, "%d requests, %d correct (%d bit for bit, largest difference %.2e),"
                    + " %.1f requests/s, latency p50 %.1f ms, p99 %.1f ms", sent, ok, exact, worst,
                    requestsPerSecond(), percentile(50), percentile(99));
        }
    }

    private EmbeddingsLoad() {
    }

    /** @return {@code n} distinct sentences of 6 to 20 words */
    static List<String> texts(int n) {
        String[] words = ("the a cat dog sat ran on under mat rug market markets fell rose sharply slowly monday "
                + "friday attention transformer model server batch token vector java machine learning query key "
                + "value head layer").split(" ");
        List<String> out = new ArrayList<>(n);
        java.util.SplittableRandom random = new java.util.SplittableRandom(24);
        for (int i = 0; i < n; i++) {
            StringBuilder b = new StringBuilder("sentence ").append(i);
            int length = 6 + random.nextInt(15);
            for (int w = 0; w < length; w++) {
                b.append(' ').append(words[random.nextInt(words.length)]);
            }
            out.add(b.append('.').toString());
        }
        return out;
    }

    /**
     * @param baseUri the server's {@code /v1} URL
     * @param model the encoder's name
     * @param texts the pool of texts
     * @param expected each text's in-process vector
     * @param clients concurrent clients
     * @param requests requests per client
     * @param tolerance the largest difference from the in-process vector that counts as correct
     * @return what was measured
     */
    static Result run(URI baseUri, String model, List<String> texts, List<float[]> expected, int clients,
                      int requests, double tolerance) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        URI uri = URI.create(baseUri + "/embeddings");
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger exact = new AtomicInteger();
        AtomicLong worstBits = new AtomicLong(Double.doubleToLongBits(0));
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        double[] latencies = new double[clients * requests];
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < requests; i++) {
                        int n = client * requests + i;
                        int t = n % texts.size();
                        String body = "{\"model\": " + JsonRequest.MAPPER.writeValueAsString(model) + ", \"input\": "
                                + JsonRequest.MAPPER.writeValueAsString(texts.get(t)) + "}";
                        long begin = System.nanoTime();
                        HttpResponse<String> r;
                        try {
                            r = http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                                    .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(), HttpResponse.BodyHandlers.ofString());
                        } catch (IOException e) {
                            fail(failures, "request " + n + ": " + e);
                            continue;
                        }
                        latencies[n] = (System.nanoTime() - begin) / 1e6;
                        check(r, t, n, expected.get(t), tolerance, ok, exact, worstBits, failures);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double[] sorted = latencies.clone();
        Arrays.sort(sorted);
        return new Result(clients * requests, ok.get(), exact.get(), List.copyOf(failures), seconds, sorted,
                Double.longBitsToDouble(worstBits.get()));
    }

    private static void check(HttpResponse<String> r, int t, int n, float[] expected, double tolerance,
                              AtomicInteger ok, AtomicInteger exact, AtomicLong worstBits, List<String> failures)
            throws IOException {
        if (r.statusCode() != 200) {
            fail(failures, "request " + n + ": status " + r.statusCode() + " " + r.body());
            return;
        }
        JsonNode data = JsonRequest.MAPPER.readTree(r.body()).get("data");
        JsonNode v = data.get(0).get("embedding");
        if (data.size() != 1 || v.size() != expected.length) {
            fail(failures, "request " + n + ": " + data.size() + " vectors of " + v.size());
            return;
        }
        double worst = 0;
        boolean same = true;
        for (int i = 0; i < expected.length; i++) {
            float x = v.get(i).floatValue();
            worst = Math.max(worst, Math.abs(x - expected[i]));
            same &= Float.floatToIntBits(x) == Float.floatToIntBits(expected[i]);
        }
        double w = worst;
        worstBits.getAndUpdate(b -> Double.doubleToLongBits(Math.max(Double.longBitsToDouble(b), w)));
        if (worst > tolerance) {
            fail(failures, "request " + n + " (text " + t + "): differs from its in-process vector by " + worst);
            return;
        }
        ok.incrementAndGet();
        if (same) {
            exact.incrementAndGet();
        }
    }

    private static void fail(List<String> failures, String what) {
        if (failures.size() < 10) {
            failures.add(what);
        }
    }
}
