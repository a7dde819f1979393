/**
 * Sentence embeddings, as the {@code sentence-transformers} library computes them: a BERT-family encoder, pooling
 * over the real tokens ({@link org.attn4j.models.embed.Pooling}) and L2 normalisation.
 * {@link org.attn4j.models.embed.SentenceEmbedder} loads a Hugging Face folder or the embedded all-MiniLM-L6-v2,
 * binds its parameters to a backend once, and turns texts into {@link org.attn4j.models.embed.Embedding}s;
 * {@link org.attn4j.models.embed.EmbeddingOptions} chooses pooling, normalisation, length and batch size.
 */
package org.attn4j.models.embed;
