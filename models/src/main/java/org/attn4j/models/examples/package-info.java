/**
 * Runnable examples: {@link org.attn4j.models.examples.RaschkaChapter3} reproduces the chapter-3 walk-through of
 * Raschka's book on its six-token sentence, and {@link org.attn4j.models.examples.TransformerExamples} runs it and
 * then takes a sentence through vocabulary, embedding, positional encoding, masked multi-head attention and an
 * encoder stack. Both have a {@code main} and a {@code run(Backend, PrintStream)}.
 */
package org.attn4j.models.examples;
