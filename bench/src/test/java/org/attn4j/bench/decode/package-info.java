/**
 * The decode benchmark against the peers: random-weight Llamas in real checkpoints' shapes written once as
 * Hugging Face folders and GGUF files, the Q4_K_M and Q6_K ones quantized as llama.cpp quantizes
 * ({@link org.attn4j.bench.decode.PeerFiles}), run by attn4j ({@code generate --stats}), llama.cpp
 * ({@link org.attn4j.bench.decode.LlamaCppRun}), node-llama-cpp ({@code src/peers/node-llama-cpp/decode.mjs}) and
 * Jlama, each in its own process, and compared with the machine's memory bandwidth and with PyTorch's greedy ids
 * ({@link org.attn4j.bench.decode.DecodePeersMain}); and the checks that llama.cpp loads the models module's
 * quantized test files ({@link org.attn4j.bench.decode.LlamaCppLoad}).
 */
package org.attn4j.bench.decode;
