/**
 * Weights in and out: {@link org.attn4j.models.io.SafeTensors} reads and writes PyTorch {@code state_dict}s in the
 * safetensors format with every offset and length validated against the file; {@link org.attn4j.models.io.Gguf}
 * reads GGUF files (metadata, tensor entries, memory-mapped tensors in their storage types), as strictly;
 * {@link org.attn4j.models.io.GgufMetadata} reads an architecture's {@code <arch>.*} keys one by one and refuses, by
 * name, every key no reader took. Its header is strict JSON read with
 * jackson-core's streaming parser (duplicate names, deep nesting, unpaired surrogates and every syntax error
 * rejected); no JSON parser is public here.
 */
package org.attn4j.models.io;
