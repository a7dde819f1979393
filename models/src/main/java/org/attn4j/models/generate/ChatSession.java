package org.attn4j.models.generate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.KvCache;

/**
 * One conversation with a {@link ChatModel}, keeping its key/value cache between turns: each reply renders the whole
 * conversation, reuses the cache for the longest prefix of ids it already holds (all of the previous turns, as a rule;
 * the template may re-render a reply differently from the ids that were generated, and then the cache rewinds to
 * where they part) and runs only the rest. Not thread-safe: one session per user. {@link #close()} frees the cache.
 */
public final class ChatSession implements AutoCloseable {
    private final ChatModel model;
    private final List<Message> messages = new ArrayList<>();
    private KvCache cache;
    private int[] cached = new int[0];

    ChatSession(ChatModel model) {
        this.model = model;
    }

    /** @return the conversation so far (read-only) */
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    /**
     * @param message a message to add to the conversation (a system message first, say)
     * @return this session
     */
    public ChatSession add(Message message) {
        messages.add(Objects.requireNonNull(message, "ChatSession.add: argument message is null"));
        return this;
    }

    /**
     * Adds a user message and answers it; the reply joins the conversation as an assistant message. If the
     * template refuses the conversation (or generation fails), the conversation stays as it was.
     *
     * @param text the user's message
     * @param options how to generate
     * @param listener receives each token and its text
     * @return the reply
     */
    public ChatResponse send(String text, GenerationOptions options, ChatListener listener) {
        add(Message.user(text));
        try {
            return reply(options, listener);
        } catch (RuntimeException e) {
            messages.remove(messages.size() - 1);
            throw e;
        }
    }

    /**
     * Answers the conversation as it stands; the reply joins it as an assistant message.
     *
     * @param options how to generate
     * @param listener receives each token and its text
     * @return the reply
     */
    public ChatResponse reply(GenerationOptions options, ChatListener listener) {
        int[] ids = model.encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        if (ids.length == 0) {
            throw new IllegalArgumentException("chat: the conversation renders to no tokens");
        }
        int capacity = Generator.capacity(ids.length, options);
        if (cache == null || cache.capacity() < capacity) {
            int grown = cache == null ? capacity : Math.max(capacity, 2 * cache.capacity());
            if (cache != null) {
                cache.close();
            }
            cache = model.model().newCache(1, grown);
            cached = new int[0];
        }
        int common = 0;
        while (common < Math.min(cached.length, ids.length - 1) && cached[common] == ids[common]) {
            common++;
        }
        cache.truncate(common);
        ChatResponse response = model.respond(cache, ids, options, listener);
        int[] all = Arrays.copyOf(ids, ids.length + response.completionTokens());
        System.arraycopy(response.tokens(), 0, all, ids.length, response.completionTokens());
        cached = Arrays.copyOf(all, cache.length());
        messages.add(Message.assistant(response.text()));
        return response;
    }

    /** @return how many positions of the conversation the cache holds */
    public int cachedTokens() {
        return cache == null ? 0 : cache.length();
    }

    @Override
    public void close() {
        if (cache != null) {
            cache.close();
            cache = null;
        }
    }
}
