package org.attn4j.models.chat;

import java.util.Objects;

/**
 * Splits a reply into the model's reasoning and its answer, for templates that mark reasoning as
 * {@code <think>…</think>} (Qwen 3, DeepSeek-R1): the text inside the tags is the reasoning, the text after them the
 * content. Where the prompt itself opens {@code <think>} (DeepSeek-R1's generation prompt) the reply starts inside
 * the reasoning; where the prompt closes it (Qwen 3 with {@code enable_thinking=false}) or the reply starts with
 * anything but {@code <think>}, the reply is all content. Reasoning is stripped of the white space at its ends and
 * content of the white space that follows {@code </think>}; a reply that ends inside the reasoning is all reasoning.
 *
 * <p>Text arrives in pieces ({@link #next}); what might still be the start of a tag or white space to strip is held
 * until the next piece or {@link #finish}. Whatever the pieces, the parts given out join to those of the whole reply.
 * Not thread-safe: one per reply.
 */
public final class ReasoningSplit {
    private static final String OPEN = "<think>";
    private static final String CLOSE = "</think>";

    /**
     * The text a piece gives out.
     *
     * @param reasoning the next reasoning text ({@code ""} when none)
     * @param content the next content text ({@code ""} when none)
     */
    public record Parts(String reasoning, String content) {
        /** Checks the fields. */
        public Parts {
            Objects.requireNonNull(reasoning, "ReasoningSplit.Parts: argument reasoning is null");
            Objects.requireNonNull(content, "ReasoningSplit.Parts: argument content is null");
        }

        private static final Parts NONE = new Parts("", "");
    }

    private enum State { START, REASONING, AFTER, CONTENT }

    private State state;
    private boolean reasoningStarted;
    private final StringBuilder held = new StringBuilder();

    private ReasoningSplit(State state) {
        this.state = state;
    }

    /**
     * @param template a checkpoint's chat template
     * @return whether it marks reasoning with {@code <think>} and {@code </think>}
     */
    public static boolean marksReasoning(ChatTemplate template) {
        Objects.requireNonNull(template, "ReasoningSplit.marksReasoning: argument template is null");
        return template.source().contains(CLOSE);
    }

    /**
     * @param prompt a rendered prompt
     * @return whether its last {@code <think>} is not closed, so that a reply to it starts inside the reasoning
     */
    public static boolean leavesOpen(String prompt) {
        Objects.requireNonNull(prompt, "ReasoningSplit.leavesOpen: argument prompt is null");
        int open = prompt.lastIndexOf(OPEN);
        return open >= 0 && prompt.indexOf(CLOSE, open) < 0;
    }

    /**
     * @param insideReasoning whether the reply starts inside the reasoning ({@link #leavesOpen} of its prompt)
     * @return a split for one reply
     */
    public static ReasoningSplit starting(boolean insideReasoning) {
        return new ReasoningSplit(insideReasoning ? State.REASONING : State.START);
    }

    /**
     * @param prompt the rendered prompt the reply continues
     * @return a split for the reply, {@link #starting} inside the reasoning when the prompt {@link #leavesOpen} it
     */
    public static ReasoningSplit after(String prompt) {
        return starting(leavesOpen(prompt));
    }

    /**
     * @param prompt the rendered prompt
     * @param reply the whole reply
     * @return its reasoning and content
     */
    public static Parts split(String prompt, String reply) {
        ReasoningSplit s = after(prompt);
        Parts a = s.next(reply);
        Parts b = s.finish();
        return new Parts(a.reasoning() + b.reasoning(), a.content() + b.content());
    }

    /**
     * @param piece the next piece of the reply
     * @return the reasoning and content it lets out
     */
    public Parts next(String piece) {
        Objects.requireNonNull(piece, "ReasoningSplit.next: argument piece is null");
        held.append(piece);
        StringBuilder reasoning = new StringBuilder();
        StringBuilder content = new StringBuilder();
        while (held.length() > 0) {
            int before = held.length();
            State was = state;
            step(reasoning, content);
            if (state == was && held.length() == before) {
                break;
            }
        }
        return reasoning.isEmpty() && content.isEmpty() ? Parts.NONE
                : new Parts(reasoning.toString(), content.toString());
    }

    /** @return what was held at the end of the reply: an unfinished tag's text counts as what it was in */
    public Parts finish() {
        String rest = held.toString();
        held.setLength(0);
        return switch (state) {
            case START -> new Parts("", rest);
            case REASONING -> new Parts(reasoningStarted ? rest.stripTrailing() : rest.strip(), "");
            case AFTER -> Parts.NONE;
            case CONTENT -> new Parts("", rest);
        };
    }

    private void step(StringBuilder reasoning, StringBuilder content) {
        switch (state) {
            case START -> {
                String lead = held.toString().stripLeading();
                if (lead.startsWith(OPEN)) {
                    held.delete(0, held.length() - lead.length() + OPEN.length());
                    state = State.REASONING;
                } else if (!OPEN.startsWith(lead)) {
                    state = State.CONTENT;
                }
            }
            case REASONING -> {
                if (!reasoningStarted) {
                    int ws = 0;
                    while (ws < held.length() && Character.isWhitespace(held.charAt(ws))) {
                        ws++;
                    }
                    held.delete(0, ws);
                }
                String text = held.toString();
                int close = text.indexOf(CLOSE);
                if (close >= 0) {
                    reasoning.append(text, 0, close);
                    trimTrailing(reasoning);
                    held.delete(0, close + CLOSE.length());
                    state = State.AFTER;
                    return;
                }
                int keep = partialSuffix(text, CLOSE);
                int end = text.length() - keep;
                while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) {
                    end--;
                }
                if (end > 0) {
                    reasoning.append(text, 0, end);
                    held.delete(0, end);
                    reasoningStarted = true;
                }
            }
            case AFTER -> {
                String lead = held.toString().stripLeading();
                held.delete(0, held.length() - lead.length());
                if (!lead.isEmpty()) {
                    state = State.CONTENT;
                }
            }
            case CONTENT -> {
                content.append(held);
                held.setLength(0);
            }
        }
    }

    private static void trimTrailing(StringBuilder s) {
        int end = s.length();
        while (end > 0 && Character.isWhitespace(s.charAt(end - 1))) {
            end--;
        }
        s.setLength(end);
    }

    /** @return the length of the longest end of {@code text} that begins {@code tag} */
    private static int partialSuffix(String text, String tag) {
        for (int n = Math.min(text.length(), tag.length() - 1); n > 0; n--) {
            if (text.endsWith(tag.substring(0, n))) {
                return n;
            }
        }
        return 0;
    }
}
