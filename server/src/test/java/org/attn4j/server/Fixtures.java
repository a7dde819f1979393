package org.attn4j.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationConfig;
import org.attn4j.models.tokenize.Tokenizer;

/** Models the tests share, loaded once per JVM on the EJML backend. */
final class Fixtures {
    static final String MINILM = "all-minilm-l6-v2";
    static final String CHAT = "llama3-chat-tiny";
    static final String GPT2 = "gpt2-tiny";

    private static SentenceEmbedder minilm;
    private static ChatModel chat;
    private static CausalLM gpt2;

    private Fixtures() {
    }

    /** @return the embedded all-MiniLM-L6-v2 (mean pooling, normalised, 256 tokens); shared, so never closed */
    static synchronized SentenceEmbedder minilm() {
        if (minilm == null) {
            try {
                minilm = SentenceEmbedder.loadDefault(Backends.load("ejml"), EmbeddingOptions.defaults());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return minilm;
    }

    /** @return a test resource folder */
    static Path folder(String name) {
        try {
            return Path.of(Fixtures.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the models' random-weight Llama 3 chat checkpoint (chat template, generation config); shared */
    static synchronized ChatModel chat() {
        if (chat == null) {
            try {
                chat = ChatModel.load(folder("llama3_chat_tiny"), Backends.load("ejml"), DType.F32);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return chat;
    }

    /** @return the cli's random-weight GPT-2 (97 byte-level BPE tokens, no chat template); shared */
    static synchronized CausalLM gpt2() {
        if (gpt2 == null) {
            try {
                gpt2 = CausalLM.load(folder("gpt2_tiny"), Backends.load("ejml"), DType.F32);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return gpt2;
    }

    /** @return gpt2_tiny's tokenizer */
    static Tokenizer gpt2Tokenizer() {
        try {
            return Tokenizer.fromFolder(folder("gpt2_tiny"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return gpt2_tiny's generation defaults */
    static GenerationConfig gpt2Generation() {
        try {
            return GenerationConfig.read(folder("gpt2_tiny"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return a registry serving the shared MiniLM, chat model and GPT-2; the tests never close it */
    static ServedModels all() {
        return encoders().addChatModel(CHAT, chat())
                .addDecoder(GPT2, gpt2(), gpt2Tokenizer(), gpt2Generation().options());
    }

    /**
     * @param matryoshka the sizes to allow for {@code dimensions}
     * @return a registry serving the shared MiniLM; the tests close the servers, never this registry
     */
    static ServedModels encoders(int... matryoshka) {
        return new ServedModels().addEncoder(MINILM, minilm(), matryoshka);
    }
}
