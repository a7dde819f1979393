package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.attn4j.models.chat.ToolCall;
import org.attn4j.models.chat.ToolCallFormat;
import org.attn4j.models.generate.Generation;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.StopReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A chat reply read into reasoning, content and calls, whole or piece by piece, and written as OpenAI's JSON. */
class ChatReplyTest {
    private static final ChatReply.Format QWEN3 = new ChatReply.Format(ToolCallFormat.QWEN, true, false);
    private static final String REPLY = "<think>\nThe user wants the weather.\n</think>\n\nLet me check.\n"
            + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

    @Test
    void aQwen3ReplyGivesItsReasoningItsTextAndItsCall() {
        ChatReply.Delta d = ChatReply.whole(QWEN3, REPLY);
        assertEquals("The user wants the weather.", d.reasoning());
        assertEquals("Let me check.", d.content());
        assertEquals(List.of(new ToolCall("get_weather", "{\"city\":\"Paris\"}")), d.calls());
    }

    @Test
    void withoutToolsOrReasoningTheTextPassesThroughUntouched() {
        ChatReply.Delta d = ChatReply.whole(ChatReply.Format.PLAIN, REPLY);
        assertEquals(new ChatReply.Delta("", REPLY, List.of()), d);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void piecesGiveWhatTheWholeReplyGivesAndReasoningStreamsBeforeTheEnd(long seed) {
        Random random = new Random(seed);
        ChatReply reply = new ChatReply(QWEN3);
        StringBuilder reasoning = new StringBuilder();
        StringBuilder content = new StringBuilder();
        int at = 0;
        while (at < REPLY.length()) {
            int end = Math.min(REPLY.length(), at + 1 + random.nextInt(6));
            ChatReply.Delta d = reply.next(REPLY.substring(at, end));
            assertTrue(d.calls().isEmpty() && d.content().isEmpty(), "content and calls wait for the end with tools");
            reasoning.append(d.reasoning());
            at = end;
        }
        assertEquals("The user wants the weather.", reasoning.toString(), "all reasoning streamed before the end");
        ChatReply.Delta last = reply.finish("");
        content.append(last.content());
        assertEquals(ChatReply.whole(QWEN3, REPLY), new ChatReply.Delta(reasoning + last.reasoning(),
                content.toString(), last.calls()));
    }

    private static GenerationRequest request() {
        ServedModels.Decoder d = new ServedModels.Decoder("m", null, null, null, null);
        return new GenerationRequest(d, new int[] {1, 2, 3}, new int[0], GenerationOptions.defaults(), List.of(),
                false, false, false, -1, QWEN3, 0);
    }

    @Test
    void aWholeAnswerWithCallsHasNullContentTheCallsAndTheReasoning() throws IOException {
        ChatReply.Delta reply = new ChatReply.Delta("why", "", List.of(new ToolCall("f", "{\"x\":1}")));
        JsonNode json = JsonRequest.MAPPER.readTree(GenerationJson.whole("chatcmpl-1", GenerationKind.CHAT, request(),
                reply, "tool_calls", new Generation(new int[] {5}, StopReason.STOP_TOKEN, 5, 3), List.of(), 0));
        JsonNode choice = json.get("choices").get(0);
        JsonNode message = choice.get("message");
        assertTrue(message.get("content").isNull(), message.toString());
        assertEquals("why", message.get("reasoning_content").textValue());
        JsonNode call = message.get("tool_calls").get(0);
        assertTrue(call.get("id").textValue().matches("[A-Za-z0-9]{9}"), call.toString());
        assertEquals("function", call.get("type").textValue());
        assertEquals("f", call.get("function").get("name").textValue());
        assertEquals("{\"x\":1}", call.get("function").get("arguments").textValue());
        assertEquals("tool_calls", choice.get("finish_reason").textValue());
    }

    @Test
    void aStreamedChunkCarriesReasoningOrIndexedCalls() throws IOException {
        JsonNode reasoning = JsonRequest.MAPPER.readTree(GenerationJson.chunk("c", GenerationKind.CHAT, request(),
                new ChatReply.Delta("hmm", "", List.of()), false, null, null)).get("choices").get(0).get("delta");
        assertEquals("hmm", reasoning.get("reasoning_content").textValue());
        assertTrue(!reasoning.has("content"), reasoning.toString());
        JsonNode calls = JsonRequest.MAPPER.readTree(GenerationJson.chunk("c", GenerationKind.CHAT, request(),
                new ChatReply.Delta("", "", List.of(new ToolCall("a", "{}"), new ToolCall("b", "{}"))), false, null,
                null)).get("choices").get(0).get("delta").get("tool_calls");
        assertEquals(2, calls.size());
        assertEquals(1, calls.get(1).get("index").intValue());
        assertEquals("b", calls.get(1).get("function").get("name").textValue());
    }
}
