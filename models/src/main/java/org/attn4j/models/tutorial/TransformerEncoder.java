package org.attn4j.models.tutorial;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * A stack of {@link TransformerEncoderLayer}s, compatible with PyTorch's {@code nn.TransformerEncoder(layer,
 * num_layers, norm)}: {@code x = layers[N-1](..layers[0](x))}, then the optional final {@code norm}. State_dict
 * names {@code layers.<i>.} + the layer's names, and {@code norm.weight}, {@code norm.bias} when a final norm is
 * present (as pre-norm models such as GPT-2 have).
 */
public final class TransformerEncoder {
    private final List<TransformerEncoderLayer> layers;
    private final LayerNorm norm;

    private TransformerEncoder(List<TransformerEncoderLayer> layers, LayerNorm norm) {
        this.layers = List.copyOf(layers);
        this.norm = norm;
    }

    /**
     * @param params {@code layers.0.*} .. {@code layers.<N-1>.*} and, with {@code finalNorm}, {@code norm.*}
     * @param config every layer's hyper-parameters
     * @param numLayers {@code N}, at least 1
     * @param finalNorm whether a final layer norm follows the stack
     * @return the encoder
     */
    public static TransformerEncoder load(StateDict params, TransformerEncoderLayer.Config config, int numLayers,
                                          boolean finalNorm) {
        return params.load("TransformerEncoder", p -> {
            if (numLayers < 1) {
                throw new IllegalArgumentException("TransformerEncoder: argument numLayers is " + numLayers);
            }
            List<TransformerEncoderLayer> layers = new ArrayList<>();
            for (int i = 0; i < numLayers; i++) {
                layers.add(TransformerEncoderLayer.load(p.select("layers." + i + "."), config));
            }
            LayerNorm norm = finalNorm
                    ? LayerNorm.load(p.select("norm."), config.dModel(), config.layerNormEps(), true) : null;
            return new TransformerEncoder(layers, norm);
        });
    }

    /**
     * @param layers the blocks, in order
     * @param norm a final layer norm, or null
     * @return the encoder
     */
    public static TransformerEncoder of(List<TransformerEncoderLayer> layers, LayerNorm norm) {
        if (layers.isEmpty()) {
            throw new IllegalArgumentException("TransformerEncoder: argument layers is empty");
        }
        return new TransformerEncoder(layers, norm);
    }

    /**
     * @param parameters the owner of the uploaded parameters, open
     * @return a copy whose forward calls read every parameter from {@code parameters}, uploaded there once, so a
     *     call allocates only its activations
     */
    public TransformerEncoder bind(Parameters parameters) {
        List<TransformerEncoderLayer> bound = new ArrayList<>();
        for (TransformerEncoderLayer layer : layers) {
            bound.add(layer.bind(parameters));
        }
        return new TransformerEncoder(bound, norm == null ? null : norm.bind(parameters));
    }

    /** @return the blocks, in order */
    public List<TransformerEncoderLayer> layers() {
        return layers;
    }

    /** @return the parameters, with PyTorch's names */
    public StateDict stateDict() {
        StateDict sd = StateDict.empty();
        for (int i = 0; i < layers.size(); i++) {
            sd = sd.plus(layers.get(i).stateDict().prefixed("layers." + i + "."));
        }
        return norm == null ? sd : sd.plus(norm.stateDict().prefixed("norm."));
    }

    /**
     * @param scope receives the result
     * @param src {@code [B, L, d]} or {@code [L, d]}
     * @param masks the same masks for every layer
     * @param mode training (layer {@code i} uses {@code mode.child(i)}) or inference
     * @return {@code [B, L, d]}
     */
    public Tensor forward(Scope scope, Tensor src, AttentionMasks masks, RunMode mode) {
        try (Scope work = scope.backend().newScope()) {
            Tensor x = src;
            for (int i = 0; i < layers.size(); i++) {
                x = layers.get(i).forward(work, x, masks, mode.child(i));
            }
            if (norm != null) {
                x = norm.forward(work, x);
            }
            return scope.adopt(x);
        }
    }

    /**
     * @param scope receives the result
     * @param src {@code [B, L, d]} or {@code [L, d]}
     * @return the output in inference, without masks
     */
    public Tensor forward(Scope scope, Tensor src) {
        return forward(scope, src, AttentionMasks.NONE, RunMode.INFERENCE);
    }
}
