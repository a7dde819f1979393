/**
 * Tokenizers read from Hugging Face {@code tokenizer.json}, in pure Java: {@link
 * org.attn4j.models.tokenize.Tokenizer} turns text into an {@link org.attn4j.models.tokenize.Encoding} (ids, type
 * ids, attention mask) or a padded {@link org.attn4j.models.tokenize.Batch}, and ids back into text. WordPiece
 * (BERT) and byte-level BPE (GPT-2) are implemented; their ids equal those of Hugging Face's tokenizers library.
 */
package org.attn4j.models.tokenize;
