/**
 * BERT-family encoders with Hugging Face names. {@link org.attn4j.models.bert.EncoderConfig} reads a
 * {@code config.json} and picks the family by {@code model_type}: {@code bert}
 * ({@link org.attn4j.models.bert.BertConfig}, {@link org.attn4j.models.bert.BertModel}, its weights from a
 * {@code model.safetensors} with or without the {@code bert.} prefix or an ONNX export mapped to the same names) or
 * {@code xlm-roberta} ({@link org.attn4j.models.bert.XlmRobertaConfig},
 * {@link org.attn4j.models.bert.XlmRobertaModel}: BERT's layers with RoBERTa's position ids) or {@code mpnet}
 * ({@link org.attn4j.models.bert.MpnetConfig}, {@link org.attn4j.models.bert.MpnetModel}: the same layers under
 * MPNet's names with one relative position bias on every layer's logits). Each family is an
 * {@link org.attn4j.models.bert.Encoder} and has a {@link org.attn4j.models.bert.SequenceClassifier} for
 * cross-encoders (BERT and XLM-RoBERTa); each runs on any backend, its parameters bound there once.
 */
package org.attn4j.models.bert;
