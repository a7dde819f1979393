package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * BERT folders written as GGUF files the way llama.cpp's converter ({@code convert_hf_to_gguf.py}, {@code BertModel})
 * writes them: its {@code bert.*} keys, its tensor names, its WordPiece vocabulary (word starts spelled with
 * {@code ▁}, continuations without {@code ##}, {@code [X]} tokens kept), the pooler dropped. Shipped in the models
 * test-jar for the cli's tests.
 */
public final class GgufEncoders {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GgufEncoders() {
    }

    /**
     * The converter's GGUF of a BERT folder: matrices in {@code matrices} where a row holds whole blocks, the
     * position and token-type tables, norms and biases in F32, the pooler dropped.
     */
    public static GgufWriter gguf(Path folder, WeightType matrices, int poolingType) throws IOException {
        JsonNode config = JSON.readTree(folder.resolve("config.json").toFile());
        String[] byId = vocabulary(folder);
        Map<String, Integer> vocab = new HashMap<>();
        for (int i = 0; i < byId.length; i++) {
            vocab.put(byId[i], i);
        }
        List<String> tokens = new ArrayList<>();
        int[] types = new int[byId.length];
        for (int i = 0; i < byId.length; i++) {
            String t = byId[i];
            boolean special = t.startsWith("[") && t.endsWith("]");
            tokens.add(special ? t : t.startsWith("##") ? t.substring(2) : "\u2581" + t);
            types[i] = special ? 3 : 1;
        }
        GgufWriter w = new GgufWriter()
                .string("general.architecture", "bert")
                .string("general.name", folder.getFileName().toString())
                .uint32("bert.context_length", config.path("max_position_embeddings").asInt())
                .uint32("bert.embedding_length", config.path("hidden_size").asInt())
                .uint32("bert.feed_forward_length", config.path("intermediate_size").asInt())
                .uint32("bert.block_count", config.path("num_hidden_layers").asInt())
                .uint32("bert.attention.head_count", config.path("num_attention_heads").asInt())
                .float32("bert.attention.layer_norm_epsilon", (float) config.path("layer_norm_eps").asDouble(1e-12))
                .bool("bert.attention.causal", false)
                .uint32("bert.pooling_type", poolingType)
                .string("tokenizer.ggml.model", "bert")
                .strings("tokenizer.ggml.tokens", tokens)
                .int32s("tokenizer.ggml.token_type", types)
                .uint32("tokenizer.ggml.token_type_count", config.path("type_vocab_size").asInt(2))
                .uint32("tokenizer.ggml.bos_token_id", vocab.get("[CLS]"))
                .uint32("tokenizer.ggml.seperator_token_id", vocab.get("[SEP]"))
                .uint32("tokenizer.ggml.unknown_token_id", vocab.get("[UNK]"))
                .uint32("tokenizer.ggml.padding_token_id", vocab.get("[PAD]"))
                .bool("tokenizer.ggml.add_bos_token", true)
                .bool("tokenizer.ggml.add_sep_token", true);
        StateDict hf = SafeTensors.readCheckpoint(folder).tensors();
        for (Map.Entry<String, HostTensor> e : hf.asMap().entrySet()) {
            String name = ggufName(e.getKey());
            if (name == null) {
                continue;
            }
            HostTensor t = e.getValue();
            boolean whole = matrices != WeightType.Q8_0 || t.shape().dim(-1) % 32 == 0;
            boolean kept = name.equals("position_embd.weight") || name.equals("token_types.weight");
            WeightType type = t.shape().rank() == 2 && whole && !kept ? matrices : WeightType.F32;
            w.tensor(name, t.shape(), type, () -> GgufCheckpoints.convert(t, type));
        }
        return w;
    }

    /** @return llama.cpp's name of a Hugging Face BERT tensor, or null for the pooler the converter drops */
    private static String ggufName(String hf) {
        String[][] embeddings = {{"embeddings.word_embeddings.weight", "token_embd.weight"},
            {"embeddings.position_embeddings.weight", "position_embd.weight"},
            {"embeddings.token_type_embeddings.weight", "token_types.weight"},
            {"embeddings.LayerNorm.weight", "token_embd_norm.weight"},
            {"embeddings.LayerNorm.bias", "token_embd_norm.bias"}};
        for (String[] e : embeddings) {
            if (e[0].equals(hf)) {
                return e[1];
            }
        }
        if (hf.startsWith("pooler.")) {
            return null;
        }
        String[][] parts = {{"attention.self.query", "attn_q"}, {"attention.self.key", "attn_k"},
            {"attention.self.value", "attn_v"}, {"attention.output.dense", "attn_output"},
            {"attention.output.LayerNorm", "attn_output_norm"}, {"intermediate.dense", "ffn_up"},
            {"output.dense", "ffn_down"}, {"output.LayerNorm", "layer_output_norm"}};
        String rest = hf.substring("encoder.layer.".length());
        int dot = rest.indexOf('.');
        String layer = rest.substring(0, dot);
        String part = rest.substring(dot + 1, rest.lastIndexOf('.'));
        String kind = rest.substring(rest.lastIndexOf('.') + 1);
        for (String[] p : parts) {
            if (p[0].equals(part)) {
                return "blk." + layer + "." + p[1] + "." + kind;
            }
        }
        throw new IllegalArgumentException("no GGUF name for " + hf);
    }

    /** @return the folder's tokens by id: {@code tokenizer.json}'s WordPiece vocabulary, else {@code vocab.txt} */
    private static String[] vocabulary(Path folder) throws IOException {
        Path json = folder.resolve("tokenizer.json");
        if (Files.isRegularFile(json)) {
            JsonNode vocab = JSON.readTree(json.toFile()).path("model").path("vocab");
            String[] byId = new String[vocab.size()];
            vocab.properties().forEach(e -> byId[e.getValue().asInt()] = e.getKey());
            return byId;
        }
        return Files.readAllLines(folder.resolve("vocab.txt"), StandardCharsets.UTF_8).toArray(String[]::new);
    }
}
