/**
 * Tests of the tokenizers: WordPiece ids against DJL's Hugging Face tokenizers on the committed corpus, GPT-2
 * byte-level BPE ids against the gpt-3-encoder fixture, the template, truncation and padding, and a seeded
 * mutation fuzz loop over tokenizer.json files.
 */
package org.attn4j.models.tokenize;
