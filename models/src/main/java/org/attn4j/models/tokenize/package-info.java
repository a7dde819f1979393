/**
 * Tokenizers read from Hugging Face {@code tokenizer.json}, in pure Java: {@link
 * org.attn4j.models.tokenize.Tokenizer} turns text into an {@link org.attn4j.models.tokenize.Encoding} (ids, type
 * ids, attention mask) or a padded {@link org.attn4j.models.tokenize.Batch}, and ids back into text. WordPiece
 * (BERT), byte-level BPE (GPT-2, Llama 3, Qwen2), SentencePiece-style BPE with byte fallback (Llama 2, Mistral,
 * Gemma, Phi-3) and SentencePiece Unigram with its precompiled normalization (XLM-RoBERTa: bge-m3, multilingual-e5)
 * are implemented, regex classes over Unicode 16 tables carried in the jar (the same on every JDK), with the normalizers, pre-tokenizers, post-processors and decoders those checkpoints
 * ship; their ids equal those of Hugging Face's tokenizers library, and any other component is refused by name.
 * {@link org.attn4j.models.tokenize.TokenizerConfig} adds what {@code tokenizer_config.json} says (BOS/EOS, special
 * tokens, chat templates) and {@link org.attn4j.models.tokenize.DecodeStream} turns generated ids into text as they
 * come.
 */
package org.attn4j.models.tokenize;
