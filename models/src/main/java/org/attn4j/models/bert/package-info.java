/**
 * BERT-family encoders with Hugging Face names: {@link org.attn4j.models.bert.BertConfig} reads {@code config.json},
 * {@link org.attn4j.models.bert.BertModel} loads the weights (a {@code model.safetensors} with or without the
 * {@code bert.} prefix, or an ONNX export mapped to the same names) and runs on any backend, its parameters bound
 * there once.
 */
package org.attn4j.models.bert;
