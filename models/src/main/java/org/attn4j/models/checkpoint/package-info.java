/**
 * Checkpoints: the one place that looks at a path and decides what it is.
 * {@link org.attn4j.models.checkpoint.Checkpoint#open} recognises a Hugging Face or sentence-transformers folder, a
 * {@code .safetensors}, {@code .onnx} or {@code .gguf} file or a model jar, reads each of its files once, and offers
 * what they hold: the configuration and its family, the parameters, the tokenizer, a decoder's generation config and
 * chat template, an encoder's pooling, projections and prompts ({@link org.attn4j.models.checkpoint.EncoderSetup},
 * {@link org.attn4j.models.checkpoint.Pooling}, {@link org.attn4j.models.checkpoint.DenseModule}), with notes on where
 * each came from (a GGUF file's tensors counted by type under its mix). The package sits below the model
 * families and the models ({@code bert}, {@code decoder}, {@code embed}, {@code generate}), which are built from a
 * checkpoint; it uses only the file readers, the tokenizers and the parameters.
 */
package org.attn4j.models.checkpoint;
