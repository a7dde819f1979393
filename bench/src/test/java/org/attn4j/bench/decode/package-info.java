/**
 * The decode benchmark against the peers: random-weight Llamas in real checkpoints' shapes written once as
 * Hugging Face folders and GGUF files ({@link org.attn4j.bench.decode.PeerFiles}), run by attn4j ({@code generate
 * --stats}), llama.cpp ({@link org.attn4j.bench.decode.LlamaCppRun}) and Jlama, each in its own JVM, and compared
 * with the machine's memory bandwidth and with PyTorch's greedy ids ({@link org.attn4j.bench.decode.DecodePeersMain}).
 */
package org.attn4j.bench.decode;
