package org.attn4j.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.attn4j.api.DType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.chat.ChatTemplateException;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.ChatListener;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.ChatResponse;
import org.attn4j.models.generate.ChatSession;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.StopReason;
import org.attn4j.models.tokenize.Tokenizer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j chat}: talks with a chat checkpoint (a Hugging Face folder with a chat template, or a GGUF file with
 * {@code tokenizer.chat_template}), streaming each reply as it is generated and stopping on the checkpoint's
 * end-of-turn and end-of-sequence ids. With {@code --message} it
 * answers one message and exits; with {@code --messages FILE} it answers a whole conversation (a JSON array of OpenAI
 * chat messages, tool calls and results and reasoning included, passed to the template as transformers takes them),
 * followed by the {@code --message} if one is given, and exits; without either, it reads messages from standard
 * input, one a line, keeping the conversation (on a terminal it prompts with {@code > }; {@code /reset} starts over,
 * {@code /exit} or end of input leaves). {@code --print-prompt-ids} prints each prompt's token ids on standard error
 * before its reply.
 */
@Command(name = "chat", mixinStandardHelpOptions = true,
        description = {"Chat with a model from a Hugging Face folder whose tokenizer_config.json has a chat template, "
                + "or from a GGUF file with tokenizer.chat_template: one message with --message, else a conversation "
                + "read from standard input (one message a line; /reset starts over, /exit leaves), or a whole "
                + "conversation from a JSON file with --messages. Replies stream as "
                + "they are generated and stop on the checkpoint's end-of-turn ids; generation_config.json (a GGUF "
                + "file's general.sampling.* keys) gives the sampling defaults."},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input."})
final class ChatCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "DIR|FILE.gguf", required = true,
            description = "a folder with config.json, *.safetensors, tokenizer.json and tokenizer_config.json (with a "
                    + "chat_template), optionally generation_config.json; or a .gguf file with a tokenizer and "
                    + "tokenizer.chat_template")
    private Path model;

    @Option(names = "--message", paramLabel = "TEXT", description = "answer this one message and exit")
    private String message;

    @Option(names = "--system", paramLabel = "TEXT", description = "a system message to start the conversation with")
    private String system;

    @Option(names = "--messages", paramLabel = "FILE", description = "answer this conversation and exit: a JSON array "
            + "of OpenAI chat messages (role, content, name, tool_calls, tool_call_id, reasoning_content), then "
            + "--message if given")
    private Path messages;

    @Option(names = "--print-prompt-ids", description = "before each reply, print the prompt's token ids on standard "
            + "error as a JSON array")
    private boolean printPromptIds;

    @Mixin
    private SamplingOptions sampling;

    @Option(names = "--stats", description = "after each reply, print why it stopped and the token counts on "
            + "standard error")
    private boolean stats;

    @Option(names = "--backend", paramLabel = "NAME", description = "the backend to run on (default: the selected one)")
    private String backend;

    @Override
    public Integer call() throws IOException {
        Checkpoint checkpoint = CheckpointOption.open(model, Checkpoint.Kind.DECODER, null, spec);
        if (message != null && message.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--message is empty; give some text");
        }
        if (messages != null && system != null) {
            throw new ParameterException(spec.commandLine(), "--system and --messages: give the system message in the "
                    + "file");
        }
        List<Message> conversation = messages == null ? List.of() : MessagesFile.read(messages, spec);
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        ChatModel chat;
        try {
            chat = ChatModel.from(checkpoint, choice.backend(), DType.F32);
            chat.model().warmUp(CausalLM.DEFAULT_WARM_UP);
        } catch (IllegalArgumentException | IllegalStateException | Tokenizer.FormatException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try (chat; ChatSession session = start(chat)) {
            conversation.forEach(session::add);
            if (!chat.generationConfig().unknownKeys().isEmpty()) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + chat.generationConfig().source()
                        + " has keys attn4j does not know, ignored: "
                        + String.join(", ", chat.generationConfig().unknownKeys()));
            }
            GenerationOptions options = sampling.apply(chat.defaults(), 512,
                    chat.generationConfig().maxNewTokens().isPresent(), spec);
            if (message != null || messages != null) {
                try {
                    reply(chat, session, message, options);
                } catch (ChatTemplateException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
                return 0;
            }
            converse(chat, session, options);
        }
        return 0;
    }

    private ChatSession start(ChatModel chat) {
        ChatSession session = chat.newSession();
        if (system != null) {
            session.add(Message.system(system));
        }
        return session;
    }

    private void converse(ChatModel chat, ChatSession first, GenerationOptions options) throws IOException {
        boolean terminal = System.console() != null;
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (terminal) {
            err.println(spec.qualifiedName() + ": " + model.getFileName() + " on " + chat.model().backend().name()
                    + "; one message a line, /reset starts over, /exit leaves");
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        ChatSession session = first;
        try {
            while (true) {
                if (terminal) {
                    out.print("> ");
                    out.flush();
                }
                String line = in.readLine();
                if (line == null || line.strip().equals("/exit") || line.strip().equals("/quit")) {
                    return;
                }
                if (line.strip().equals("/reset")) {
                    if (session != first) {
                        session.close();
                    }
                    session = start(chat);
                    continue;
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    reply(chat, session, line, options);
                } catch (ChatTemplateException e) {
                    err.println(spec.qualifiedName() + ": " + e.getMessage());
                    err.flush();
                }
            }
        } finally {
            if (session != first) {
                session.close();
            }
        }
    }

    /** Answers {@code text} as the next user message, or the conversation as it stands when it is null. */
    private void reply(ChatModel chat, ChatSession session, String text, GenerationOptions options) {
        PrintWriter out = spec.commandLine().getOut();
        if (printPromptIds) {
            List<Message> prompt = new ArrayList<>(session.messages());
            if (text != null) {
                prompt.add(Message.user(text));
            }
            int[] ids = chat.encode(prompt, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
            PrintWriter err = spec.commandLine().getErr();
            err.println(Arrays.stream(ids).mapToObj(Integer::toString).collect(Collectors.joining(", ", "[", "]")));
            err.flush();
        }
        ChatListener print = (token, piece) -> {
            out.print(piece);
            out.flush();
            return true;
        };
        ChatResponse r = text != null ? session.send(text, options, print) : session.reply(options, print);
        out.println();
        out.flush();
        if (stats) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": " + (r.stopReason() == StopReason.STOP_TOKEN ? "stopped at "
                    + chat.tokenizer().token(r.stopToken()).orElse("id " + r.stopToken()) + " (id " + r.stopToken()
                    + ")" : r.stopReason() == StopReason.LENGTH ? "stopped at the length limit" : "cancelled")
                    + "; prompt " + r.promptTokens() + " tokens, reply " + r.completionTokens() + " tokens");
            err.flush();
        }
    }
}
