package org.attn4j.models.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReasoningSplitTest {
    private static final String QWEN3_PROMPT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";

    @Test
    void qwen3sThinkingIsTheReasoningAndWhatFollowsTheContent() {
        ReasoningSplit.Parts p = ReasoningSplit.split(QWEN3_PROMPT,
                "<think>\nThe user greets me.\nI greet back.\n</think>\n\nHello!");
        assertEquals(new ReasoningSplit.Parts("The user greets me.\nI greet back.", "Hello!"), p);
    }

    @Test
    void aPromptThatOpensTheReasoningStartsTheReplyInsideIt() {
        ReasoningSplit.Parts p = ReasoningSplit.split("<｜Assistant｜><think>\n", "Two and two.\n</think>\n\n4");
        assertEquals(new ReasoningSplit.Parts("Two and two.", "4"), p);
    }

    @Test
    void aPromptThatClosesTheReasoningLeavesTheReplyAllContent() {
        String prompt = QWEN3_PROMPT + "<think>\n\n</think>\n\n";
        assertEquals(new ReasoningSplit.Parts("", "Hello!"), ReasoningSplit.split(prompt, "Hello!"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"Hello <think>x</think> there", "<thin", "  plain"})
    void aReplyNotStartingWithThinkIsAllContent(String reply) {
        assertEquals(new ReasoningSplit.Parts("", reply), ReasoningSplit.split(QWEN3_PROMPT, reply));
    }

    @Test
    void aReplyEndingInsideTheReasoningIsAllReasoning() {
        assertEquals(new ReasoningSplit.Parts("still thinking </thi", ""),
                ReasoningSplit.split(QWEN3_PROMPT, "<think>\nstill thinking </thi"));
    }

    @Test
    void theQwen3TemplateMarksReasoningAndQwen25sDoesNot() throws Exception {
        assertTrue(ReasoningSplit.marksReasoning(ToolCallFormatTest.checkpoint("Qwen--Qwen3-0.6B")));
        assertFalse(ReasoningSplit.marksReasoning(ToolCallFormatTest.checkpoint("Qwen--Qwen2.5-0.5B-Instruct")));
    }

    @RepeatedTest(40)
    void anyCuttingIntoPiecesGivesTheWholeReplysParts(RepetitionInfo info) {
        Random random = new Random(1234 + info.getCurrentRepetition());
        String[] replies = {"<think>\nA < B, so </ is not a tag.\n\n</think>\n\n  The answer is <b>.\n",
                " \n<think></think>content", "no thinking at all </think>", "<think>\n\n", "<think>x</think>\n \n"};
        String reply = replies[random.nextInt(replies.length)];
        ReasoningSplit.Parts whole = ReasoningSplit.split(QWEN3_PROMPT, reply);
        ReasoningSplit s = ReasoningSplit.after(QWEN3_PROMPT);
        StringBuilder reasoning = new StringBuilder();
        StringBuilder content = new StringBuilder();
        int at = 0;
        while (at < reply.length()) {
            int end = Math.min(reply.length(), at + 1 + random.nextInt(4));
            ReasoningSplit.Parts p = s.next(reply.substring(at, end));
            reasoning.append(p.reasoning());
            content.append(p.content());
            at = end;
        }
        ReasoningSplit.Parts last = s.finish();
        reasoning.append(last.reasoning());
        content.append(last.content());
        assertEquals(whole, new ReasoningSplit.Parts(reasoning.toString(), content.toString()),
                () -> "reply " + reply.replace("\n", "\\n"));
    }
}
