/**
 * Encoders with Hugging Face names. {@link org.attn4j.models.bert.EncoderConfig} reads a {@code config.json} and
 * picks the family by {@code model_type}: {@code bert} ({@link org.attn4j.models.bert.BertConfig},
 * {@link org.attn4j.models.bert.BertModel}, its weights from a {@code model.safetensors} with or without the
 * {@code bert.} prefix, an ONNX export mapped to the same names, or a llama.cpp GGUF file read by
 * {@link org.attn4j.models.bert.BertGguf}), {@code xlm-roberta}
 * ({@link org.attn4j.models.bert.XlmRobertaModel}: BERT's layers with RoBERTa's position ids), {@code mpnet}
 * ({@link org.attn4j.models.bert.MpnetModel}: the same layers under MPNet's names with one relative position bias on
 * every layer's logits), and the rotary encoders {@code nomic_bert} ({@link org.attn4j.models.bert.NomicBertModel}),
 * {@code modernbert} ({@link org.attn4j.models.bert.ModernBertModel}) and {@code new}
 * ({@link org.attn4j.models.bert.GteModel}), built from the building blocks of {@code org.attn4j.models.layers}
 * ({@code RotarySelfAttention}, {@code GatedFeedForward}, {@code Linear}, {@code LayerNorm}, {@code Embedding});
 * NomicBERT and GTE run the same post-norm stack ({@code PostNormStack} of {@code PostNormLayer}s) and differ only in
 * their names and configuration, while ModernBERT's pre-norm stack with local and global layers is its own. Each family is an {@link org.attn4j.models.bert.Encoder}, read by a
 * strict config reader that honours or refuses by name every key that changes the numbers; BERT and XLM-RoBERTa
 * also have a {@link org.attn4j.models.bert.SequenceClassifier} for cross-encoders. Each runs on any backend, its
 * parameters bound there once.
 */
package org.attn4j.models.bert;
