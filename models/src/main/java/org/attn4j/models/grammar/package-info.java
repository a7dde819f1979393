/**
 * Structured output: JSON grammars and holding generation to them token by token.
 * {@link org.attn4j.models.grammar.JsonGrammar} is a language of JSON texts (any object, any value, or a JSON
 * schema's instances, compiled by {@link org.attn4j.models.grammar.JsonGrammar#fromSchema}, which refuses by name
 * every keyword it does not implement with a {@link org.attn4j.models.grammar.JsonSchemaException});
 * {@link org.attn4j.models.grammar.JsonRecognizer} reads a text byte by byte as a pushdown automaton;
 * {@link org.attn4j.models.grammar.TokenVocabulary} holds each token's bytes once per tokenizer in a trie, and
 * {@link org.attn4j.models.grammar.TokenGrammar} walks that trie beside the automaton to find the tokens that keep a
 * generation's output inside the grammar. {@code generate} masks every other token's logit
 * ({@link org.attn4j.models.generate.GenerationOptions#withGrammar}).
 */
package org.attn4j.models.grammar;
