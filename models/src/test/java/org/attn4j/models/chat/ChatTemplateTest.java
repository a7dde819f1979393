package org.attn4j.models.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.models.tokenize.TokenizerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a chat template may not do, how attn4j says so, and the values it renders from. */
class ChatTemplateTest {
    private static final List<Message> CHAT = List.of(Message.user("Hi"), Message.assistant("Hello"));

    private static String render(String template) {
        return ChatTemplate.of(template, Map.of()).render(CHAT, ChatTemplateOptions.defaults());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '§', value = {
        "{{ messages.append('x') }}§list.append(), which changes its input",
        "{{ messages[0].update({'role': 'x'}) }}§dict.update(), which changes its input",
        "{{ 'abc'.encode('utf-8') }}§str.encode(), a method attn4j's chat templates do not provide",
        "{{ 'abc'.getBytes() }}§str.getBytes()",
        "{% include 'other.jinja' %}§other.jinja",
        "{{ 1 + 'a' }}§unsupported operand type(s) for +: 'int' and 'str'",
        "{{ raise_exception('no system role') }}§raised: no system role",
        "{{ strftime_now('%Q') }}§%Q is not supported",
    })
    void aTemplateThatCannotRenderSaysWhy(String template, String expected) {
        ChatTemplateException e = assertThrows(ChatTemplateException.class, () -> render(template));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '§', value = {
        "{% frobnicate %}§frobnicate",
        "{{ messages | shuffle_it }}§the filter 'shuffle_it'",
        "{% if messages is frobnicated %}{% endif %}§the test 'is frobnicated'",
        "{% if true %}no end§if",
        "{{ 'unclosed }}§unclosed string",
        "{% for m in messages %}{% else %}{% endfor %}§{% for %}…{% else %}…{% endfor %}",
        "{% for m in messages recursive %}{% endfor %}§recursive loop",
    })
    void aTemplateThatDoesNotParseIsRefusedWhenRead(String template, String expected) {
        ChatTemplateException e = assertThrows(ChatTemplateException.class, () -> ChatTemplate.of(template, Map.of()));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void textInsideMessagesIsNeverRenderedAsTemplate() {
        List<Message> chat = List.of(Message.user("{{ raise_exception('x') }} {% if true %}y{% endif %}"));
        assertEquals("{{ raise_exception('x') }} {% if true %}y{% endif %}",
                ChatTemplate.of("{{ messages[0].content }}", Map.of()).render(chat, ChatTemplateOptions.defaults()));
    }

    @Test
    void aConfigurationWithoutTemplateNamesWhatItHas() {
        ChatTemplateException e = assertThrows(ChatTemplateException.class,
                () -> ChatTemplate.of(TokenizerConfig.empty()));
        assertTrue(e.getMessage().contains("no chat template"), e.getMessage());
    }

    @Test
    void continueFinalMessageAndAGenerationPromptExcludeEachOther() {
        ChatTemplate t = ChatTemplate.of("{% for m in messages %}{{ m.content }}|{% endfor %}", Map.of());
        assertEquals("Hi|Hello", t.render(CHAT, ChatTemplateOptions.defaults().withContinueFinalMessage(true)));
        assertThrows(ChatTemplateException.class, () -> t.render(CHAT, ChatTemplateOptions.defaults()
                .withContinueFinalMessage(true).withAddGenerationPrompt(true)));
    }

    @Test
    void messagesAndOptionsTakeJsonLikeValuesOnly() {
        assertThrows(IllegalArgumentException.class, () -> Message.user("x").with("when", new Object()));
        assertThrows(IllegalArgumentException.class, () -> Message.of(Map.of("content", "no role")));
        assertThrows(IllegalArgumentException.class, () -> ChatTemplateOptions.defaults().withVariable("messages", 1));
        Message m = Message.of(Map.of("role", "tool", "content", "22", "tool_call_id", "c1"));
        assertEquals("tool", m.role());
        assertEquals("22", m.content());
        assertEquals("c1", m.fields().get("tool_call_id"));
        assertThrows(UnsupportedOperationException.class, () -> m.fields().put("x", 1));
    }

    @Test
    void aTemplateRendersTheSameOnManyThreadsAtOnce() throws Exception {
        ChatTemplate t = ChatTemplate.of("{% for m in messages %}{{ m.role }}:{{ m.content | trim }};{% endfor %}"
                + "{{ strftime_now('%Y') | length }}", Map.of("bos_token", "<s>"));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                List<Message> chat = List.of(Message.user(" message " + i + " "));
                results.add(pool.submit(() -> t.render(chat, ChatTemplateOptions.defaults())));
            }
            for (int i = 0; i < results.size(); i++) {
                assertEquals("user:message " + i + ";4", results.get(i).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
