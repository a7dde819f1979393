/**
 * Quantizing GGUF files as {@code llama-quantize} does, with llama.cpp's own code: each tensor's type chosen by a
 * transcription of llama.cpp's rules for the {@code Q4_K_M}, {@code Q5_K_M}, {@code Q4_K_S}, {@code Q6_K} and
 * {@code Q8_0} mixes ({@link org.attn4j.bench.quantize.LlamaCppTypeChoice}), its rows quantized by ggml's
 * {@code ggml_quantize_chunk} through the foreign function API
 * ({@link org.attn4j.bench.quantize.GgmlQuantizer}). A program run from its sources by a Java 22+ JVM
 * ({@link org.attn4j.bench.quantize.QuantizeGguf} for one file, {@link org.attn4j.bench.quantize.QuantizedTestFiles}
 * for the models module's test files, which it can also compare with what llama.cpp's own
 * {@code llama_model_quantize} makes: {@link org.attn4j.bench.quantize.LlamaModelQuantize},
 * {@link org.attn4j.bench.quantize.FileDifferences}); the Java 17 build does not compile it.
 */
package org.attn4j.bench.quantize;
