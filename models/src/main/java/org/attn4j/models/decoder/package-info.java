/**
 * Decoder-only language models and text generation with a key/value cache: GPT-2 and Llama-style models read from
 * a Hugging Face folder ({@code config.json} with {@code model_type} {@code gpt2} or {@code llama}, and
 * safetensors) under their {@code state_dict} names, a {@link org.attn4j.models.decoder.KvCache} preallocated per
 * layer, and a {@link org.attn4j.models.decoder.Generator} with greedy, temperature, top-k, top-p and min-p sampling
 * and a repetition penalty, streaming each token to a listener and saying why it stopped.
 *
 * <p>A checkpoint's intent is read, not assumed: {@link org.attn4j.models.decoder.GenerationConfig} reads
 * {@code generation_config.json} into the default options (refusing the keys that would change the tokens and are
 * not implemented), and {@link org.attn4j.models.decoder.ChatModel} answers a list of
 * {@link org.attn4j.models.chat.Message}s through the checkpoint's chat template and tokenizer, streaming text and
 * stopping at its end-of-turn ids; {@link org.attn4j.models.decoder.ChatSession} keeps one conversation's cache.
 *
 * <p>A loaded {@link org.attn4j.models.decoder.CausalLM} keeps its weights on its backend for its lifetime; a
 * decoding step uploads nothing but the new token ids and writes its keys and values into the cache in place
 * ({@code Ops.writeSlice}), so that apart from attention over the growing cache every step costs the same.
 */
package org.attn4j.models.decoder;
