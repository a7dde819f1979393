/**
 * An OpenAI-compatible HTTP server for the models of {@code attn4j-models}: {@link org.attn4j.server.OpenAiServer}
 * serves the encoders and decoders of a {@link org.attn4j.server.ServedModels} within the limits of
 * {@link org.attn4j.server.ServerOptions}. Concurrent embeddings requests are gathered into encoder batches; errors
 * are OpenAI's error objects. The server runs on whatever backend its models were loaded on, and knows no backend.
 */
package org.attn4j.server;
