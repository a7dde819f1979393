package org.attn4j.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * The README's measurement: embeddings requests/s and latency of the server under a bounded loopback load, against
 * the same encoder's in-process throughput on the same texts ({@link SentenceEmbedder#embed} in batches of 32, as
 * {@code attn4j embed} runs it). Arguments: {@code [clients] [requests per client] [backend] [rounds]}, default
 * {@code 32 200 ejml 3}; the best round of each is printed.
 */
public final class EmbeddingsThroughput {

    private EmbeddingsThroughput() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 32;
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        Backend backend = Backends.load(args.length > 2 ? args[2] : "ejml");
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        List<String> texts = EmbeddingsLoad.texts(clients * requests);
        SentenceEmbedder embedder = SentenceEmbedder.loadDefault(backend, EmbeddingOptions.defaults());
        try (ServedModels models = new ServedModels().addEncoder(Fixtures.MINILM, embedder);
             OpenAiServer server = OpenAiServer.start(models, ServerOptions.defaults().withPort(0))) {
            List<float[]> expected = new ArrayList<>();
            double inProcess = 0;
            for (int round = 0; round < rounds; round++) {
                long start = System.nanoTime();
                List<SentenceEmbedding> all = embedder.embed(texts);
                inProcess = Math.max(inProcess, texts.size() / ((System.nanoTime() - start) / 1e9));
                if (expected.isEmpty()) {
                    all.forEach(e -> expected.add(e.vector()));
                }
            }
            EmbeddingsLoad.Result best = null;
            for (int round = 0; round < rounds; round++) {
                EmbeddingsLoad.Result r = EmbeddingsLoad.run(server.baseUri(), Fixtures.MINILM, texts, expected,
                        clients, requests, 1e-5);
                if (!r.failures().isEmpty() || r.ok() != r.sent()) {
                    throw new AssertionError("wrong answers: " + r.failures());
                }
                if (best == null || r.requestsPerSecond() > best.requestsPerSecond()) {
                    best = r;
                }
            }
            System.out.printf(Locale.ROOT, "backend %s, all-MiniLM-L6-v2, %d texts of 6-20 words, %d cores%n",
                    backend.name(), texts.size(), Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "in process (SentenceEmbedder.embed, batches of 32): %.1f texts/s%n",
                    inProcess);
            System.out.printf(Locale.ROOT, "server, %d clients x %d requests of one text: %s (%.2fx in process)%n",
                    clients, requests, best.summary(), best.requestsPerSecond() / inProcess);
        }
    }
}
