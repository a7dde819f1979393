package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
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

    @ParameterizedTest
    @ValueSource(strings = {"--model=/no/such/folder", "--port=70000", "--matryoshka=nobody=1", "--backend=nope",
        "--max-tokens=0", "--matryoshka=all-minilm-l6-v2=x"})
    void badInputIsOneLineAndExitCodeTwo(String option) {
        Cli r = Cli.run("serve", "--port", "0", option);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
    }
}
