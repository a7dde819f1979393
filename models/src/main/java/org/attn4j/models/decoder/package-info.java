/**
 * Decoder-only language model families and their one forward pass with a key/value cache: the families of
 * {@link org.attn4j.models.decoder.DecoderConfig.Type} (GPT-2, Llama 2 and 3.x, Mistral, Qwen2 and 2.5, Qwen3, Gemma,
 * Gemma 2, Gemma 3 and the text decoder of its image-text checkpoints, Phi-3) read strictly from a Hugging Face
 * folder ({@code config.json} and safetensors) under their {@code state_dict} names or from a GGUF file as
 * llama.cpp's converter writes it, into a {@link org.attn4j.models.decoder.CausalLM} with a
 * {@link org.attn4j.models.decoder.KvCache} preallocated per layer; its {@code hidden} gives the final norm's states
 * instead of logits, which {@code org.attn4j.models.embed} pools for Qwen3-Embedding. Sampling, generation and chat
 * live one layer up, in {@code org.attn4j.models.generate}.
 *
 * <p>What lives where: {@code DecoderConfig} and {@code ConfigJson} read a config strictly, one reader per family
 * ({@code Gpt2}, {@code Llama}, {@code Mistral}, {@code Qwen2}, {@code Qwen3}, {@code Gemma}, {@code Gemma2},
 * {@code Gemma3}, {@code Phi3}) whose javadoc lists the keys it honours and ignores; {@code GgufDecoder} turns a GGUF
 * file's {@code <arch>.*} metadata ({@code io.GgufMetadata}, as strict) into those readers' keys and its tensors into their
 * names; {@code RopeScaling} computes rotary embeddings as transformers does; {@code Weights} binds every parameter
 * (the only place that takes tensors out of a state_dict) into the building blocks the encoders use too,
 * {@code org.attn4j.models.layers}' {@code Linear}, {@code Embedding} (which also serves as a tied LM head),
 * {@code RmsNorm} and {@code LayerNorm}, bound over the model's scope and run on a work scope's {@code Ops}
 * ({@code apply}); {@code DecoderAttention} and {@code FeedForward} are the blocks' halves and {@code DecoderStack}
 * the one forward every family runs.
 *
 * <p>The shared stack ({@code DecoderStack}, {@code DecoderAttention}, {@code FeedForward}, {@code KvCache},
 * {@code Weights}, {@code DecoderConfig}, {@code RopeScaling}, {@code CausalLM}) and the family readers ({@code Llama}
 * … {@code Gpt2}, {@code GgufDecoder}, {@code ConfigJson}) stay one package: they point at each other both ways
 * ({@code DecoderConfig.Type} names each family's reader and binder; each reader fills {@code DecoderConfig}'s builder
 * with {@code ConfigJson} and {@code RopeScaling} and binds through {@code Weights}, {@code DecoderStack},
 * {@code DecoderAttention} and {@code FeedForward}), so two packages would either form a cycle or make all of those,
 * package-private today, public for the readers' sake. As one package its public surface is {@code CausalLM},
 * {@code DecoderConfig} and {@code KvCache}; generation and chat, which only run a decoder, already live above it.
 *
 * <p>A loaded {@link org.attn4j.models.decoder.CausalLM} keeps its weights on its backend for its lifetime; a decoding
 * step uploads nothing but the new token ids and writes its keys and values into the cache in place
 * ({@code Ops.writeSlice}), so that apart from attention over the growing cache every step costs the same.
 */
package org.attn4j.models.decoder;
