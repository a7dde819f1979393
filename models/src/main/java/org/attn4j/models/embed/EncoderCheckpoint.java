package org.attn4j.models.embed;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertGguf;
import org.attn4j.models.bert.BertGraph;
import org.attn4j.models.bert.EncoderConfig;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.EncoderSetup;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * An encoder {@link Checkpoint} read into what a model needs: the configuration (of any family of
 * {@link EncoderConfig#of} from {@code config.json}; a BERT from the ONNX graph, a {@code config.json} beside it
 * checked against the graph; or a BERT from a GGUF file's {@link BertGguf}), the weights under Hugging Face names,
 * the tokenizer, and what the files say about pooling, projections, normalisation, length and prompts. Shared by
 * {@link SentenceEmbedder} and {@link CrossEncoder}.
 *
 * @param description what was loaded, for people: the weights file and, for a jar, the jar
 * @param config the hyper-parameters
 * @param weights the parameters on the host, under Hugging Face names (a classifier's {@code bert.} prefix kept)
 * @param tokenizer the tokenizer
 * @param setup what the files state about pooling, Dense modules, normalisation, length and prompts
 * @param configJson the {@code config.json}, or null when the configuration came from an ONNX graph alone
 * @param notes where each part came from ({@link Checkpoint#notes()}), then facts of the configuration worth
 *     telling a user, for example where the head count came from
 */
record EncoderCheckpoint(String description, EncoderConfig config, StateDict weights, Tokenizer tokenizer,
                         EncoderSetup setup, JsonNode configJson, List<String> notes) {

    /**
     * @param checkpoint an encoder
     * @param what the model being built, for messages
     * @return what the model needs
     * @throws IllegalStateException if the checkpoint holds a decoder
     * @throws java.nio.file.NoSuchFileException if it has no tokenizer
     * @throws IOException if {@code config.json} is refused
     * @throws IllegalArgumentException if {@code config.json} contradicts the ONNX graph
     */
    static EncoderCheckpoint of(Checkpoint checkpoint, String what) throws IOException {
        checkpoint.requireKind(what, Checkpoint.Kind.ENCODER);
        List<String> notes = new ArrayList<>();
        JsonNode configJson = null;
        String configFile = checkpoint.configSource().orElse(null);
        if (checkpoint.configJson().isPresent()) {
            try {
                configJson = new ObjectMapper().readTree(checkpoint.configJson().get());
            } catch (JacksonException e) {
                throw new IOException(configFile + " is not valid JSON: " + e.getOriginalMessage(), e);
            }
        }
        StateDict weights = checkpoint.parameters();
        EncoderConfig config;
        if (checkpoint.gguf().isPresent()) {
            BertGguf read = BertGguf.read(checkpoint.gguf().get());
            config = read.config();
            weights = read.weights();
        } else if (checkpoint.onnx().isEmpty()) {
            config = EncoderConfig.of(configJson, configFile);
        } else {
            BertGraph stated = BertGraph.of(checkpoint.onnx().get(), dims(weights.asMap()));
            if (configJson != null) {
                BertConfig declared = BertConfig.of(configJson, configFile);
                config = declared;
                List<String> contradictions = stated.contradictions(declared);
                if (!contradictions.isEmpty()) {
                    throw new IllegalArgumentException(configFile + " contradicts " + checkpoint.description() + ": "
                            + String.join("; ", contradictions) + ". A model is never run with a configuration its "
                            + "weights contradict: fix or remove config.json");
                }
                if (stated.heads().isEmpty()) {
                    notes.add("num_attention_heads " + declared.numAttentionHeads() + " comes from " + configFile
                            + "; the ONNX graph does not state it, so it is unchecked");
                }
            } else {
                BertConfig read = stated.config();
                config = read;
                notes.add("configuration read from the ONNX graph: " + read.numHiddenLayers() + " layers of width "
                        + read.hiddenSize() + ", " + read.numAttentionHeads() + " heads, feed-forward "
                        + read.intermediateSize());
            }
        }
        Tokenizer tokenizer = checkpoint.requireTokenizer();
        notes.addAll(0, checkpoint.notes());
        return new EncoderCheckpoint(checkpoint.description(), config, weights, tokenizer, checkpoint.setup(),
                configJson, List.copyOf(notes));
    }

    /** @return the dims of each parameter, as {@link BertGraph#of} reads them */
    static Map<String, long[]> dims(Map<String, HostTensor> parameters) {
        Map<String, long[]> dims = new LinkedHashMap<>();
        parameters.forEach((k, v) -> dims.put(k, Arrays.stream(v.shape().toArray()).asLongStream().toArray()));
        return dims;
    }
}
