package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The law of an options value: {@code withX(value)} gives a new value whose {@code x()} is {@code value} and whose
 * every other accessor is unchanged, and leaves the value it was called on as it was; a value out of range is
 * refused with the method's name.
 */
class ServerOptionsTest {
    /** A value set by a {@code with…} call, and the options it returned. */
    private record Change(Object value, ServerOptions options) {
    }

    /** One option: its accessor and a {@code with…} call that sets it to a random value in its range. */
    private record Option(String accessor, BiFunction<ServerOptions, SplittableRandom, Change> set) {
    }

    private static <T> BiFunction<ServerOptions, SplittableRandom, Change> setter(
            Function<SplittableRandom, T> pick, BiFunction<ServerOptions, T, ServerOptions> with) {
        return (o, random) -> {
            T value = pick.apply(random);
            return new Change(value, with.apply(o, value));
        };
    }

    private static final List<Option> OPTIONS = List.of(
            new Option("host", setter(r -> "10.0.0." + r.nextInt(256), ServerOptions::withHost)),
            new Option("port", setter(r -> r.nextInt(65536), ServerOptions::withPort)),
            new Option("maxBodyBytes", setter(r -> r.nextLong(1024, 1L << 30), ServerOptions::withMaxBodyBytes)),
            new Option("maxInputs", setter(r -> r.nextInt(1, 1 << 20), ServerOptions::withMaxInputs)),
            new Option("maxBatchTexts", setter(r -> r.nextInt(1, 1 << 16), ServerOptions::withMaxBatchTexts)),
            new Option("batchWindow", setter(r -> Duration.ofMillis(r.nextInt(1001)), ServerOptions::withBatchWindow)),
            new Option("maxQueuedEmbeddings", setter(r -> r.nextInt(1, 1 << 20),
                    ServerOptions::withMaxQueuedEmbeddings)),
            new Option("maxActiveGenerations", setter(r -> r.nextInt(1, 1025),
                    ServerOptions::withMaxActiveGenerations)),
            new Option("maxQueuedGenerations", setter(r -> r.nextInt(0, 1 << 20),
                    ServerOptions::withMaxQueuedGenerations)),
            new Option("maxTokens", setter(r -> r.nextInt(1, 1 << 24), ServerOptions::withMaxTokens)),
            new Option("cacheBytes", setter(r -> r.nextLong(0, 1L << 40), ServerOptions::withCacheBytes)),
            new Option("requestTimeout", setter(r -> Duration.ofMillis(r.nextLong(1, 86_400_000)),
                    ServerOptions::withRequestTimeout)),
            new Option("idleTimeout", setter(r -> Duration.ofMillis(r.nextLong(1, 86_400_000)),
                    ServerOptions::withIdleTimeout)),
            new Option("retryAfter", setter(r -> Duration.ofSeconds(r.nextLong(1, 86_400)),
                    ServerOptions::withRetryAfter)),
            new Option("apiKeys", setter(r -> r.ints(r.nextInt(4), 0, 1 << 30).mapToObj(i -> "sk-" + i).toList(),
                    ServerOptions::withApiKeys)));

    private static Map<String, Object> values(ServerOptions o) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Method m : ServerOptions.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 0 && !m.getName().equals("toString")) {
                try {
                    out.put(m.getName(), m.invoke(o));
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new AssertionError(m.getName(), e);
                }
            }
        }
        return out;
    }

    @Test
    void theLawCoversEveryOption() {
        assertEquals(values(ServerOptions.defaults()).keySet(),
                OPTIONS.stream().map(Option::accessor).collect(Collectors.toSet()));
    }

    @Test
    void eachWithSetsItsOwnValueAndNoOtherOnAnyOptions() {
        SplittableRandom random = new SplittableRandom(20261202);
        ServerOptions o = ServerOptions.defaults();
        for (int step = 0; step < 2000; step++) {
            Option option = OPTIONS.get(random.nextInt(OPTIONS.size()));
            Map<String, Object> before = values(o);
            Change change = option.set().apply(o, random);
            Map<String, Object> expected = new LinkedHashMap<>(before);
            expected.put(option.accessor(), change.value());
            assertEquals(expected, values(change.options()), "step " + step + ": with… for " + option.accessor()
                    + " = " + change.value());
            assertEquals(before, values(o), "step " + step + ": the value with… was called on changed");
            o = change.options();
        }
        assertNotEquals(values(ServerOptions.defaults()), values(o));
    }

    @Test
    void theDefaultsAreTheDocumentedLimits() {
        ServerOptions d = ServerOptions.defaults();
        assertEquals("127.0.0.1", d.host());
        assertEquals(8080, d.port());
        assertEquals(4L << 20, d.maxBodyBytes());
        assertEquals(2048, d.maxInputs());
        assertEquals(64, d.maxBatchTexts());
        assertEquals(Duration.ofMillis(2), d.batchWindow());
        assertEquals(256, d.maxQueuedEmbeddings());
        assertEquals(4, d.maxActiveGenerations());
        assertEquals(16, d.maxQueuedGenerations());
        assertEquals(4096, d.maxTokens());
        assertEquals(512L << 20, d.cacheBytes());
        assertEquals(Duration.ofSeconds(120), d.requestTimeout());
        assertEquals(Duration.ofSeconds(30), d.idleTimeout());
        assertEquals(Duration.ofSeconds(1), d.retryAfter());
        assertEquals(List.of(), d.apiKeys());
    }

    @Test
    void aValueOutOfRangeIsRefusedNamingTheMethodAndTheRange() {
        ServerOptions d = ServerOptions.defaults();
        Map<String, Runnable> bad = new LinkedHashMap<>();
        bad.put("withHost", () -> d.withHost(" "));
        bad.put("withPort", () -> d.withPort(65536));
        bad.put("withMaxBodyBytes", () -> d.withMaxBodyBytes(1023));
        bad.put("withMaxInputs", () -> d.withMaxInputs(0));
        bad.put("withMaxBatchTexts", () -> d.withMaxBatchTexts((1 << 16) + 1));
        bad.put("withBatchWindow", () -> d.withBatchWindow(Duration.ofMillis(-1)));
        bad.put("withMaxQueuedEmbeddings", () -> d.withMaxQueuedEmbeddings(0));
        bad.put("withMaxActiveGenerations", () -> d.withMaxActiveGenerations(1025));
        bad.put("withMaxQueuedGenerations", () -> d.withMaxQueuedGenerations(-1));
        bad.put("withMaxTokens", () -> d.withMaxTokens(0));
        bad.put("withCacheBytes", () -> d.withCacheBytes(-1));
        bad.put("withRequestTimeout", () -> d.withRequestTimeout(Duration.ZERO));
        bad.put("withIdleTimeout", () -> d.withIdleTimeout(Duration.ofDays(2)));
        bad.put("withRetryAfter", () -> d.withRetryAfter(Duration.ofMillis(999)));
        bad.put("withApiKeys", () -> d.withApiKeys(List.of("sk-good", "sk bad")));
        for (Map.Entry<String, Runnable> b : bad.entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b.getValue()::run, b.getKey());
            assertTrue(e.getMessage().startsWith("ServerOptions." + b.getKey() + ": argument value is"),
                    e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> d.withIdleTimeout(null));
    }

    @Test
    void theKeysAreCountedButNeverShown() {
        ServerOptions o = ServerOptions.defaults().withApiKeys(List.of("sk-first-secret", "sk-second-secret"));
        assertTrue(o.toString().contains("apiKeys=2"), o.toString());
        assertFalse(o.toString().contains("secret"), o.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> o.withApiKeys(List.of("sk-third-secret", "sk-fourth secret")));
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
    }
}
