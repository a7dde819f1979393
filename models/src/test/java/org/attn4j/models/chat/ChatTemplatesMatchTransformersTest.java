package org.attn4j.models.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.models.tokenize.TokenizerConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every chat template rendering of {@code chat/expected.json}, written by
 * {@code src/test/python/generate_chat_templates.py} with Jinja2 set up exactly as transformers'
 * {@code apply_chat_template}: the real chat templates of Llama 3, 3.1 and 3.2, Qwen2.5, Gemma 2, Gemma 3, Mistral
 * v0.1 to v0.3, Phi-3 and Phi-3.5 and TinyLlama (Zephyr), each on eight conversations (tool calls, continue_final_message,
 * Unicode and Jinja-like text included), and one small template per Jinja behaviour. attn4j renders the same text,
 * or fails where Python fails (with the template's own words when it calls {@code raise_exception}).
 */
class ChatTemplatesMatchTransformersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Object> EXPECTED = read();
    private static final Clock CLOCK = Clock.fixed(Instant.parse((String) EXPECTED.get("now")), ZoneOffset.UTC);
    /** Jinja behaviours attn4j's engine refuses, each with words its message must hold. */
    private static final Map<String, String> REFUSED = Map.of("loop_else", "{% for %}…{% else %}…{% endfor %}",
            "loop_previtem", "loop.previtem", "slice_with_step", "a slice with a step");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> read() {
        try (InputStream in = ChatTemplatesMatchTransformersTest.class.getResourceAsStream("expected.json")) {
            return JSON.readValue(in, Map.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path checkpoint(String name) {
        try {
            return Path.of(ChatTemplatesMatchTransformersTest.class.getResource("checkpoints/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Message> messages(Object json) {
        List<Message> out = new ArrayList<>();
        for (Object m : (List<Object>) json) {
            out.add(Message.of((Map<String, Object>) m));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Stream<Arguments> checkpoints() {
        Map<String, Map<String, Object>> conversations = new java.util.HashMap<>();
        for (Object c : (List<Object>) EXPECTED.get("conversations")) {
            conversations.put((String) ((Map<String, Object>) c).get("name"), (Map<String, Object>) c);
        }
        return ((List<Map<String, Object>>) EXPECTED.get("checkpoints")).stream().map(c -> Arguments.of(
                c.get("checkpoint"), c.get("conversation"), conversations.get(c.get("conversation")), c));
    }

    @SuppressWarnings("unchecked")
    static Stream<Arguments> features() {
        return ((List<Map<String, Object>>) EXPECTED.get("features")).stream()
                .map(f -> Arguments.of(f.get("name"), f));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("checkpoints")
    @SuppressWarnings("unchecked")
    void checkpointTemplatesRenderAsTransformers(String checkpoint, String conversation, Map<String, Object> input,
                                                 Map<String, Object> expected) throws IOException {
        ChatTemplate template = ChatTemplate.of(TokenizerConfig.read(checkpoint(checkpoint)));
        ChatTemplateOptions options = ChatTemplateOptions.defaults().withClock(CLOCK)
                .withAddGenerationPrompt((Boolean) input.get("add_generation_prompt"))
                .withContinueFinalMessage(Boolean.TRUE.equals(input.get("continue_final_message")))
                .withTools((List<Object>) input.get("tools"));
        Map<String, Object> variables = (Map<String, Object>) input.get("variables");
        if (variables != null) {
            for (Map.Entry<String, Object> v : variables.entrySet()) {
                options = options.withVariable(v.getKey(), v.getValue());
            }
        }
        check(template, messages(input.get("messages")), options, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("features")
    @SuppressWarnings("unchecked")
    void jinjaBehavioursMatchJinja2(String name, Map<String, Object> feature) {
        if (REFUSED.containsKey(name)) {
            ChatTemplateException e = org.junit.jupiter.api.Assertions.assertThrows(ChatTemplateException.class,
                    () -> ChatTemplate.of((String) feature.get("template"), Map.of()));
            assertTrue(e.getMessage().contains(REFUSED.get(name)), e.getMessage());
            return;
        }
        ChatTemplate template = ChatTemplate.of((String) feature.get("template"),
                (Map<String, Object>) EXPECTED.get("special_tokens"));
        check(template, messages(EXPECTED.get("messages")),
                ChatTemplateOptions.defaults().withClock(CLOCK).withAddGenerationPrompt(true), feature);
    }

    private static void check(ChatTemplate template, List<Message> messages, ChatTemplateOptions options,
                              Map<String, Object> expected) {
        String error = (String) expected.get("error");
        if (error == null) {
            assertEquals(expected.get("text"), template.render(messages, options));
            return;
        }
        ChatTemplateException e = org.junit.jupiter.api.Assertions.assertThrows(ChatTemplateException.class,
                () -> template.render(messages, options), "Python fails with " + error);
        if (error.startsWith("TemplateError: ")) {
            assertTrue(e.getMessage().contains("raised: " + error.substring("TemplateError: ".length())),
                    e.getMessage() + " should carry the template's message: " + error);
        }
    }
}
