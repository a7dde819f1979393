package org.attn4j.models.embed;

import java.util.LinkedHashMap;
import java.util.Map;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * The weights of {@code generate_encoder_fixtures.py}'s checkpoints, bit for bit: each parameter is a pure function
 * of its name (splitmix64 over the element index, seeded by FNV-1a of the name), so an 11-million-parameter
 * checkpoint in a real model's shape needs no file in the repository.
 */
final class CheckpointWeights {
    private CheckpointWeights() {
    }

    /** @return {@code u_i ∈ [0, 1)} of the script's {@code uniform(name, count)} */
    static double[] uniform(String name, int count) {
        long seed = fnv1a64(name);
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            long z = seed + (i + 1L) * 0x9E3779B97F4A7C15L;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            out[i] = (z >>> 11) * 0x1.0p-53;
        }
        return out;
    }

    /** The script's {@code tensor}: {@code kind} is "embedding", "norm", "bias" or the fan-in of a linear weight. */
    static HostTensor tensor(String name, Object kind, int... dims) {
        int n = 1;
        for (int d : dims) {
            n *= d;
        }
        double[] u = uniform(name, n);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            double x = 2.0 * u[i] - 1.0;
            double value = kind.equals("embedding") ? x : kind.equals("norm") ? 1.0 + 0.1 * x
                    : kind.equals("bias") ? 0.1 * x : Math.sqrt(3.0 / (Integer) kind) * x;
            v[i] = (float) value;
        }
        return HostTensor.of(v, dims);
    }

    /** The script's {@code weights(c, prefix, classifier)}. */
    static StateDict bert(int vocab, int d, int layers, int ff, int positions, int types, String prefix,
                          boolean classifier) {
        Map<String, HostTensor> sd = new LinkedHashMap<>();
        put(sd, prefix + "embeddings.word_embeddings.weight", "embedding", vocab, d);
        put(sd, prefix + "embeddings.position_embeddings.weight", "embedding", positions, d);
        put(sd, prefix + "embeddings.token_type_embeddings.weight", "embedding", types, d);
        put(sd, prefix + "embeddings.LayerNorm.weight", "norm", d);
        put(sd, prefix + "embeddings.LayerNorm.bias", "bias", d);
        for (int i = 0; i < layers; i++) {
            String p = prefix + "encoder.layer." + i + ".";
            for (String name : new String[] {"attention.self.query", "attention.self.key", "attention.self.value",
                    "attention.output.dense"}) {
                put(sd, p + name + ".weight", d, d, d);
                put(sd, p + name + ".bias", "bias", d);
            }
            put(sd, p + "attention.output.LayerNorm.weight", "norm", d);
            put(sd, p + "attention.output.LayerNorm.bias", "bias", d);
            put(sd, p + "intermediate.dense.weight", d, ff, d);
            put(sd, p + "intermediate.dense.bias", "bias", ff);
            put(sd, p + "output.dense.weight", ff, d, ff);
            put(sd, p + "output.dense.bias", "bias", d);
            put(sd, p + "output.LayerNorm.weight", "norm", d);
            put(sd, p + "output.LayerNorm.bias", "bias", d);
        }
        put(sd, prefix + "pooler.dense.weight", d, d, d);
        put(sd, prefix + "pooler.dense.bias", "bias", d);
        if (classifier) {
            put(sd, "classifier.weight", d, 1, d);
            put(sd, "classifier.bias", "bias", 1);
        }
        return StateDict.of(sd);
    }

    private static void put(Map<String, HostTensor> sd, String name, Object kind, int... dims) {
        sd.put(name, tensor(name, kind, dims));
    }

    private static long fnv1a64(String text) {
        long h = 0xCBF29CE484222325L;
        for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001B3L;
        }
        return h;
    }
}
