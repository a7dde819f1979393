package org.attn4j.models.decoder;

import org.attn4j.api.Activation;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;

/**
 * GPT-2 under Hugging Face's names: {@code wte}, {@code wpe}, per block {@code h.N.ln_1}, {@code h.N.attn.c_attn}
 * and {@code c_proj} (Conv1D weights {@code [in, out]}, transposed once at load), {@code h.N.ln_2},
 * {@code h.N.mlp.c_fc} and {@code c_proj}; {@code ln_f}; the LM head is {@code wte}. A block is
 * {@code x += attn(ln_1(x)); x += c_proj(gelu_tanh(c_fc(ln_2(x))))}. From a GGUF file the same names hold
 * {@code nn.Linear}'s {@code [out, in]} matrices, which llama.cpp's converter stores (a quantized matrix cannot be
 * transposed), and an {@code lm_head.weight} there (llama.cpp's {@code output.weight}) is the LM head.
 */
final class Gpt2 implements Architecture {
    private final DecoderConfig config;
    private final Weight wte;
    private final Weight wpe;
    private final Block[] blocks;
    private final Tensor lnFWeight;
    private final Tensor lnFBias;
    private final Weight head;

    /** One block's parameters, the Conv1D weights transposed to {@code [out, in]} once. */
    private record Block(Tensor ln1Weight, Tensor ln1Bias, Weight attn, Tensor attnBias, Weight proj, Tensor projBias,
                         Tensor ln2Weight, Tensor ln2Bias, Weight fc, Tensor fcBias, Weight mlpProj,
                         Tensor mlpProjBias) {
    }

    /**
     * @param linear whether the matrices are stored as {@code nn.Linear}'s {@code [out, in]} (GGUF), not as
     *     Conv1D's {@code [in, out]} (Hugging Face); with it, {@code lm_head.weight}, when present, is the LM head
     */
    Gpt2(DecoderConfig config, Weights w, boolean linear) {
        this.config = config;
        int e = config.hidden();
        if (!linear) {
            w.ignore("lm_head.weight");
        }
        this.wte = w.matrix("wte.weight", config.vocabSize(), e);
        this.wpe = w.matrix("wpe.weight", config.maxPositions(), e);
        this.blocks = new Block[config.layers()];
        for (int l = 0; l < config.layers(); l++) {
            String p = "h." + l + ".";
            w.ignore(p + "attn.bias");
            w.ignore(p + "attn.masked_bias");
            blocks[l] = new Block(w.take(p + "ln_1.weight", e), w.take(p + "ln_1.bias", e),
                    conv1d(w, linear, p + "attn.c_attn.weight", e, 3 * e), w.take(p + "attn.c_attn.bias", 3 * e),
                    conv1d(w, linear, p + "attn.c_proj.weight", e, e), w.take(p + "attn.c_proj.bias", e),
                    w.take(p + "ln_2.weight", e), w.take(p + "ln_2.bias", e),
                    conv1d(w, linear, p + "mlp.c_fc.weight", e, 4 * e), w.take(p + "mlp.c_fc.bias", 4 * e),
                    conv1d(w, linear, p + "mlp.c_proj.weight", 4 * e, e), w.take(p + "mlp.c_proj.bias", e));
        }
        this.lnFWeight = w.take("ln_f.weight", e);
        this.lnFBias = w.take("ln_f.bias", e);
        this.head = linear && w.has("lm_head.weight") ? w.matrix("lm_head.weight", config.vocabSize(), e) : wte;
    }

    /** A Conv1D's weight, bound as {@code [out, in]}: transposed from {@code [in, out]} unless stored so already. */
    private static Weight conv1d(Weights w, boolean linear, String name, int in, int out) {
        return linear ? w.matrix(name, out, in) : w.matrixTransposed(name, in, out);
    }

    @Override
    public Tensor hidden(Ops t, int[][] ids, KvCache cache) {
        int b = ids.length;
        int l = ids[0].length;
        int e = config.hidden();
        double eps = config.eps();
        int[] flat = new int[b * l];
        int[] positions = new int[b * l];
        for (int r = 0; r < b; r++) {
            for (int s = 0; s < l; s++) {
                flat[r * l + s] = ids[r][s];
                positions[r * l + s] = Math.max(0, cache.position(r, s));
            }
        }
        Shape idsShape = Shape.of(b, l);
        Tensor x = t.add(t.embedding(wte, flat, idsShape), t.embedding(wpe, positions, idsShape));
        for (int layer = 0; layer < blocks.length; layer++) {
            Block p = blocks[layer];
            Tensor qkv = t.linear(t.layerNorm(x, p.ln1Weight(), p.ln1Bias(), eps), p.attn(), p.attnBias());
            var parts = t.split(qkv, new int[] {e, e, e}, -1);
            int h = config.heads();
            Tensor a = Attention.attend(t, layer, Attention.heads(t, parts.get(0), h),
                    Attention.heads(t, parts.get(1), h), Attention.heads(t, parts.get(2), h), cache, 0);
            x = t.linear(a, p.proj(), p.projBias(), Epilogue.none().withResidual(x));
            Tensor m = t.linear(t.layerNorm(x, p.ln2Weight(), p.ln2Bias(), eps), p.fc(), p.fcBias(),
                    Epilogue.none().withActivation(Activation.GELU_TANH));
            x = t.linear(m, p.mlpProj(), p.mlpProjBias(), Epilogue.none().withResidual(x));
        }
        return t.layerNorm(x, lnFWeight, lnFBias, eps);
    }

    @Override
    public Tensor logits(Ops t, Tensor hidden) {
        return t.linear(hidden, head, null);
    }
}
