package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.attn4j.models.embed.CrossEncoder;

/**
 * {@code POST /v1/rerank} (and {@code /rerank}): a query and documents scored by a cross-encoder, in the shape
 * llama.cpp's server, Jina and Cohere use:
 * <pre>
 *   {"model": NAME, "query": "…", "documents": ["…", …], "top_n": N, "return_documents": false}
 *   → {"model": NAME, "object": "list",
 *      "results": [{"index": I, "relevance_score": S[, "document": {"text": "…"}]}, …],
 *      "usage": {"prompt_tokens": T, "total_tokens": T}}
 * </pre>
 * The results are the best {@code top_n} (default all) documents, highest score first, equal scores in the order
 * given; {@code index} is a document's place in {@code documents}. A score is {@link CrossEncoder#score}'s: the
 * sigmoid of the relevance logit when the model's {@code config.json} names a sigmoid activation, else the logit.
 * {@code usage} counts the tokens read, {@code [CLS] query [SEP] document [SEP]} for each document, truncated to the
 * model's length. {@code query} must be a non-empty string, {@code documents} a non-empty array of strings, at most
 * {@link ServerOptions#maxInputs()}, and {@code top_n} at least 1. A model runs one request at a time, on the
 * request's thread.
 */
final class RerankEndpoint {
    private static final Set<String> KNOWN = Set.of("model", "query", "documents", "top_n", "return_documents");

    private final Map<String, ServedModels.Reranker> rerankers;
    private final ServerOptions options;
    private final Metrics metrics;

    RerankEndpoint(Map<String, ServedModels.Reranker> rerankers, ServerOptions options, Metrics metrics) {
        this.rerankers = rerankers;
        this.options = options;
        this.metrics = metrics;
    }

    /**
     * @param r the body
     * @return the answer
     * @throws ApiException 400 naming the parameter at fault, 404 for a model not served for reranking
     */
    byte[] answer(JsonRequest r) {
        r.refuseUnknown(KNOWN, Set.of());
        String model = r.requiredString("model");
        ServedModels.Reranker reranker = rerankers.get(model);
        if (reranker == null) {
            throw ApiException.modelNotFound(model, "rerank", rerankers.isEmpty()
                    ? "this server serves no rerank model" : "rerank models here: "
                    + String.join(", ", rerankers.keySet()));
        }
        String query = r.requiredString("query");
        if (query.isEmpty()) {
            throw ApiException.invalid("query", "'query' is empty; give the text to rank the documents for");
        }
        List<String> documents = documents(r.get("documents"));
        int topN = (int) Math.min(documents.size(), r.integer("top_n", documents.size(), 1, Integer.MAX_VALUE));
        boolean withDocuments = r.bool("return_documents", false);
        CrossEncoder encoder = reranker.encoder();
        double[] scores;
        long tokens = 0;
        synchronized (reranker) {
            long start = System.nanoTime();
            scores = encoder.score(query, documents);
            reranker.firstCall().ended(start, documents.size() + (documents.size() == 1 ? " document"
                    : " documents"));
        }
        for (String d : documents) {
            tokens += encoder.tokenCount(query, d);
        }
        metrics.promptTokens(model, tokens);
        List<Integer> order = new ArrayList<>(documents.size());
        for (int i = 0; i < documents.size(); i++) {
            order.add(i);
        }
        double[] s = scores;
        order.sort(Comparator.comparingDouble((Integer i) -> s[i]).reversed());
        long usage = tokens;
        return JsonBody.object(g -> {
            g.writeStringField("model", model);
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("results");
            for (int i : order.subList(0, topN)) {
                g.writeStartObject();
                g.writeNumberField("index", i);
                g.writeNumberField("relevance_score", s[i]);
                if (withDocuments) {
                    g.writeObjectFieldStart("document");
                    g.writeStringField("text", documents.get(i));
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("usage");
            g.writeNumberField("prompt_tokens", usage);
            g.writeNumberField("total_tokens", usage);
            g.writeEndObject();
        });
    }

    private List<String> documents(JsonNode documents) {
        if (documents == null) {
            throw ApiException.invalid("documents", "'documents' is required: an array of strings");
        }
        if (!documents.isArray() || documents.isEmpty()) {
            throw ApiException.invalid("documents", "'documents' must be a non-empty array of strings, not "
                    + (documents.isArray() ? "an empty one" : JsonRequest.kind(documents)));
        }
        if (documents.size() > options.maxInputs()) {
            throw ApiException.invalid("documents", "'documents' holds " + documents.size() + " documents; this "
                    + "server ranks at most " + options.maxInputs() + " per request");
        }
        List<String> out = new ArrayList<>(documents.size());
        for (int i = 0; i < documents.size(); i++) {
            JsonNode d = documents.get(i);
            if (!d.isTextual()) {
                throw ApiException.invalid("documents", "documents[" + i + "] must be a string, not "
                        + JsonRequest.kind(d));
            }
            out.add(d.textValue());
        }
        return out;
    }
}
