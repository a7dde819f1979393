package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import java.util.List;
import java.util.stream.Collectors;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embeddings endpoint as users reach it: through OpenAI's official Java SDK and langchain4j's
 * {@code OpenAiEmbeddingModel}, against {@link SentenceEmbedder} in the same JVM. Requests are sent one at a time,
 * so each runs alone in its batch and must give exactly the in-process numbers.
 */
class EmbeddingsWithClientsTest {
    private static final List<String> TEXTS = List.of("The cat sat on the mat.", "A kitten is sitting on a rug.",
            "Stock markets fell sharply on Monday.", "naïve café — 東京 🚀", "x");

    private static OpenAiServer server;
    private static OpenAIClient openai;
    private static SentenceEmbedder local;

    @BeforeAll
    static void start() {
        local = Fixtures.minilm();
        server = OpenAiServer.start(Fixtures.encoders(128, 256), ServerOptions.defaults().withPort(0));
        openai = OpenAIOkHttpClient.builder().baseUrl(server.baseUri().toString()).apiKey("unused").maxRetries(0)
                .build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        server.close();
    }

    private static float[] floats(List<Float> values) {
        float[] out = new float[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }

    @Test
    void theOfficialSdkGetsTheInProcessVectorsOfOneText() {
        for (String text : TEXTS) {
            CreateEmbeddingResponse r = openai.embeddings().create(EmbeddingCreateParams.builder()
                    .model(Fixtures.MINILM).input(text).build());
            SentenceEmbedding expected = local.embed(List.of(text)).get(0);
            assertEquals(1, r.data().size());
            assertArrayEquals(expected.vector(), floats(r.data().get(0).embedding()), text);
            assertEquals(expected.ids().length, r.usage().promptTokens());
            assertEquals(expected.ids().length, r.usage().totalTokens());
            assertEquals(Fixtures.MINILM, r.model());
        }
    }

    @Test
    void theOfficialSdkGetsTheInProcessVectorsOfAListInOrder() {
        List<SentenceEmbedding> expected = local.embed(TEXTS);
        for (EmbeddingCreateParams.EncodingFormat format : List.of(EmbeddingCreateParams.EncodingFormat.FLOAT,
                EmbeddingCreateParams.EncodingFormat.BASE64)) {
            CreateEmbeddingResponse r = openai.embeddings().create(EmbeddingCreateParams.builder()
                    .model(Fixtures.MINILM).inputOfArrayOfStrings(TEXTS).encodingFormat(format).build());
            assertEquals(TEXTS.size(), r.data().size());
            for (int i = 0; i < TEXTS.size(); i++) {
                assertEquals(i, r.data().get(i).index());
                assertArrayEquals(expected.get(i).vector(), floats(r.data().get(i).embedding()), format + " " + i);
            }
            assertEquals(expected.stream().mapToLong(e -> e.ids().length).sum(), r.usage().promptTokens());
        }
    }

    @Test
    void matryoshkaSizesAreTheFirstNumbersNormalisedAgainAndOtherSizesAreRefused() {
        float[] full = local.embed(List.of(TEXTS.get(0))).get(0).vector();
        CreateEmbeddingResponse r = openai.embeddings().create(EmbeddingCreateParams.builder()
                .model(Fixtures.MINILM).input(TEXTS.get(0)).dimensions(128).build());
        float[] cut = floats(r.data().get(0).embedding());
        assertEquals(128, cut.length);
        double norm = 0;
        for (int i = 0; i < 128; i++) {
            norm += (double) full[i] * full[i];
        }
        norm = Math.sqrt(norm);
        double sum = 0;
        for (int i = 0; i < 128; i++) {
            assertEquals((float) (full[i] / norm), cut[i], "index " + i);
            sum += (double) cut[i] * cut[i];
        }
        assertEquals(1.0, sum, 1e-6);
        assertEquals(384, openai.embeddings().create(EmbeddingCreateParams.builder().model(Fixtures.MINILM)
                .input("a").dimensions(384).build()).data().get(0).embedding().size());
        BadRequestException e = assertThrows(BadRequestException.class, () -> openai.embeddings().create(
                EmbeddingCreateParams.builder().model(Fixtures.MINILM).input("a").dimensions(100).build()));
        assertTrue(e.getMessage().contains("128, 256, 384"), e.getMessage());
        assertEquals("dimensions", e.param().orElseThrow());
    }

    @Test
    void theOfficialSdkSeesOpenAiErrors() {
        NotFoundException missing = assertThrows(NotFoundException.class, () -> openai.embeddings().create(
                EmbeddingCreateParams.builder().model("text-embedding-3-small").input("a").build()));
        assertEquals("model_not_found", missing.code().orElseThrow());
        String longText = "word ".repeat(400);
        BadRequestException tooLong = assertThrows(BadRequestException.class, () -> openai.embeddings().create(
                EmbeddingCreateParams.builder().model(Fixtures.MINILM).input(longText).build()));
        assertEquals("context_length_exceeded", tooLong.code().orElseThrow());
        assertTrue(tooLong.getMessage().contains("402 tokens"), tooLong.getMessage());
    }

    @Test
    void langchain4jGetsTheInProcessVectors() {
        OpenAiEmbeddingModel model = OpenAiEmbeddingModel.builder().baseUrl(server.baseUri().toString())
                .apiKey("unused").modelName(Fixtures.MINILM).maxRetries(0).build();
        List<SentenceEmbedding> expected = local.embed(TEXTS);
        List<dev.langchain4j.data.embedding.Embedding> got = model.embedAll(TEXTS.stream().map(TextSegment::from)
                .collect(Collectors.toList())).content();
        for (int i = 0; i < TEXTS.size(); i++) {
            assertArrayEquals(expected.get(i).vector(), got.get(i).vector(), "text " + i);
        }
        assertArrayEquals(local.embed(List.of(TEXTS.get(1))).get(0).vector(),
                model.embed(TEXTS.get(1)).content().vector());
        assertEquals(384, model.dimension());
    }
}
