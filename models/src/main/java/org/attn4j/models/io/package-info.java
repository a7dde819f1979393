/**
 * Weights in and out: {@link org.attn4j.models.io.SafeTensors} reads and writes PyTorch {@code state_dict}s in the
 * safetensors format (F32, F64) with every offset and length validated against the file, and
 * {@link org.attn4j.models.io.Json} is the small strict JSON reader it uses, also handy for golden manifests.
 * Both are dependency-free.
 */
package org.attn4j.models.io;
