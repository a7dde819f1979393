package org.attn4j.models.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.JsonSchemaException;
import org.attn4j.models.tokenize.TokenizerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ToolCallFormatTest {

    static ChatTemplate checkpoint(String name) throws IOException, URISyntaxException {
        Path folder = Path.of(ToolCallFormatTest.class.getResource("checkpoints/" + name).toURI());
        return ChatTemplate.of(TokenizerConfig.read(folder));
    }

    @ParameterizedTest
    @CsvSource({"Qwen--Qwen2.5-0.5B-Instruct, QWEN", "Qwen--Qwen3-0.6B, QWEN",
            "meta-llama--Llama-3.1-8B-Instruct, LLAMA3", "meta-llama--Llama-3.2-1B-Instruct, LLAMA3",
            "mistralai--Mistral-7B-Instruct-v0.3, MISTRAL"})
    void theRealTemplatesThatShowToolsNameTheirFormat(String checkpoint, ToolCallFormat expected) throws Exception {
        assertEquals(Optional.of(expected), ToolCallFormat.of(checkpoint(checkpoint)));
    }

    @ParameterizedTest
    @CsvSource({"meta-llama--Meta-Llama-3-8B-Instruct", "google--gemma-2-2b-it", "mistralai--Mistral-7B-Instruct-v0.2",
            "TinyLlama--TinyLlama-1.1B-Chat-v1.0", "microsoft--Phi-3.5-mini-instruct"})
    void templatesWithoutToolCallsHaveNoFormat(String checkpoint) throws Exception {
        assertEquals(Optional.empty(), ToolCallFormat.of(checkpoint(checkpoint)));
    }

    @Test
    void qwenReadsEveryTaggedCallAndKeepsTheTextAround() {
        ToolCallFormat.Parsed p = ToolCallFormat.QWEN.parse("Let me look.\n<tool_call>\n{\"name\": \"get_weather\", "
                + "\"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"now\", "
                + "\"arguments\": {}}\n</tool_call>");
        assertEquals("Let me look.", p.content());
        assertEquals(List.of(new ToolCall("get_weather", "{\"city\":\"Paris\",\"days\":2}"), new ToolCall("now", "{}")),
                p.calls());
    }

    @Test
    void qwenReadsACallTheReplyEndsInsideOf() {
        ToolCallFormat.Parsed p = ToolCallFormat.QWEN.parse("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n");
        assertEquals(List.of(new ToolCall("f", "{\"x\":1}")), p.calls());
        assertEquals("", p.content());
    }

    @Test
    void argumentsGivenAsAJsonStringAreReadAsTheirObject() {
        ToolCallFormat.Parsed p = ToolCallFormat.QWEN.parse("<tool_call>{\"name\": \"f\", \"arguments\": "
                + "\"{\\\"x\\\": [1, 2]}\"}</tool_call>");
        assertEquals(List.of(new ToolCall("f", "{\"x\":[1,2]}")), p.calls());
    }

    @Test
    void llama3ReadsTheWholeReplyAsParametersWithOrWithoutThePythonTag() {
        ToolCall expected = new ToolCall("get_weather", "{\"city\":\"Paris\"}");
        assertEquals(List.of(expected), ToolCallFormat.LLAMA3.parse(
                "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}").calls());
        assertEquals(List.of(expected), ToolCallFormat.LLAMA3.parse(
                "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}").calls());
        assertEquals(List.of(expected, new ToolCall("f", "{\"s\":\"a;b\"}")), ToolCallFormat.LLAMA3.parse(
                " {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"f\", "
                + "\"parameters\": {\"s\": \"a;b\"}}\n").calls());
    }

    @Test
    void mistralReadsTheArrayAfterItsTagOrAlone() {
        List<ToolCall> expected = List.of(new ToolCall("a", "{\"x\":1}"), new ToolCall("b", "{}"));
        String array = "[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"b\", \"arguments\": {}}]";
        ToolCallFormat.Parsed tagged = ToolCallFormat.MISTRAL.parse("Sure. [TOOL_CALLS] " + array);
        assertEquals(expected, tagged.calls());
        assertEquals("Sure.", tagged.content());
        assertEquals(expected, ToolCallFormat.MISTRAL.parse(" " + array).calls());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "QWEN|Just text, no call.",
            "QWEN|<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>",
            "QWEN|<tool_call>{\"arguments\": {}}</tool_call>",
            "QWEN|<tool_call>not json</tool_call>",
            "LLAMA3|The weather is {\"name\": \"f\"}",
            "LLAMA3|{\"name\": \"f\", \"parameters\": {}} and then text",
            "LLAMA3|{\"city\": \"Paris\"}",
            "MISTRAL|[1, 2]",
            "MISTRAL|[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {}}",
    })
    void aReplyWithoutAWellFormedCallIsAllContent(ToolCallFormat format, String reply) {
        ToolCallFormat.Parsed p = format.parse(reply);
        assertTrue(p.calls().isEmpty(), () -> "calls " + p.calls());
        assertEquals(reply.strip(), p.content());
    }

    @Test
    void aCallNeedsAName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ToolCall("", "{}"));
        assertTrue(e.getMessage().contains("name"), e.getMessage());
    }

    private static Map<String, JsonNode> functions() throws IOException {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        out.put("get_weather", new ObjectMapper().readTree("{\"type\": \"object\", \"properties\": {\"city\": "
                + "{\"type\": \"string\"}}, \"required\": [\"city\"]}"));
        out.put("now", null);
        return out;
    }

    /** Law: every text a call grammar takes is read back as that one call, in each family's format. */
    @Test
    void aCallGrammarTakesOneCallItsFamilyReadsBack() throws IOException {
        Map<ToolCallFormat, List<String>> calls = Map.of(
                ToolCallFormat.QWEN, List.of("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                        + "\"Paris\"}}\n</tool_call>", "<tool_call>\n{\"name\":\"now\",\"arguments\":{}}\n</tool_call>"),
                ToolCallFormat.LLAMA3, List.of("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
                        "{\"name\": \"now\", \"parameters\": {}}"),
                ToolCallFormat.MISTRAL, List.of("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
                        "[{\"name\": \"now\", \"arguments\": {}}]"));
        for (Map.Entry<ToolCallFormat, List<String>> e : calls.entrySet()) {
            JsonGrammar g = e.getKey().callGrammar(functions());
            for (String text : e.getValue()) {
                assertTrue(g.accepts(text), e.getKey() + ": " + text);
                List<ToolCall> parsed = e.getKey().parse(text).calls();
                assertEquals(1, parsed.size(), text);
            }
            String other = e.getValue().get(0).replace("get_weather", "get_time");
            assertTrue(!g.accepts(other), e.getKey() + ": " + other);
            String missing = e.getValue().get(0).replace("\"city\": \"Paris\"", "");
            assertTrue(!g.accepts(missing), e.getKey() + ": " + missing);
        }
    }

    @Test
    void aCallGrammarNamesTheFunctionWhoseParametersItCannotHold() throws IOException {
        Map<String, JsonNode> f = functions();
        f.put("pick", new ObjectMapper().readTree("{\"type\": \"object\", \"properties\": {\"n\": {\"type\": "
                + "\"integer\", \"minimum\": 1}}}"));
        JsonSchemaException e = assertThrows(JsonSchemaException.class, () -> ToolCallFormat.QWEN.callGrammar(f));
        assertEquals("minimum", e.keyword());
        assertEquals("$.anyOf[2].properties.arguments.properties.n", e.path());
    }
}
