/**
 * The {@code attn4j} command line, packaged as one runnable jar with the pure-Java backend and the embedded model;
 * other backends come as jars it loads ({@link org.attn4j.cli.BackendJars}).
 *
 * <ul>
 *   <li>{@code attn4j demo}: walks a sentence through embedding, simplified, scaled, causal and multi-head
 *   self-attention and a transformer block, prints the shapes and the attention weights as word-labelled tables,
 *   and writes a heatmap PNG of the weights ({@link org.attn4j.cli.Heatmap}).</li>
 *   <li>{@code attn4j embed}: sentence embeddings of texts or of a file of any length, streamed in JSON Lines, JSON,
 *   CSV or npy ({@link org.attn4j.cli.EmbedCommand}).</li>
 *   <li>{@code attn4j rerank}: passages scored against a query by a cross-encoder, best first.</li>
 *   <li>{@code attn4j generate}: decoding with a GPT-2 or Llama-style model.</li>
 *   <li>{@code attn4j backends}: every backend provider found, whether it is usable and why, its capabilities and
 *   priority.</li>
 *   <li>{@code attn4j tck}: runs the technology compatibility kit and prints its conformance table.</li>
 *   <li>{@code attn4j serve}: serves models over OpenAI's HTTP API ({@link org.attn4j.server.OpenAiServer}) until it
 *   is stopped.</li>
 * </ul>
 *
 * <p>Exit codes: 0 success, 1 failure (a backend that cannot run, a failing kit, an I/O error), 2 bad input (an
 * unknown option or backend, empty text, more heads than the model dimension allows, an unwritable directory).
 * Every error is reported on one line of standard error, prefixed with the command's name; an unexpected
 * exception also prints its stack trace.
 *
 * <p>{@link org.attn4j.cli.Main} is the only public class.
 */
package org.attn4j.cli;
