/**
 * Chat templates as checkpoints define them: a {@link org.attn4j.models.chat.Message} list rendered into a prompt by
 * the Jinja {@code chat_template} of {@code tokenizer_config.json} ({@link org.attn4j.models.chat.ChatTemplate}),
 * with the arguments of transformers' {@code apply_chat_template}
 * ({@link org.attn4j.models.chat.ChatTemplateOptions}). The engine is Jinjava, set up to render as Jinja2 does in
 * transformers; what it cannot render is a {@link org.attn4j.models.chat.ChatTemplateException} naming why.
 *
 * <p>A reply is read back as the template's family wrote it: function calls in the family's
 * {@link org.attn4j.models.chat.ToolCallFormat} (Qwen's {@code <tool_call>}, Llama 3's JSON, Mistral's
 * {@code [TOOL_CALLS]}) become {@link org.attn4j.models.chat.ToolCall}s, and {@code <think>…</think>} reasoning
 * (Qwen 3, DeepSeek-R1) is split from the content by {@link org.attn4j.models.chat.ReasoningSplit}, whole or piece
 * by piece as it streams.
 */
package org.attn4j.models.chat;
