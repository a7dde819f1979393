/**
 * Sentence embeddings and reranking with the encoder families of {@link org.attn4j.models.bert} (BERT,
 * XLM-RoBERTa, MPNet, …), as the {@code sentence-transformers} library computes them, and with Qwen3 decoders read as
 * encoders (Qwen3-Embedding: {@code Qwen3Embedding}, the last token's hidden state; Qwen3-Reranker:
 * {@code Qwen3Reranker}, the odds of "yes"; both loaded by {@code Qwen3Checkpoint}).
 * {@link org.attn4j.models.embed.SentenceEmbedder} turns texts into
 * {@link org.attn4j.models.embed.SentenceEmbedding}s: the encoder, pooling over the real tokens
 * ({@link org.attn4j.models.checkpoint.Pooling}), a sentence-transformers folder's Dense projections
 * ({@link org.attn4j.models.checkpoint.DenseModule}), prompts and Matryoshka truncation, and L2 normalisation, long
 * texts truncated or read in windows ({@link org.attn4j.models.embed.LongTexts});
 * {@link org.attn4j.models.embed.EmbeddingOptions} chooses pooling, normalisation, length, batch size, prompt and
 * dimensions. Its sibling {@link org.attn4j.models.embed.CrossEncoder} scores passages against a query with a
 * one-label classifier ({@link org.attn4j.models.embed.RerankOptions}). Both are built from an encoder
 * {@link org.attn4j.models.checkpoint.Checkpoint} (a Hugging Face or sentence-transformers folder, an ONNX file, a
 * GGUF {@code bert} file, a model jar; {@code load(Path, …)} opens one), or the embedded all-MiniLM-L6-v2, and bind
 * its parameters to a backend once; a {@code qwen3} checkpoint opened as an encoder becomes a Qwen3-Embedding or a
 * Qwen3-Reranker.
 */
package org.attn4j.models.embed;
