/**
 * Encoders with Hugging Face names. {@link org.attn4j.models.bert.EncoderConfig} reads a {@code config.json} and
 * picks the family by {@code model_type}: {@code bert} ({@link org.attn4j.models.bert.BertConfig},
 * {@link org.attn4j.models.bert.BertModel}, its weights from a {@code model.safetensors} with or without the
 * {@code bert.} prefix or an ONNX export mapped to the same names), {@code xlm-roberta}
 * ({@link org.attn4j.models.bert.XlmRobertaModel}: BERT's layers with RoBERTa's position ids), {@code mpnet}
 * ({@link org.attn4j.models.bert.MpnetModel}: the same layers under MPNet's names with one relative position bias on
 * every layer's logits), and the rotary encoders {@code nomic_bert} ({@link org.attn4j.models.bert.NomicBertModel}),
 * {@code modernbert} ({@link org.attn4j.models.bert.ModernBertModel}) and {@code new}
 * ({@link org.attn4j.models.bert.GteModel}). Each family is an {@link org.attn4j.models.bert.Encoder}, read by a
 * strict config reader that honours or refuses by name every key that changes the numbers; BERT and XLM-RoBERTa
 * also have a {@link org.attn4j.models.bert.SequenceClassifier} for cross-encoders. Each runs on any backend, its
 * parameters bound there once.
 */
package org.attn4j.models.bert;
