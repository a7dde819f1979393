package org.attn4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.attn4j.api.DType;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Small random-weight BERT folders for the command-line tests, written the way users hold them: config.json,
 * model.safetensors and a vocab.txt, nothing that states a pooling. The numbers are checked against PyTorch in the
 * models module; here they only need to be a model the commands can load quickly.
 */
final class TinyBert {
    static final List<String> VOCAB = List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog",
            "sat", "on", "mat", "is", "how", "do", "plants", "make", "food", "from", "light", "green", "leaves",
            "use", "sun", "water", "and", "stock", "markets", "fell", "paris", "capital", "of", "france", "word",
            "##s", "##ing", ".", ",", "?", "!");

    private TinyBert() {
    }

    /**
     * @param folder created if missing
     * @param d the width (a multiple of 4: 4 heads)
     * @param classifier whether to write a one-label BertForSequenceClassification instead of a BertModel
     * @return the folder
     */
    static Path write(Path folder, int d, boolean classifier) throws IOException {
        Files.createDirectories(folder);
        int ff = 2 * d;
        int positions = 64;
        String prefix = classifier ? "bert." : "";
        SplittableRandom random = new SplittableRandom(20260301L + d);
        Map<String, HostTensor> sd = new LinkedHashMap<>();
        put(sd, random, prefix + "embeddings.word_embeddings.weight", 1.0, VOCAB.size(), d);
        put(sd, random, prefix + "embeddings.position_embeddings.weight", 1.0, positions, d);
        put(sd, random, prefix + "embeddings.token_type_embeddings.weight", 1.0, 2, d);
        norm(sd, random, prefix + "embeddings.LayerNorm", d);
        String p = prefix + "encoder.layer.0.";
        for (String name : List.of("attention.self.query", "attention.self.key", "attention.self.value",
                "attention.output.dense")) {
            linear(sd, random, p + name, d, d);
        }
        norm(sd, random, p + "attention.output.LayerNorm", d);
        linear(sd, random, p + "intermediate.dense", d, ff);
        linear(sd, random, p + "output.dense", ff, d);
        norm(sd, random, p + "output.LayerNorm", d);
        linear(sd, random, prefix + "pooler.dense", d, d);
        if (classifier) {
            linear(sd, random, "classifier", d, 1);
        }
        SafeTensors.write(folder.resolve("model.safetensors"), StateDict.of(sd), DType.F32, Map.of());
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"bert\", \"architectures\": [\""
                + (classifier ? "BertForSequenceClassification" : "BertModel") + "\"], \"vocab_size\": "
                + VOCAB.size() + ", \"hidden_size\": " + d + ", \"num_hidden_layers\": 1, \"num_attention_heads\": 4,"
                + " \"intermediate_size\": " + ff + ", \"max_position_embeddings\": " + positions + "}\n");
        Files.writeString(folder.resolve("vocab.txt"), String.join("\n", VOCAB) + "\n");
        return folder;
    }

    private static void linear(Map<String, HostTensor> sd, SplittableRandom r, String name, int in, int out) {
        put(sd, r, name + ".weight", 1 / Math.sqrt(in), out, in);
        put(sd, r, name + ".bias", 0.1, out);
    }

    private static void norm(Map<String, HostTensor> sd, SplittableRandom r, String name, int d) {
        float[] w = new float[d];
        for (int i = 0; i < d; i++) {
            w[i] = (float) (1 + 0.1 * (2 * r.nextDouble() - 1));
        }
        sd.put(name + ".weight", HostTensor.of(w, d));
        put(sd, r, name + ".bias", 0.1, d);
    }

    private static void put(Map<String, HostTensor> sd, SplittableRandom r, String name, double scale,
                            int... dims) {
        int n = 1;
        for (int x : dims) {
            n *= x;
        }
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (scale * (2 * r.nextDouble() - 1));
        }
        sd.put(name, HostTensor.of(v, dims));
    }
}
