/**
 * An OpenAI-compatible HTTP server for the models of {@code attn4j-models}: {@link org.attn4j.server.OpenAiServer}
 * serves the encoders, decoders and cross-encoders of a {@link org.attn4j.server.ServedModels} within the limits of
 * {@link org.attn4j.server.ServerOptions}, behind API keys when it is given some. Concurrent embeddings requests are
 * gathered into encoder batches; errors are OpenAI's error objects; {@code /metrics} is Prometheus' text format. The
 * server runs on whatever backend its models were loaded on, and knows no backend.
 *
 * <p>Inside, one job per type: {@code RequestBody} and {@code JsonRequest} read a request; {@code ApiKeys} checks
 * its key; {@code EmbeddingsEndpoint}, {@code GenerationRequest} and {@code RerankEndpoint} check it against its
 * endpoint, {@code ChatTools} a chat request's messages, tools and template variables; {@code EmbeddingBatcher} and
 * {@code GenerationScheduler} share the machine among requests (the scheduler also keeps the prompt cache);
 * {@code GenerationRun} runs one generation,
 * {@code ChatReply} reads a chat reply into reasoning, content and tool calls, and {@code TokenLogprob} states a
 * token's log-probability;
 * {@code JsonBody}, {@code EmbeddingsJson}, {@code GenerationJson}, {@code ModelJson}, {@code EventStream} and
 * {@code ApiException} write the answers; {@code EmbeddingsEndpoint}, {@code GenerationEndpoint} and
 * {@code RerankEndpoint} tie these together for their endpoints; {@code Metrics} counts what happens; and
 * {@code OpenAiServer} routes, keeps the connections and starts and stops the rest.
 */
package org.attn4j.server;
