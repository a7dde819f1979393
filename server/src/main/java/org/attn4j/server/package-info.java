/**
 * An OpenAI-compatible HTTP server for the models of {@code attn4j-models}: {@link org.attn4j.server.OpenAiServer}
 * serves the encoders and decoders of a {@link org.attn4j.server.ServedModels} within the limits of
 * {@link org.attn4j.server.ServerOptions}. Concurrent embeddings requests are gathered into encoder batches; errors
 * are OpenAI's error objects. The server runs on whatever backend its models were loaded on, and knows no backend.
 *
 * <p>Inside, one job per type: {@code RequestBody} and {@code JsonRequest} read a request;
 * {@code EmbeddingsEndpoint} and {@code GenerationRequest} check it against its endpoint; {@code EmbeddingBatcher}
 * and {@code GenerationScheduler} share the machine among requests; {@code GenerationRun} runs one generation;
 * {@code JsonBody}, {@code EmbeddingsJson}, {@code GenerationJson}, {@code ModelJson}, {@code EventStream} and
 * {@code ApiException} write the answers; {@code EmbeddingsEndpoint} and {@code GenerationEndpoint} tie these
 * together for their endpoints, and {@code OpenAiServer} routes, keeps the connections and starts and stops the rest.
 */
package org.attn4j.server;
