package org.attn4j.models.chat;

/**
 * A chat template that cannot be rendered: it raised an error on purpose ({@code raise_exception}, for example
 * "Conversation roles must alternate user/assistant/user/assistant/..."), it fails on the given messages as it would
 * in Python (a {@code TypeError}), or it uses a Jinja feature attn4j's engine does not provide. The message says
 * which, with the template's words or the feature's name.
 */
public final class ChatTemplateException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    ChatTemplateException(String message) {
        super(message);
    }

    /** What {@code raise_exception(message)} throws inside Jinjava; rendering turns it into the outer exception. */
    static final class Raised extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Raised(String message) {
            super(message);
        }
    }
}
