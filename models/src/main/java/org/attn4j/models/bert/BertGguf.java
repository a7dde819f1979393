package org.attn4j.models.bert;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.Activation;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufMetadata;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * A BERT encoder from a GGUF file as llama.cpp's converter writes it ({@code general.architecture} {@code bert}):
 * its configuration and its weights under Hugging Face names, in the file's storage types.
 *
 * <table>
 *   <caption>What is read</caption>
 *   <tr><th>GGUF</th><th>Hugging Face</th></tr>
 *   <tr><td>{@code bert.embedding_length}, {@code block_count}, {@code attention.head_count},
 *       {@code feed_forward_length}, {@code context_length}, {@code attention.layer_norm_epsilon}</td>
 *       <td>{@code hidden_size}, {@code num_hidden_layers}, {@code num_attention_heads}, {@code intermediate_size},
 *       {@code max_position_embeddings}, {@code layer_norm_eps} (the float32 the file holds, read as the shortest
 *       decimal that gives it, as the converter wrote it)</td></tr>
 *   <tr><td>{@code token_embd} rows, {@code token_types} rows (with {@code tokenizer.ggml.token_type_count} where
 *       written)</td><td>{@code vocab_size}, {@code type_vocab_size}</td></tr>
 *   <tr><td>{@code bert.attention.causal} false, {@code bert.pooling_type} (read by the checkpoint: mean, cls or
 *       last)</td><td>an encoder; the pooling</td></tr>
 *   <tr><td>any other {@code bert.*} key, any namespace but {@code general.}, {@code tokenizer.}, {@code quantize.},
 *       {@code split.count} above 1</td><td>refused by name</td></tr>
 *   <tr><td>{@code token_embd}, {@code position_embd}, {@code token_types}, {@code token_embd_norm};
 *       {@code blk.N.attn_q}, {@code attn_k}, {@code attn_v}, {@code attn_output}, {@code attn_output_norm},
 *       {@code ffn_up}, {@code ffn_down}, {@code layer_output_norm} (weights and biases)</td>
 *       <td>{@code embeddings.{word,position,token_type}_embeddings}, {@code embeddings.LayerNorm};
 *       {@code encoder.layer.N.attention.self.{query,key,value}}, {@code attention.output.dense},
 *       {@code attention.output.LayerNorm}, {@code intermediate.dense}, {@code output.dense},
 *       {@code output.LayerNorm}</td></tr>
 *   <tr><td>any other tensor (a fused {@code attn_qkv}, a reranker's {@code cls}, {@code cls.output})</td>
 *       <td>refused by name</td></tr>
 * </table>
 *
 * The converter does not write {@code hidden_act}; BERT's is the exact (erf) GELU, which this reads. llama.cpp runs
 * its BERT graph with the tanh approximation of GELU, so its vectors differ from the Hugging Face model's (and these)
 * in the last digits. The converter drops the pooler, which sentence embeddings do not use.
 *
 * @param config the hyper-parameters
 * @param weights the parameters under Hugging Face names, views of the file
 */
public record BertGguf(BertConfig config, StateDict weights) {
    private static final Pattern BLOCK = Pattern.compile("blk\\.(\\d+)\\.([a-z_]+)\\.(weight|bias)");
    private static final Map<String, String> EMBEDDINGS = Map.of(
            "token_embd.weight", "embeddings.word_embeddings.weight",
            "position_embd.weight", "embeddings.position_embeddings.weight",
            "token_types.weight", "embeddings.token_type_embeddings.weight",
            "token_embd_norm.weight", "embeddings.LayerNorm.weight",
            "token_embd_norm.bias", "embeddings.LayerNorm.bias");
    private static final Map<String, String> BLOCK_PARTS = Map.of(
            "attn_q", "attention.self.query",
            "attn_k", "attention.self.key",
            "attn_v", "attention.self.value",
            "attn_output", "attention.output.dense",
            "attn_output_norm", "attention.output.LayerNorm",
            "ffn_up", "intermediate.dense",
            "ffn_down", "output.dense",
            "layer_output_norm", "output.LayerNorm");

    /**
     * @param gguf a GGUF file's contents whose {@code general.architecture} is {@code bert}
     * @return its configuration and weights
     * @throws IllegalArgumentException if a key or a tensor is not one attn4j honours (all named in one message), a
     *     size is missing or the weights contradict the metadata
     */
    public static BertGguf read(Gguf.Contents gguf) {
        GgufMetadata m = new GgufMetadata(gguf, "bert");
        int hidden = m.count("embedding_length");
        int layers = m.count("block_count");
        int heads = m.count("attention.head_count");
        int intermediate = m.count("feed_forward_length");
        int positions = m.count("context_length");
        Double eps = m.number("attention.layer_norm_epsilon");
        if (eps == null) {
            throw new IllegalArgumentException("gguf: metadata bert.attention.layer_norm_epsilon is missing");
        }
        Boolean causal = m.bool("attention.causal");
        if (causal != null && causal) {
            throw new IllegalArgumentException("gguf: bert.attention.causal is true; a BERT encoder attends both ways");
        }
        m.accept("pooling_type");
        m.finish();
        StateDict tensors = gguf.tensors();
        Map<String, HostTensor> hf = new LinkedHashMap<>();
        List<String> refused = new ArrayList<>();
        for (Map.Entry<String, HostTensor> e : tensors.asMap().entrySet()) {
            String name = e.getKey();
            String mapped = EMBEDDINGS.get(name);
            Matcher b = BLOCK.matcher(name);
            if (mapped == null && b.matches() && BLOCK_PARTS.containsKey(b.group(2))) {
                mapped = "encoder.layer." + b.group(1) + "." + BLOCK_PARTS.get(b.group(2)) + "." + b.group(3);
            }
            if (mapped == null) {
                refused.add(name);
            } else {
                hf.put(mapped, e.getValue());
            }
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("gguf: bert tensors attn4j does not read, refused rather than ignored: "
                    + String.join(", ", refused.stream().sorted().toList()));
        }
        int vocab = rows(hf, "embeddings.word_embeddings.weight", "token_embd.weight");
        int types = rows(hf, "embeddings.token_type_embeddings.weight", "token_types.weight");
        if (gguf.has("tokenizer.ggml.token_type_count")) {
            long stated;
            try {
                stated = gguf.integer("tokenizer.ggml.token_type_count");
            } catch (Gguf.FormatException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            if (stated != types) {
                throw new IllegalArgumentException("gguf: tokenizer.ggml.token_type_count is " + stated
                        + " but token_types has " + types + " rows");
            }
        }
        BertConfig config = new BertConfig(vocab, hidden, layers, heads, intermediate, Activation.GELU,
                Double.parseDouble(Float.toString(eps.floatValue())), positions, types);
        return new BertGguf(config, StateDict.of(hf));
    }

    private static int rows(Map<String, HostTensor> hf, String name, String ggufName) {
        HostTensor t = hf.get(name);
        if (t == null) {
            throw new IllegalArgumentException("gguf: bert tensor " + ggufName + " is missing");
        }
        return t.shape().dim(0);
    }
}
