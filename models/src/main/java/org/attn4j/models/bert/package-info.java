/**
 * Encoders with Hugging Face names, each behind {@link org.attn4j.models.bert.Encoder}, which chooses the family by
 * {@code config.json}'s {@code model_type}: BERT ({@link org.attn4j.models.bert.BertConfig},
 * {@link org.attn4j.models.bert.BertModel}: a {@code model.safetensors} with or without the {@code bert.} prefix, or
 * an ONNX export mapped to the same names) and the rotary encoders NomicBERT
 * ({@link org.attn4j.models.bert.NomicBertModel}), ModernBERT ({@link org.attn4j.models.bert.ModernBertModel}) and
 * GTE ({@link org.attn4j.models.bert.GteModel}), each with a strict config reader that honours or refuses by
 * name every key that changes the numbers. Each runs on any backend, its parameters bound there once.
 */
package org.attn4j.models.bert;
