/**
 * Text generation and chat over a {@link org.attn4j.models.decoder.CausalLM}:
 * {@link org.attn4j.models.generate.Generator} loops the model's steps through its
 * {@link org.attn4j.models.decoder.KvCache}, picking each token as {@link org.attn4j.models.generate.GenerationOptions}
 * say (greedy, temperature, top-k, top-p, min-p, repetition penalty), streaming it to a
 * {@link org.attn4j.models.generate.TokenListener} and saying why it stopped
 * ({@link org.attn4j.models.generate.StopReason}). {@link org.attn4j.models.generate.BatchDecoder} runs many
 * generations together (continuous batching: each joins and leaves between steps, its prompt read in chunks), each
 * giving the same tokens as it would alone; with a {@link org.attn4j.models.generate.PromptCache} a prompt starts from
 * the keys and values of the whole chunks it shares with a prompt read before, with the same results.
 * {@link org.attn4j.models.generate.GenerationOptions#withGrammar} holds the output to a JSON grammar
 * ({@link org.attn4j.models.grammar}), masking the tokens it refuses at each step.
 *
 * <p>A checkpoint's intent is read, not assumed: {@link org.attn4j.models.generate.GenerationConfig} reads
 * {@code generation_config.json} (or a GGUF file's metadata) into the default options, refusing the keys that would
 * change the tokens and are not implemented; {@link org.attn4j.models.generate.ChatModel} answers a list of
 * {@link org.attn4j.models.chat.Message}s through the checkpoint's chat template and tokenizer, streaming text and
 * stopping at its end-of-turn ids; {@link org.attn4j.models.generate.ChatSession} keeps one conversation's cache.
 */
package org.attn4j.models.generate;
