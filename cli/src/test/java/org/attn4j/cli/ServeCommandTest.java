package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code attn4j serve} in-process: it serves its models until its thread is interrupted; bad input is exit 2. */
class ServeCommandTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+/v1)");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A running serve command: its base URL, its output so far, and its thread. */
    private record Running(URI base, StringWriter out, Thread thread, AtomicInteger exit) {
        String post(String path, String body) throws Exception {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                    .body();
        }

        HttpResponse<String> send(String path, String body, String key) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
            if (body != null) {
                b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
            }
            if (key != null) {
                b.header("Authorization", "Bearer " + key);
            }
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }

        int stop() throws InterruptedException {
            thread.interrupt();
            thread.join(30_000);
            return exit.get();
        }
    }

    private static Running serve(String... args) throws InterruptedException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread t = new Thread(() -> exit.set(Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
                .execute(args)), "serve-under-test");
        t.start();
        long until = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < until) {
            Matcher m = LISTENING.matcher(out.toString());
            if (m.find()) {
                return new Running(URI.create(m.group(1)), out, t, exit);
            }
            if (!t.isAlive()) {
                throw new AssertionError("serve ended: exit " + exit.get() + "\n" + out + err);
            }
            Thread.sleep(20);
        }
        t.interrupt();
        throw new AssertionError("serve did not start: " + out + err);
    }

    private static Path folder(String name) throws URISyntaxException {
        return Path.of(ServeCommandTest.class.getResource("decoders/" + name).toURI());
    }

    @Test
    void withoutAModelItServesTheEmbeddedMiniLmOnLoopbackUntilStopped() throws Exception {
        Running r = serve("serve", "--port", "0", "--backend", "ejml", "--matryoshka", "all-minilm-l6-v2=128");
        try {
            assertTrue(r.base().toString().startsWith("http://127.0.0.1:"), r.base().toString());
            String e = r.post("/embeddings", "{\"model\": \"all-minilm-l6-v2\", \"input\": \"hi\", \"dimensions\": 128}");
            assertTrue(e.contains("\"object\":\"embedding\""), e);
            assertTrue(r.out().toString().startsWith("attn4j serve: all-minilm-l6-v2 on ejml"), r.out().toString());
        } finally {
            assertEquals(0, r.stop());
        }
    }

    @Test
    void itServesDecodersByTheNamesGiven() throws Exception {
        Running r = serve("serve", "--port", "0", "--backend", "ejml", "--model", "tiny=" + folder("gpt2_tiny"),
                "--model", folder("llama3_chat_tiny").toString(), "--max-tokens", "8");
        try {
            String models = HTTP.send(HttpRequest.newBuilder(URI.create(r.base() + "/models")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(models.contains("\"id\":\"tiny\"") && models.contains("\"id\":\"llama3_chat_tiny\""), models);
            String c = r.post("/completions", "{\"model\": \"tiny\", \"prompt\": \"ab\", \"max_tokens\": 4}");
            assertTrue(c.contains("\"completion_tokens\":"), c);
            String chat = r.post("/chat/completions", "{\"model\": \"llama3_chat_tiny\", \"messages\": [{\"role\": "
                    + "\"user\", \"content\": \"Hi\"}]}");
            assertTrue(chat.contains("\"chat.completion\""), chat);
            String tooMany = r.post("/completions", "{\"model\": \"tiny\", \"prompt\": \"ab\", \"max_tokens\": 9}");
            assertTrue(tooMany.contains("at most 8"), tooMany);
        } finally {
            assertEquals(0, r.stop());
        }
    }

    @Test
    void itServesACrossEncoderAndAsksForTheKeysOfBothKeyOptions(@TempDir Path tmp) throws Exception {
        Path cross = TinyBert.write(tmp.resolve("cross"), 8, true);
        Path keys = Files.writeString(tmp.resolve("keys"), "\nsk-cli-from-file\n\n");
        Running r = serve("serve", "--port", "0", "--backend", "ejml", "--rerank-model", "rr=" + cross,
                "--api-key", "sk-cli-from-option", "--api-key-file", keys.toString());
        try {
            String rerank = "{\"model\": \"rr\", \"query\": \"the cat\", \"documents\": [\"a dog\", "
                    + "\"the cat sat\"], \"top_n\": 1}";
            HttpResponse<String> refused = r.send("/rerank", rerank, null);
            assertEquals(401, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("\"invalid_api_key\""), refused.body());
            assertEquals(401, r.send("/models", null, "sk-cli-wrong").statusCode());
            HttpResponse<String> ranked = r.send("/rerank", rerank, "sk-cli-from-file");
            assertEquals(200, ranked.statusCode(), ranked.body());
            assertTrue(ranked.body().contains("\"relevance_score\""), ranked.body());
            assertEquals(200, r.send("/models", null, "sk-cli-from-option").statusCode());
            assertEquals(200, HTTP.send(HttpRequest.newBuilder(r.base().resolve("/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode(), "/health asks for no key");
            assertFalse(r.out().toString().contains("sk-cli"), r.out().toString());
        } finally {
            assertEquals(0, r.stop());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--model=/no/such/folder", "--port=70000", "--matryoshka=nobody=1", "--backend=nope",
        "--max-tokens=0", "--matryoshka=all-minilm-l6-v2=x", "--rerank-model=/no/such/folder",
        "--api-key-file=/no/such/file", "--api-key=two words", "--cache-bytes=-1", "--cache-bytes=lots"})
    void badInputIsOneLineAndExitCodeTwo(String option) {
        Cli r = Cli.run("serve", "--port", "0", option);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        if (option.startsWith("--cache-bytes")) {
            assertTrue(r.err().contains("cache-bytes") || r.err().contains("CacheBytes"), r.transcript());
        }
    }
}
