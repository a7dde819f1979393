package org.attn4j.models.decoder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.models.chat.ChatTemplate;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.models.tokenize.TokenizerConfig;

/**
 * A chat checkpoint as one value: the model, its tokenizer ({@code tokenizer.json} with {@code tokenizer_config.json},
 * see {@link Tokenizer#fromFolder}), its chat template and its generation config. {@link #chat} answers a list of
 * messages: rendered as transformers' {@code apply_chat_template(messages, add_generation_prompt=True)} renders them,
 * encoded without added special tokens (the template writes BOS where the checkpoint wants one), generated with a
 * fresh key/value cache and streamed to a listener as text; generation stops at the generation config's
 * {@code eos_token_id}s and at {@code tokenizer_config.json}'s {@code eos_token} (the end-of-turn token of instruct
 * checkpoints).
 *
 * <p>A chat model may be shared by threads: each {@link #chat} call has its own cache. A {@link ChatSession} keeps one
 * conversation and its cache for a single caller. {@link #close()} frees the weights.
 *
 * <pre>{@code
 * try (ChatModel m = ChatModel.load(Path.of("Llama-3.2-1B-Instruct"), Backends.load(), DType.F32)) {
 *     ChatResponse r = m.chat(List.of(Message.user("Hello!")), m.defaults().withMaxNewTokens(128),
 *             (token, text) -> { System.out.print(text); return true; });
 *     System.out.println(r.stopReason() + " after " + r.completionTokens() + " tokens");
 * }
 * }</pre>
 */
public final class ChatModel implements AutoCloseable {
    private final CausalLM model;
    private final Tokenizer tokenizer;
    private final ChatTemplate template;
    private final GenerationConfig generation;
    private final int[] stopTokens;

    private ChatModel(CausalLM model, Tokenizer tokenizer, ChatTemplate template, GenerationConfig generation,
                      int[] extraStops) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.template = template;
        this.generation = generation;
        this.stopTokens = IntStream.concat(IntStream.of(generation.eosTokenIds()), IntStream.of(extraStops))
                .distinct().toArray();
    }

    /**
     * @param folder a Hugging Face folder: {@code config.json}, safetensors, {@code tokenizer.json},
     *     {@code tokenizer_config.json} with a {@code chat_template}, optionally {@code generation_config.json}
     * @param backend where the weights go
     * @param dtype the element type of weights and activations
     * @return the chat model, its weights uploaded
     * @throws IOException if a file cannot be read, or the tokenizer is not one attn4j reads
     * @throws IllegalArgumentException if the folder is no supported model, has no chat template, or its generation
     *     config asks for something attn4j does not do
     */
    public static ChatModel load(Path folder, Backend backend, DType dtype) throws IOException {
        TokenizerConfig config = TokenizerConfig.read(folder);
        Tokenizer tokenizer = Tokenizer.fromFolder(folder);
        ChatTemplate template = ChatTemplate.of(config);
        GenerationConfig generation = GenerationConfig.read(folder);
        int[] eos = config.specialToken("eos_token").stream().mapToInt(t -> tokenizer.id(t).orElse(-1))
                .filter(id -> id >= 0).toArray();
        return new ChatModel(CausalLM.load(folder, backend, dtype), tokenizer, template, generation, eos);
    }

    /**
     * @param model the model; the chat model takes it over and closes it
     * @param tokenizer its tokenizer
     * @param template its chat template
     * @param generation its generation config
     * @return the chat model, stopping at the generation config's {@code eos_token_id}s
     */
    public static ChatModel of(CausalLM model, Tokenizer tokenizer, ChatTemplate template,
                               GenerationConfig generation) {
        return new ChatModel(Objects.requireNonNull(model, "ChatModel.of: argument model is null"),
                Objects.requireNonNull(tokenizer, "ChatModel.of: argument tokenizer is null"),
                Objects.requireNonNull(template, "ChatModel.of: argument template is null"),
                Objects.requireNonNull(generation, "ChatModel.of: argument generation is null"), new int[0]);
    }

    /** @return the generation options the checkpoint intends, with every stop token of the checkpoint */
    public GenerationOptions defaults() {
        return generation.options().withStopTokens(stopTokens);
    }

    /**
     * @param messages a conversation
     * @param options the template's arguments (generation prompt, tools, variables …)
     * @return the ids of the rendered conversation, encoded without added special tokens
     * @throws org.attn4j.models.chat.ChatTemplateException if the template cannot render it
     */
    public int[] encode(List<Message> messages, ChatTemplateOptions options) {
        return tokenizer.encode(template.render(messages, options), false).ids();
    }

    /**
     * Answers a conversation (the template's generation prompt added).
     *
     * @param messages the conversation
     * @param options how to generate ({@link #defaults()} is what the checkpoint intends)
     * @param listener receives each token and its text; returning {@code false} stops generation
     * @return the reply
     */
    public ChatResponse chat(List<Message> messages, GenerationOptions options, ChatListener listener) {
        return chat(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true), options, listener);
    }

    /**
     * Answers a conversation rendered with the given template arguments (tools, documents, variables, a clock;
     * {@code continue_final_message} to continue the last message instead of adding a generation prompt).
     *
     * @param messages the conversation
     * @param templateOptions the template's arguments
     * @param options how to generate
     * @param listener receives each token and its text
     * @return the reply
     */
    public ChatResponse chat(List<Message> messages, ChatTemplateOptions templateOptions, GenerationOptions options,
                             ChatListener listener) {
        int[] ids = encode(messages, templateOptions);
        if (ids.length == 0) {
            throw new IllegalArgumentException("chat: the conversation renders to no tokens");
        }
        try (KvCache cache = model.newCache(1, Generator.capacity(ids.length, options))) {
            return respond(cache, ids, options, listener);
        }
    }

    /** @return a conversation of its own, keeping its key/value cache between replies */
    public ChatSession newSession() {
        return new ChatSession(this);
    }

    ChatResponse respond(KvCache cache, int[] ids, GenerationOptions options, ChatListener listener) {
        Objects.requireNonNull(listener, "chat: argument listener is null");
        ReplyText text = new ReplyText(tokenizer);
        Generation g = Generator.stream(model, cache, ids, options, token -> listener.onToken(token,
                text.next(token)));
        String rest = text.finish();
        if (!rest.isEmpty()) {
            listener.onToken(-1, rest);
        }
        return new ChatResponse(text.text(), g.tokens(), g.stopReason(), g.stopToken(), g.promptTokens());
    }

    /** @return the model */
    public CausalLM model() {
        return model;
    }

    /** @return the tokenizer */
    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** @return the chat template */
    public ChatTemplate template() {
        return template;
    }

    /** @return the generation config */
    public GenerationConfig generationConfig() {
        return generation;
    }

    /** @return the ids that end a reply: the generation config's {@code eos_token_id}s and the tokenizer's EOS */
    public int[] stopTokens() {
        return stopTokens.clone();
    }

    @Override
    public void close() {
        model.close();
    }
}
