package org.attn4j.models.tokenize;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.attn4j.models.io.Gguf;

/**
 * Text to token ids and back, read from a Hugging Face {@code tokenizer.json} (or a GGUF file's metadata,
 * {@link #fromGguf}): WordPiece (BERT: BertNormalizer, BertPreTokenizer, {@code ##} continuations,
 * {@code [CLS] … [SEP]}), byte-level BPE (GPT-2, Llama 3, Qwen2: the file's {@code Split} regex, then bytes) or
 * SentencePiece-style BPE (Llama 2, Mistral, Gemma, Phi-3: {@code ▁} for spaces, {@code <0xNN>} byte fallback), with
 * the file's added tokens, post-processor template and truncation. Pure Java; the ids equal those of Hugging Face's
 * {@code tokenizers} library for the same file. Immutable and thread-safe.
 *
 * <pre>{@code
 * Tokenizer t = Tokenizer.fromJson(Path.of("tokenizer.json"));
 * Encoding e = t.encode("Hello, world!");            // [CLS] hello , world ! [SEP] → [101, 7592, 1010, 2088, 999, 102]
 * Batch b = t.encodeBatch(List.of("a", "b c"), 128);   // ids, typeIds, attentionMask: [2][4], right-padded
 * Tokenizer llama = Tokenizer.fromFolder(Path.of("Llama-3.2-1B-Instruct"));  // tokenizer.json + tokenizer_config.json
 * }</pre>
 */
public interface Tokenizer {

    /**
     * @param file a {@code tokenizer.json} whose model is {@code WordPiece} or {@code BPE}
     * @return its tokenizer
     * @throws FormatException if the file is not a tokenizer.json attn4j reads (the message says what is wrong)
     * @throws IOException if it cannot be read
     */
    static Tokenizer fromJson(Path file) throws IOException {
        Objects.requireNonNull(file, "Tokenizer.fromJson: argument file is null");
        return TokenizerJson.read(Files.readAllBytes(file), file.toString());
    }

    /**
     * @param in a stream holding a {@code tokenizer.json}, read to its end (not closed)
     * @return its tokenizer
     * @throws FormatException if the content is not a tokenizer.json attn4j reads
     * @throws IOException if the stream fails
     */
    static Tokenizer fromJson(InputStream in) throws IOException {
        Objects.requireNonNull(in, "Tokenizer.fromJson: argument in is null");
        return TokenizerJson.read(in.readAllBytes(), "tokenizer.json");
    }

    /**
     * A model folder's tokenizer as transformers loads it: {@code tokenizer.json} (else GPT-2's {@code vocab.json} +
     * {@code merges.txt}) with what {@code tokenizer_config.json} adds (see {@link TokenizerConfig}): when
     * transformers rebuilds the post-processor from {@code add_bos_token} and {@code add_eos_token} (Llama and Gemma
     * tokenizers, or a file that sets either key), the template becomes {@code [bos] $A [eos]}; decoding cleans up
     * spaces before punctuation when {@code clean_up_tokenization_spaces} is set. The folder's
     * {@code added_tokens_decoder} must agree with {@code tokenizer.json}.
     *
     * @param folder a Hugging Face model folder
     * @return its tokenizer
     * @throws FormatException if the files are not ones attn4j reads, or disagree
     * @throws IOException if one cannot be read
     */
    static Tokenizer fromFolder(Path folder) throws IOException {
        Objects.requireNonNull(folder, "Tokenizer.fromFolder: argument folder is null");
        return fromFolder(folder, TokenizerConfig.read(folder));
    }

    /**
     * As {@link #fromFolder(Path)}, with the folder's {@code tokenizer_config.json} already read.
     *
     * @param folder a Hugging Face model folder
     * @param config its {@link TokenizerConfig#read(Path)}
     * @return its tokenizer
     * @throws FormatException if the files are not ones attn4j reads, or disagree
     * @throws IOException if one cannot be read
     */
    static Tokenizer fromFolder(Path folder, TokenizerConfig config) throws IOException {
        Objects.requireNonNull(folder, "Tokenizer.fromFolder: argument folder is null");
        Objects.requireNonNull(config, "Tokenizer.fromFolder: argument config is null");
        return TokenizerJson.folder(folder, config);
    }

    /**
     * GPT-2's original files: {@code vocab.json} (or {@code encoder.json}) and {@code merges.txt} (or
     * {@code vocab.bpe}), with {@code <|endoftext|>} as an added token when the vocabulary has it.
     *
     * @param vocabJson token → id
     * @param merges one merge {@code "a b"} a line, by rank; a first line starting with {@code #version} is skipped
     * @return the byte-level BPE tokenizer
     * @throws FormatException if a file is malformed
     * @throws IOException if one cannot be read
     */
    static Tokenizer fromGpt2Files(Path vocabJson, Path merges) throws IOException {
        Objects.requireNonNull(vocabJson, "Tokenizer.fromGpt2Files: argument vocabJson is null");
        Objects.requireNonNull(merges, "Tokenizer.fromGpt2Files: argument merges is null");
        return TokenizerJson.gpt2(Files.readAllBytes(vocabJson), Files.readString(merges), vocabJson.toString());
    }

    /**
     * The tokenizer a GGUF file carries in its {@code tokenizer.ggml.*} metadata, as llama.cpp reads it: byte-level
     * BPE ({@code model = gpt2}, with the pre-tokenizer {@code pre}: {@code default}, {@code gpt-2},
     * {@code llama-bpe}, {@code qwen2}, {@code smollm}) or SentencePiece ({@code model = llama}: scores, byte
     * fallback, the {@code ▁} space marker); BOS and EOS added per {@code add_bos_token} / {@code add_eos_token}.
     *
     * @param gguf a GGUF file's contents ({@link Gguf#read})
     * @return its tokenizer
     * @throws FormatException if the metadata is missing, malformed, or names a model or pre-tokenizer attn4j
     *     does not implement (the message names it)
     */
    static Tokenizer fromGguf(Gguf.Contents gguf) throws FormatException {
        Objects.requireNonNull(gguf, "Tokenizer.fromGguf: argument gguf is null");
        return GgufTokenizer.read(gguf);
    }

    /**
     * BERT's WordPiece tokenizer from a {@code vocab.txt} (one token a line, the line number its id), as Hugging
     * Face's {@code BertTokenizerFast} builds it: {@code BertNormalizer}, {@code BertPreTokenizer}, WordPiece with
     * {@code ##} continuations and at most 100 characters a word, {@code [CLS] A [SEP]} and
     * {@code [CLS] A [SEP] B [SEP]} (type ids 0 then 1), {@code [PAD]} padding. A {@code tokenizer_config.json}, if
     * given, sets {@code do_lower_case} (default true), {@code strip_accents}, {@code tokenize_chinese_chars},
     * the special tokens ({@code unk_token}, {@code cls_token}, {@code sep_token}, {@code pad_token},
     * {@code mask_token}) and {@code model_max_length} (the truncation length; none by default); keys that change
     * tokens and that this does not implement ({@code do_basic_tokenize: false}, a {@code never_split} list, a
     * {@code tokenizer_class} other than BERT's) are refused by name.
     *
     * @param vocabTxt the vocabulary
     * @param tokenizerConfig a {@code tokenizer_config.json}, or null
     * @return the tokenizer
     * @throws FormatException if a file is malformed, a special token is not in the vocabulary, or a key is not
     *     supported
     * @throws IOException if a file cannot be read
     */
    static Tokenizer fromVocabTxt(Path vocabTxt, Path tokenizerConfig) throws IOException {
        Objects.requireNonNull(vocabTxt, "Tokenizer.fromVocabTxt: argument vocabTxt is null");
        return TokenizerJson.fromVocabTxt(Files.readString(vocabTxt, java.nio.charset.StandardCharsets.UTF_8),
                tokenizerConfig == null ? null : Files.readAllBytes(tokenizerConfig), vocabTxt.toString());
    }

    /**
     * Encodes one text: added tokens found in it, then normalization, pre-tokenization, the model, truncation to
     * {@link #maxLength()} and the single-text template ({@code [CLS] A [SEP]} for BERT).
     *
     * @param text any text
     * @return its encoding
     */
    Encoding encode(String text);

    /**
     * Encodes one text, with the template's special tokens or without them (Hugging Face's
     * {@code add_special_tokens}; a chat prompt rendered from a template carries its own).
     *
     * @param text any text
     * @param addSpecialTokens whether the post-processor's special tokens (BOS, {@code [CLS]} …) are added
     * @return its encoding
     */
    Encoding encode(String text, boolean addSpecialTokens);

    /**
     * Encodes a text of any length as consecutive windows that each fit {@link #maxLength()}: the text's tokens
     * (as {@link #encode(String)} finds them, before truncation) are cut into runs of at most
     * {@code maxLength()} minus the template's special tokens, each cut placed before a word's first token (a word
     * being what the pre-tokenizer splits off, so a WordPiece word's {@code ##} pieces stay together) unless one
     * word alone is longer than a window; each run gets the single-text template. A text that fits gives one
     * window, equal to {@code encode(text)}; the windows' tokens without their special tokens, in order, are the
     * text's tokens.
     *
     * @param text any text
     * @return its windows, at least one
     * @throws IllegalArgumentException if {@link #maxLength()} leaves no room beside the special tokens
     */
    List<Encoding> encodeWindows(String text);

    /**
     * Encodes a pair ({@code [CLS] A [SEP] B [SEP]}, type ids 0 for A and its specials, 1 for B and the last
     * {@code [SEP]}), truncating the longer text first to fit {@link #maxLength()}.
     *
     * @param text the first text
     * @param pair the second text
     * @return their encoding
     */
    Encoding encode(String text, String pair);

    /**
     * Encodes texts each truncated to {@code maxLength} tokens (specials included) and pads them to the longest.
     *
     * @param texts the texts
     * @param maxLength the most tokens per text, at least the number of special tokens the template adds
     * @return the padded batch
     * @throws IllegalArgumentException if {@code maxLength} cannot hold the template's special tokens
     */
    default Batch encodeBatch(List<String> texts, int maxLength) {
        Objects.requireNonNull(texts, "Tokenizer.encodeBatch: argument texts is null");
        Tokenizer t = withMaxLength(maxLength);
        List<Encoding> out = new ArrayList<>(texts.size());
        for (String text : texts) {
            out.add(t.encode(text));
        }
        return new Batch(out, padId());
    }

    /**
     * @param ids token ids
     * @return the text they spell, special tokens dropped (WordPiece: {@code ##} joined; BPE: the exact bytes)
     * @throws IllegalArgumentException if an id is not in the vocabulary
     */
    String decode(int[] ids);

    /**
     * @param ids token ids
     * @param skipSpecialTokens whether added tokens marked special ({@code <s>}, {@code <|eot_id|>} …) are dropped
     * @return the text they spell, through the file's decoder
     * @throws IllegalArgumentException if an id is not in the vocabulary
     */
    String decode(int[] ids, boolean skipSpecialTokens);

    /**
     * @param maxLength the most tokens an encoding may have, special tokens included, or
     *     {@code Integer.MAX_VALUE} for no truncation
     * @return this tokenizer truncating to that length
     * @throws IllegalArgumentException if the length cannot hold the template's special tokens
     */
    Tokenizer withMaxLength(int maxLength);

    /** @return the most tokens an encoding has: the file's {@code truncation.max_length}, unless changed */
    int maxLength();

    /** @return the number of distinct ids: the model's vocabulary and the added tokens */
    int vocabSize();

    /** @return the id padding uses: the file's {@code padding.pad_id}, else {@code [PAD]}'s, else 0 */
    int padId();

    /**
     * @param token a token as the vocabulary spells it
     * @return its id, if the vocabulary or the added tokens have it
     */
    OptionalInt id(String token);

    /**
     * @param id a token id
     * @return the token as the vocabulary or the added tokens spell it
     */
    Optional<String> token(int id);

    /**
     * @param id a token id
     * @return whether it is an added token marked special (dropped by {@link #decode(int[])})
     */
    boolean isSpecial(int id);

    /** A {@code tokenizer.json} or vocabulary that attn4j cannot read. */
    final class FormatException extends IOException {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }

        FormatException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
