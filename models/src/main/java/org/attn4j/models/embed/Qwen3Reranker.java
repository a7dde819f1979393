package org.attn4j.models.embed;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.attn4j.api.Backend;
import org.attn4j.api.Scope;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * Qwen3-Reranker's recipe under a {@link CrossEncoder}: a Qwen3 causal LM asked whether a document meets a query,
 * its relevance the odds of answering "yes" rather than "no", as the model card computes them:
 * <pre>
 *   ids   = prefix + tokens(text) + suffix
 *           text   = "&lt;Instruct&gt;: {instruction}\n&lt;Query&gt;: {query}\n&lt;Document&gt;: {doc}"
 *           prefix = tokens("&lt;|im_start|&gt;system\nJudge whether the Document meets the requirements based on
 *                    the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\".
 *                    &lt;|im_end|&gt;\n&lt;|im_start|&gt;user\n")
 *           suffix = tokens("&lt;|im_end|&gt;\n&lt;|im_start|&gt;assistant\n&lt;think&gt;\n\n&lt;/think&gt;\n\n")
 *           (prefix and suffix without the tokenizer's special tokens; the middle as the tokenizer's post-processor
 *           says, truncated to maxLength − |prefix| − |suffix|)
 *   z     = logits of the last position       [V]     (rows left-padded to one length, the fillers hidden)
 *   logit = z[yes] − z[no]                            yes, no: the ids of the tokens "yes" and "no"
 *   score = softmax([z[no], z[yes]])[1] = 1 / (1 + exp(−logit))
 * </pre>
 */
final class Qwen3Reranker implements AutoCloseable {
    /** The model card's instruction, used when the options give none. */
    static final String DEFAULT_INSTRUCTION =
            "Given a web search query, retrieve relevant passages that answer the query";
    private static final String PREFIX = "<|im_start|>system\nJudge whether the Document meets the requirements "
            + "based on the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\"."
            + "<|im_end|>\n<|im_start|>user\n";
    private static final String SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    /** The id the fillers carry; attention never reads them. */
    private static final int FILLER = 0;

    private final CausalLM model;
    private final Tokenizer body;
    private final int[] prefix;
    private final int[] suffix;
    private final int yes;
    private final int no;
    private final String instruction;
    private volatile boolean open = true;

    /**
     * @param model the causal LM, its head bound; closed with this
     * @param tokenizer its tokenizer
     * @param maxLength the most tokens a pair's whole prompt keeps
     * @param instruction the task, or null for {@link #DEFAULT_INSTRUCTION}
     * @param description how messages name the model
     * @throws IllegalArgumentException if the vocabulary has no token "yes" or "no", or maxLength leaves no room
     *     beside the prefix and suffix
     */
    Qwen3Reranker(CausalLM model, Tokenizer tokenizer, int maxLength, String instruction, String description) {
        this.model = model;
        this.prefix = tokenizer.encode(PREFIX, false).ids();
        this.suffix = tokenizer.encode(SUFFIX, false).ids();
        int room = maxLength - prefix.length - suffix.length;
        if (room < 1) {
            throw new IllegalArgumentException("CrossEncoder: maxLength " + maxLength + " leaves no room for a pair"
                    + " beside Qwen3-Reranker's prompt of " + (prefix.length + suffix.length) + " tokens");
        }
        this.body = tokenizer.withMaxLength(room);
        this.yes = token(tokenizer, "yes", description);
        this.no = token(tokenizer, "no", description);
        this.instruction = instruction == null ? DEFAULT_INSTRUCTION : instruction;
    }

    private int token(Tokenizer tokenizer, String token, String description) {
        OptionalInt id = tokenizer.id(token);
        if (id.isEmpty() || id.getAsInt() >= model.config().vocabSize()) {
            throw new IllegalArgumentException("CrossEncoder: " + description + " is read as a Qwen3-Reranker, whose "
                    + "score is the odds of the token \"" + token + "\", but its vocabulary has no such token");
        }
        return id.getAsInt();
    }

    /**
     * @param query the query
     * @param passage the document
     * @return the ids the model reads for the pair
     */
    int[] encode(String query, String passage) {
        String text = "<Instruct>: " + instruction + "\n<Query>: " + query + "\n<Document>: " + passage;
        int[] middle = body.encode(text).ids();
        int[] ids = Arrays.copyOf(prefix, prefix.length + middle.length + suffix.length);
        System.arraycopy(middle, 0, ids, prefix.length, middle.length);
        System.arraycopy(suffix, 0, ids, prefix.length + middle.length, suffix.length);
        return ids;
    }

    /**
     * @param batch the pairs' ids from {@link #encode}
     * @return per pair {@code z[yes] − z[no]} of its last position
     */
    double[] logits(List<int[]> batch) {
        int b = batch.size();
        int l = batch.stream().mapToInt(r -> r.length).max().orElse(0);
        int[][] ids = new int[b][l];
        int[] padding = new int[b];
        for (int r = 0; r < b; r++) {
            int[] row = batch.get(r);
            padding[r] = l - row.length;
            Arrays.fill(ids[r], 0, padding[r], FILLER);
            System.arraycopy(row, 0, ids[r], padding[r], row.length);
        }
        double[] z;
        try (KvCache cache = model.newCache(b, l); Scope scope = model.backend().newScope()) {
            cache.setPadding(padding);
            z = model.next(scope, ids, cache).toDoubleArray();
        }
        int v = model.config().vocabSize();
        double[] out = new double[b];
        for (int r = 0; r < b; r++) {
            out[r] = z[r * v + yes] - z[r * v + no];
        }
        return out;
    }

    /** @return the instruction each pair is judged for */
    String instruction() {
        return instruction;
    }

    /** @return {@code max_position_embeddings} */
    int maxPositions() {
        return model.config().maxPositions();
    }

    /** @return the backend holding the weights */
    Backend backend() {
        return model.backend();
    }

    /** @return whether {@link #close()} has not been called */
    boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        model.close();
    }
}
