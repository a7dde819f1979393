package org.attn4j.models.generate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.models.chat.ChatTemplate;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.models.tokenize.TokenizerConfig;

/**
 * A chat checkpoint as one value: the model, its tokenizer ({@code tokenizer.json} with {@code tokenizer_config.json},
 * see {@link Tokenizer#fromFolder}), its chat template and its generation config. {@link #chat} answers a list of
 * messages: rendered as transformers' {@code apply_chat_template(messages, add_generation_prompt=True)} renders them,
 * encoded without added special tokens (the template writes BOS where the checkpoint wants one), generated with a
 * fresh key/value cache and streamed to a listener as text; generation stops at the generation config's
 * {@code eos_token_id}s and at {@code tokenizer_config.json}'s {@code eos_token} (the end-of-turn token of instruct
 * checkpoints). A GGUF file is a chat checkpoint too ({@link #load(Gguf.Contents, Backend, DType)}): its metadata holds
 * the tokenizer, the template and the stop ids.
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
     *     {@code tokenizer_config.json} with a {@code chat_template}, optionally {@code generation_config.json}; or a
     *     {@code .gguf} file ({@link #load(Gguf.Contents, Backend, DType)})
     * @param backend where the weights go
     * @param dtype the element type of weights and activations
     * @return the chat model, its weights uploaded
     * @throws IOException if a file cannot be read, or the tokenizer is not one attn4j reads
     * @throws IllegalArgumentException if the folder is no supported model, has no chat template, or its generation
     *     config asks for something attn4j does not do
     */
    public static ChatModel load(Path folder, Backend backend, DType dtype) throws IOException {
        if (Files.isRegularFile(folder) && folder.getFileName().toString().endsWith(".gguf")) {
            return load(Gguf.read(folder), backend, dtype);
        }
        TokenizerConfig config = TokenizerConfig.read(folder);
        Tokenizer tokenizer = Tokenizer.fromFolder(folder);
        ChatTemplate template = ChatTemplate.of(config);
        GenerationConfig generation = GenerationConfig.read(folder);
        int[] eos = config.specialToken("eos_token").stream().mapToInt(t -> tokenizer.id(t).orElse(-1))
                .filter(id -> id >= 0).toArray();
        return new ChatModel(CausalLM.load(folder, backend, dtype), tokenizer, template, generation, eos);
    }

    /**
     * A chat model from a GGUF file as llama.cpp's converter writes it: the decoder ({@link CausalLM#loadReleasing}),
     * the tokenizer of its {@code tokenizer.ggml.*} metadata
     * ({@link Tokenizer#fromGguf}), the template {@code tokenizer.chat_template} with the texts of
     * {@code bos_token_id}, {@code eos_token_id}, {@code unknown_token_id} and {@code padding_token_id} as
     * {@code bos_token}, {@code eos_token}, {@code unk_token} and {@code pad_token}, and the stop ids and sampling
     * defaults of {@link GenerationConfig#fromGguf} (EOS, EOT and EOM ids, and the end-of-turn tokens llama.cpp
     * finds by their text).
     *
     * @param gguf a GGUF file's contents ({@link Gguf#read}), given over: each tensor's memory map is given back as
     *     soon as it is bound ({@link CausalLM#loadReleasing}), so that loading holds no second copy of the weights
     * @param backend where the weights go
     * @param dtype the element type of weights and activations
     * @return the chat model, its weights uploaded
     * @throws Tokenizer.FormatException if the file's tokenizer is not one attn4j reads
     * @throws IllegalArgumentException if the file is no supported model, has no chat template or asks for generation
     *     attn4j does not do
     * @throws org.attn4j.models.chat.ChatTemplateException if the template does not parse
     */
    public static ChatModel load(Gguf.Contents gguf, Backend backend, DType dtype) throws Tokenizer.FormatException {
        Tokenizer tokenizer = Tokenizer.fromGguf(gguf);
        ChatTemplate template = ChatTemplate.of(chatTemplate(gguf), templateVariables(gguf, tokenizer));
        GenerationConfig generation = GenerationConfig.fromGguf(gguf);
        return new ChatModel(CausalLM.loadReleasing(gguf, backend, dtype, null, null), tokenizer, template, generation,
                new int[0]);
    }

    private static String chatTemplate(Gguf.Contents gguf) {
        try {
            if (gguf.has("tokenizer.chat_template")) {
                return gguf.string("tokenizer.chat_template");
            }
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException("chat: " + e.getMessage(), e);
        }
        List<String> named = gguf.metadata().keySet().stream().filter(k -> k.startsWith("tokenizer.chat_template."))
                .map(k -> k.substring("tokenizer.chat_template.".length())).sorted().toList();
        throw new IllegalArgumentException("chat: the GGUF file has no chat template (tokenizer.chat_template)"
                + (named.isEmpty() ? "" : "; it has the named ones " + named + " but none is the default"));
    }

    private static Map<String, Object> templateVariables(Gguf.Contents gguf, Tokenizer tokenizer) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String[] role : new String[][] {{"bos", "bos"}, {"eos", "eos"}, {"unknown", "unk"}, {"padding", "pad"}}) {
            String key = "tokenizer.ggml." + role[0] + "_token_id";
            try {
                if (gguf.has(key)) {
                    long id = gguf.integer(key);
                    if (id >= 0 && id < Integer.MAX_VALUE) {
                        tokenizer.token((int) id).ifPresent(t -> out.put(role[1] + "_token", t));
                    }
                }
            } catch (Gguf.FormatException e) {
                throw new IllegalArgumentException("chat: " + e.getMessage(), e);
            }
        }
        return out;
    }

    /**
     * @param model the model; the chat model takes it over and closes it
     * @param tokenizer its tokenizer
     * @param template its chat template
     * @param generation its generation config
     * @param extraStops stop ids beyond the generation config's, for example the id of
     *     {@code tokenizer_config.json}'s {@code eos_token}
     * @return the chat model, stopping at the generation config's {@code eos_token_id}s and {@code extraStops}
     */
    public static ChatModel of(CausalLM model, Tokenizer tokenizer, ChatTemplate template,
                               GenerationConfig generation, int... extraStops) {
        return new ChatModel(Objects.requireNonNull(model, "ChatModel.of: argument model is null"),
                Objects.requireNonNull(tokenizer, "ChatModel.of: argument tokenizer is null"),
                Objects.requireNonNull(template, "ChatModel.of: argument template is null"),
                Objects.requireNonNull(generation, "ChatModel.of: argument generation is null"),
                Objects.requireNonNull(extraStops, "ChatModel.of: argument extraStops is null").clone());
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
