/**
 * Chat templates as checkpoints define them: a {@link org.attn4j.models.chat.Message} list rendered into a prompt by
 * the Jinja {@code chat_template} of {@code tokenizer_config.json} ({@link org.attn4j.models.chat.ChatTemplate}),
 * with the arguments of transformers' {@code apply_chat_template}
 * ({@link org.attn4j.models.chat.ChatTemplateOptions}). The engine is Jinjava, set up to render as Jinja2 does in
 * transformers; what it cannot render is a {@link org.attn4j.models.chat.ChatTemplateException} naming why.
 */
package org.attn4j.models.chat;
