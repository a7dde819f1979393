package org.attn4j.server;

import java.util.List;
import java.util.Objects;
import org.attn4j.models.chat.ReasoningSplit;
import org.attn4j.models.chat.ToolCall;
import org.attn4j.models.chat.ToolCallFormat;

/**
 * One chat reply read as it arrives into what OpenAI's API answers: {@code reasoning_content} split off where the
 * template marks reasoning ({@link ReasoningSplit}), and, when the request offers tools, the content read for function
 * calls ({@link ToolCallFormat}). With tools the content is held until the reply ends (a call is only known whole),
 * then given once, stripped, with the calls; without, it passes through as it comes. Not thread-safe: one per reply.
 */
final class ChatReply {
    /**
     * How a request's replies are read.
     *
     * @param tools the format calls are read in, or {@code null} when the request offers no tools
     * @param splitReasoning whether the template marks reasoning with {@code <think>}
     * @param startsInReasoning whether the prompt leaves {@code <think>} open
     */
    record Format(ToolCallFormat tools, boolean splitReasoning, boolean startsInReasoning) {
        /** Content only: no tools, no reasoning. */
        static final Format PLAIN = new Format(null, false, false);
    }

    /**
     * What one chunk (or the whole answer) carries.
     *
     * @param reasoning reasoning text, {@code ""} when none
     * @param content content text, {@code ""} when none
     * @param calls the function calls, empty when none
     */
    record Delta(String reasoning, String content, List<ToolCall> calls) {
        Delta {
            Objects.requireNonNull(reasoning);
            Objects.requireNonNull(content);
            calls = List.copyOf(calls);
        }

        /** @return whether the delta carries nothing */
        boolean isEmpty() {
            return reasoning.isEmpty() && content.isEmpty() && calls.isEmpty();
        }
    }

    private final Format format;
    private final ReasoningSplit split;
    private final StringBuilder heldContent = new StringBuilder();

    ChatReply(Format format) {
        this.format = format;
        this.split = format.splitReasoning() ? ReasoningSplit.starting(format.startsInReasoning()) : null;
    }

    /**
     * @param format how the reply is read
     * @param text the whole reply
     * @return its reasoning, content and calls
     */
    static Delta whole(Format format, String text) {
        ChatReply r = new ChatReply(format);
        Delta a = r.next(text);
        Delta b = r.finish("");
        return new Delta(a.reasoning() + b.reasoning(), a.content() + b.content(), b.calls());
    }

    /**
     * @param piece the next piece of the reply
     * @return what it lets out now (may be empty)
     */
    Delta next(String piece) {
        ReasoningSplit.Parts p = split == null ? new ReasoningSplit.Parts("", piece) : split.next(piece);
        if (format.tools() != null) {
            heldContent.append(p.content());
            return new Delta(p.reasoning(), "", List.of());
        }
        return new Delta(p.reasoning(), p.content(), List.of());
    }

    /**
     * @param rest the last text of the reply (what the run held back)
     * @return everything still held: the last reasoning and content, and the calls read from the content
     */
    Delta finish(String rest) {
        Delta last = next(rest);
        String reasoning = last.reasoning();
        String content = last.content();
        if (split != null) {
            ReasoningSplit.Parts end = split.finish();
            reasoning += end.reasoning();
            if (format.tools() != null) {
                heldContent.append(end.content());
            } else {
                content += end.content();
            }
        }
        if (format.tools() == null) {
            return new Delta(reasoning, content, List.of());
        }
        ToolCallFormat.Parsed parsed = format.tools().parse(heldContent.toString());
        heldContent.setLength(0);
        return new Delta(reasoning, parsed.content(), parsed.calls());
    }
}
