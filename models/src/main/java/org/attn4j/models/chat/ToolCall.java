package org.attn4j.models.chat;

import java.util.Objects;

/**
 * One function call a model wrote in its reply, as OpenAI's API gives it back: the function's name and its arguments
 * as the text of a JSON object ({@code "{\"city\": \"Paris\"}"}). Read from a reply by {@link ToolCallFormat#parse}.
 *
 * @param name the function's name, not empty
 * @param arguments the arguments, a JSON object's compact text ({@code "{}"} when the model gave none)
 */
public record ToolCall(String name, String arguments) {
    /** Checks the fields. */
    public ToolCall {
        Objects.requireNonNull(name, "ToolCall: argument name is null");
        Objects.requireNonNull(arguments, "ToolCall: argument arguments is null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("ToolCall: argument name is empty");
        }
    }
}
