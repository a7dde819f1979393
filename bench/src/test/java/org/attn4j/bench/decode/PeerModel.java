package org.attn4j.bench.decode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;

/**
 * A random-weight Llama in the shape of a real checkpoint, the same numbers for every engine of the decode bench.
 * The shapes are the published {@code config.json} values of {@code HuggingFaceTB/SmolLM2-135M} and
 * {@code TinyLlama/TinyLlama-1.1B-Chat-v1.0}; the vocabulary is a SentencePiece one of the same size
 * ({@link PeerFiles}), with BOS 1 and EOS 2 for both.
 *
 * <p>Every tensor is drawn from its own seeded stream (the model's seed and the tensor's name), uniform with the
 * variance of a default initialisation ({@code 1/in} for a projection, 1 for the embedding, the blocks' norms
 * {@code 1 ± 0.2}), then rounded to BF16, so that the F32 and the BF16 files hold the same numbers. Three departures
 * keep greedy decoding of a random model from degenerating, so that equal ids mean something: the blocks' output
 * projections ({@code o_proj}, {@code down_proj}) are a third of the default scale and the final norm's weights have
 * unit variance and random signs (a deep random stack otherwise forgets its input and repeats one token, and a tied
 * head otherwise repeats the current token); and the LM head's rows of the 259 special and byte tokens (the
 * embedding's, when tied) are scaled down a thousandfold, so that no engine's choice depends on how it treats a
 * control or byte token and every engine decodes the full length.
 *
 * @param name the folder and file prefix
 * @param source the checkpoint whose shape this is
 * @param vocab the vocabulary size
 * @param hidden the hidden width
 * @param intermediate the MLP width
 * @param layers the decoder blocks
 * @param heads the query heads
 * @param kvHeads the key/value heads
 * @param maxPositions {@code max_position_embeddings}
 * @param ropeTheta {@code rope_theta}
 * @param eps {@code rms_norm_eps}
 * @param tied whether the LM head is the token embedding
 * @param seed the seed of the weights and the prompt
 */
record PeerModel(String name, String source, int vocab, int hidden, int intermediate, int layers, int heads,
                 int kvHeads, int maxPositions, double ropeTheta, double eps, boolean tied, long seed) {

    /** The tokens before the first ordinary piece: {@code <unk>}, {@code <s>}, {@code </s>} and 256 bytes. */
    static final int SPECIAL_TOKENS = 259;
    /** The scale of the blocks' output projections, relative to a default initialisation's. */
    private static final double OUTPUT = 0.3;
    /** The prompt's length. */
    static final int PROMPT = 16;
    /** The tokens decoded after the prompt. */
    static final int GENERATED = 64;

    static final PeerModel SMOLLM2_135M = new PeerModel("smollm2-135m", "HuggingFaceTB/SmolLM2-135M", 49152, 576,
            1536, 30, 9, 3, 8192, 100000, 1e-5, true, 135);
    static final PeerModel TINYLLAMA_1_1B = new PeerModel("tinyllama-1.1b", "TinyLlama/TinyLlama-1.1B-Chat-v1.0",
            32000, 2048, 5632, 22, 32, 4, 2048, 10000, 1e-5, false, 1100);

    /** @return both shapes */
    static List<PeerModel> all() {
        return List.of(SMOLLM2_135M, TINYLLAMA_1_1B);
    }

    /**
     * @param key a model's name
     * @return that model
     * @throws IllegalArgumentException naming the known ones
     */
    static PeerModel named(String key) {
        for (PeerModel m : all()) {
            if (m.name.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("decode bench: no model " + key + "; known: smollm2-135m, tinyllama-1.1b");
    }

    /** One tensor of the checkpoint, under its Hugging Face name. */
    record Tensor(String name, int rows, int columns, double scale, boolean matrix) {
        Shape shape() {
            return matrix ? Shape.of(rows, columns) : Shape.of(columns);
        }

        long size() {
            return (long) rows * columns;
        }
    }

    /** @return the tensors in Hugging Face's order */
    List<Tensor> tensors() {
        int head = hidden / heads;
        int q = heads * head;
        int kv = kvHeads * head;
        List<Tensor> t = new ArrayList<>();
        t.add(new Tensor("model.embed_tokens.weight", vocab, hidden, 1.0, true));
        for (int l = 0; l < layers; l++) {
            String p = "model.layers." + l + ".";
            t.add(new Tensor(p + "input_layernorm.weight", 1, hidden, 0, false));
            t.add(new Tensor(p + "self_attn.q_proj.weight", q, hidden, 1 / Math.sqrt(hidden), true));
            t.add(new Tensor(p + "self_attn.k_proj.weight", kv, hidden, 1 / Math.sqrt(hidden), true));
            t.add(new Tensor(p + "self_attn.v_proj.weight", kv, hidden, 1 / Math.sqrt(hidden), true));
            t.add(new Tensor(p + "self_attn.o_proj.weight", hidden, q, OUTPUT / Math.sqrt(q), true));
            t.add(new Tensor(p + "post_attention_layernorm.weight", 1, hidden, 0, false));
            t.add(new Tensor(p + "mlp.gate_proj.weight", intermediate, hidden, 1 / Math.sqrt(hidden), true));
            t.add(new Tensor(p + "mlp.up_proj.weight", intermediate, hidden, 1 / Math.sqrt(hidden), true));
            t.add(new Tensor(p + "mlp.down_proj.weight", hidden, intermediate, OUTPUT / Math.sqrt(intermediate),
                    true));
        }
        t.add(new Tensor("model.norm.weight", 1, hidden, 0, false));
        if (!tied) {
            t.add(new Tensor("lm_head.weight", vocab, hidden, 1 / Math.sqrt(hidden), true));
        }
        return t;
    }

    /**
     * @param t one of {@link #tensors()}
     * @return its numbers, row-major, each exactly a BF16 number
     */
    float[] values(Tensor t) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L ^ t.name().hashCode());
        float[] v = new float[Math.toIntExact(t.size())];
        boolean head = t.name().equals("lm_head.weight") || tied && t.name().equals("model.embed_tokens.weight");
        for (int i = 0; i < v.length; i++) {
            double u = 2 * r.nextDouble() - 1;
            double x = t.matrix() ? t.scale() * Math.sqrt(3) * u
                    : t.name().equals("model.norm.weight") ? Math.sqrt(3) * u : 1 + 0.2 * u;
            if (head && i / t.columns() < SPECIAL_TOKENS) {
                x *= 1e-3;
            }
            v[i] = bf16((float) x);
        }
        return v;
    }

    /** Rounds to the nearest BF16 number, ties to even (every value here is finite). */
    static float bf16(float x) {
        int bits = Float.floatToRawIntBits(x);
        bits += 0x7fff + ((bits >>> 16) & 1);
        return Float.intBitsToFloat(bits & 0xffff0000);
    }

    /** @return the prompt: {@link #PROMPT} ordinary tokens, seeded */
    int[] prompt() {
        SplittableRandom r = new SplittableRandom(seed);
        int[] ids = new int[PROMPT];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = SPECIAL_TOKENS + r.nextInt(vocab - SPECIAL_TOKENS);
        }
        return ids;
    }

    /**
     * @param type how the matrices are stored
     * @return the bytes of the matrices one decoding step reads: every projection of every block and the LM head
     *     (the embedding's single row is left out)
     */
    long bytesPerToken(WeightType type) {
        long bytes = type.rowBytes(hidden) * vocab;
        for (Tensor t : tensors()) {
            if (t.matrix() && t.name().startsWith("model.layers.")) {
                bytes += type.rowBytes(t.columns()) * t.rows();
            }
        }
        return bytes;
    }

    /** @return the number of parameters */
    long parameters() {
        return tensors().stream().mapToLong(Tensor::size).sum();
    }

    /**
     * @param dtype {@code torch_dtype}: {@code float32} or {@code bfloat16}
     * @return a Hugging Face {@code config.json} for this shape
     */
    String configJson(String dtype) {
        return String.format(Locale.ROOT, """
                {
                  "architectures": ["LlamaForCausalLM"],
                  "model_type": "llama",
                  "vocab_size": %d,
                  "hidden_size": %d,
                  "intermediate_size": %d,
                  "num_hidden_layers": %d,
                  "num_attention_heads": %d,
                  "num_key_value_heads": %d,
                  "hidden_act": "silu",
                  "max_position_embeddings": %d,
                  "rms_norm_eps": %s,
                  "rope_theta": %s,
                  "rope_scaling": null,
                  "attention_bias": false,
                  "tie_word_embeddings": %s,
                  "bos_token_id": 1,
                  "eos_token_id": 2,
                  "torch_dtype": "%s"
                }
                """, vocab, hidden, intermediate, layers, heads, kvHeads, maxPositions, Double.toString(eps),
                Double.toString(ropeTheta), tied, dtype);
    }

    /** @return what identifies these weights, recorded beside them and in the reference ids */
    String fingerprint() {
        return name + " seed " + seed + " generator 2";
    }

    /** @return {@code bench.json}: the fingerprint, the prompt and the number of tokens to decode */
    String benchJson() {
        StringBuilder ids = new StringBuilder();
        for (int id : prompt()) {
            ids.append(ids.length() > 0 ? ", " : "").append(id);
        }
        return "{\"fingerprint\": \"" + fingerprint() + "\", \"prompt\": [" + ids + "], \"generated\": " + GENERATED
                + "}\n";
    }
}
