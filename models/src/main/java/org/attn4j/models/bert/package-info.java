/**
 * BERT-family encoders with Hugging Face names: {@link org.attn4j.models.bert.BertConfig} reads {@code config.json},
 * {@link org.attn4j.models.bert.BertModel} loads the weights (a {@code model.safetensors} with or without the
 * {@code bert.} prefix, an ONNX export mapped to the same names, or a llama.cpp GGUF file read by
 * {@link org.attn4j.models.bert.BertGguf}) and runs on any backend, its parameters bound there once.
 */
package org.attn4j.models.bert;
