package org.attn4j.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.attn4j.models.chat.Message;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A conversation as a JSON file: an array of OpenAI chat messages, read for a chat template as transformers'
 * {@code apply_chat_template} takes them. Each message has a string {@code role} ({@code developer} is read as
 * {@code system}) and any of {@code content} (a string, or null), {@code name}, {@code tool_calls},
 * {@code tool_call_id} and {@code reasoning_content}; a call's {@code function.arguments} given as JSON text (as
 * OpenAI's API has it) is read into its object, as templates write it with {@code tojson}. Any other field is refused
 * by name.
 */
final class MessagesFile {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id",
            "reasoning_content");

    private MessagesFile() {
    }

    /**
     * @param file the file
     * @param spec the command, for its errors
     * @return the messages, in order
     * @throws ParameterException naming the file and the message at fault
     */
    static List<Message> read(Path file, CommandSpec spec) {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw bad(spec, file, "is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw bad(spec, file, "cannot be read (" + e + ")");
        }
        if (root == null || !root.isArray() || root.isEmpty()) {
            throw bad(spec, file, "must hold a non-empty JSON array of messages");
        }
        List<Message> out = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            String where = "messages[" + i + "]";
            JsonNode m = root.get(i);
            if (!m.isObject()) {
                throw bad(spec, file, where + " must be an object");
            }
            for (var it = m.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!FIELDS.contains(f)) {
                    throw bad(spec, file, where + "." + f + " is not a message field attn4j reads (" + FIELDS + ")");
                }
            }
            if (!m.path("role").isTextual() || m.get("role").textValue().isEmpty()) {
                throw bad(spec, file, where + ".role must be a non-empty string");
            }
            ObjectNode copy = m.deepCopy();
            if (copy.get("role").textValue().equals("developer")) {
                copy.put("role", "system");
            }
            JsonNode calls = copy.get("tool_calls");
            if (calls != null && !calls.isNull()) {
                if (!calls.isArray()) {
                    throw bad(spec, file, where + ".tool_calls must be an array");
                }
                for (int j = 0; j < calls.size(); j++) {
                    JsonNode function = calls.get(j).path("function");
                    JsonNode args = function.get("arguments");
                    if (function instanceof ObjectNode f && args != null && args.isTextual()) {
                        try {
                            f.set("arguments", JSON.readTree(args.textValue()));
                        } catch (JsonProcessingException e) {
                            throw bad(spec, file, where + ".tool_calls[" + j + "].function.arguments is not JSON: "
                                    + e.getOriginalMessage());
                        }
                    }
                }
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = JSON.convertValue(copy, Map.class);
            out.add(Message.of(fields));
        }
        return out;
    }

    private static ParameterException bad(CommandSpec spec, Path file, String why) {
        return new ParameterException(spec.commandLine(), "--messages " + file + ": " + why);
    }
}
