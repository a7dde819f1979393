package org.attn4j.models.tutorial;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.attn4j.api.Activation;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * The transformer block, compatible with PyTorch's {@code nn.TransformerEncoderLayer(d_model, nhead,
 * dim_feedforward, dropout, activation, layer_norm_eps, batch_first=True, norm_first)}:
 * <pre>
 *   ff(x) = linear2(dropout(act(linear1(x))))             d → n_mlp·d → d   (dim_feedforward = n_mlp·d)
 *   post-norm (the original paper, Bloem; normFirst = false):
 *     x = norm1(x + dropout1(self_attn(x)))
 *     x = norm2(x + dropout2(ff(x)))
 *   pre-norm (GPT-2; normFirst = true):
 *     x = x + dropout1(self_attn(norm1(x)))
 *     x = x + dropout2(ff(norm2(x)))
 * </pre>
 * State_dict names as PyTorch's: {@code self_attn.in_proj_weight}, {@code self_attn.in_proj_bias},
 * {@code self_attn.out_proj.weight}, {@code self_attn.out_proj.bias}, {@code linear1.weight}, {@code linear1.bias},
 * {@code linear2.weight}, {@code linear2.bias}, {@code norm1.weight}, {@code norm1.bias}, {@code norm2.weight},
 * {@code norm2.bias}. The four dropouts (attention weights, {@code dropout}, {@code dropout1}, {@code dropout2}) use
 * the same probability and are applied only in training, with seeds {@code mode.seedFor(0..3)}.
 *
 * <p>{@link #loadBloem} builds Bloem's {@code TransformerBlock} (<i>Transformers from scratch</i>): the same post-norm
 * block on {@link WideSelfAttention}, with names {@code attention.*}, {@code norm1.*}, {@code norm2.*},
 * {@code ff.0.*}, {@code ff.2.*} (its {@code nn.Sequential(Linear, ReLU, Linear)}).
 */
public final class TransformerEncoderLayer {
    private final AttentionLayer selfAttn;
    private final Names names;
    private final Linear linear1;
    private final Linear linear2;
    private final LayerNorm norm1;
    private final LayerNorm norm2;
    private final Activation activation;
    private final boolean normFirst;
    private final double dropout;

    /** The state_dict prefixes of the attention and of the two feed-forward projections. */
    private record Names(String attention, String linear1, String linear2) {
        static final Names TORCH = new Names("self_attn.", "linear1.", "linear2.");
        static final Names BLOEM = new Names("attention.", "ff.0.", "ff.2.");
    }

    private TransformerEncoderLayer(AttentionLayer selfAttn, Names names, Linear linear1, Linear linear2,
                                    LayerNorm norm1, LayerNorm norm2, Activation activation, boolean normFirst,
                                    double dropout) {
        this.selfAttn = selfAttn;
        this.names = names;
        this.linear1 = linear1;
        this.linear2 = linear2;
        this.norm1 = norm1;
        this.norm2 = norm2;
        this.activation = activation;
        this.normFirst = normFirst;
        this.dropout = dropout;
    }

    /**
     * The layer's hyper-parameters, PyTorch's constructor arguments.
     *
     * @param dModel {@code d}
     * @param nhead the number of heads, dividing {@code d}
     * @param dimFeedforward the hidden size of the feed-forward network ({@code n_mlp·d})
     * @param activation the feed-forward nonlinearity
     * @param normFirst pre-norm (GPT-2) when true, post-norm (original) when false
     * @param layerNormEps the layer norms' epsilon
     * @param dropout the drop probability of all four dropouts in training
     */
    public record Config(int dModel, int nhead, int dimFeedforward, Activation activation, boolean normFirst,
                         double layerNormEps, double dropout) {
        /** Validates the sizes. */
        public Config {
            if (dModel < 1 || nhead < 1 || dModel % nhead != 0 || dimFeedforward < 1) {
                throw new IllegalArgumentException("TransformerEncoderLayer.Config: dModel " + dModel + ", nhead "
                        + nhead + ", dimFeedforward " + dimFeedforward + " (nhead must divide dModel)");
            }
            if (!(dropout >= 0 && dropout <= 1)) {
                throw new IllegalArgumentException("TransformerEncoderLayer.Config: dropout " + dropout
                        + " is not in [0, 1]");
            }
            if (activation == null) {
                throw new IllegalArgumentException("TransformerEncoderLayer.Config: argument activation is null");
            }
            if (!(layerNormEps >= 0)) {
                throw new IllegalArgumentException("TransformerEncoderLayer.Config: layerNormEps " + layerNormEps
                        + " is not at least 0");
            }
        }

        /**
         * @param dModel {@code d}
         * @param nhead heads
         * @param mlpRatio {@code n_mlp}: the feed-forward network is {@code d → n_mlp·d → d}
         * @param activation the nonlinearity
         * @param normFirst pre-norm when true
         * @return a config with PyTorch's epsilon {@code 1e-5} and no dropout
         */
        public static Config of(int dModel, int nhead, int mlpRatio, Activation activation, boolean normFirst) {
            return new Config(dModel, nhead, mlpRatio * dModel, activation, normFirst, LayerNorm.DEFAULT_EPS, 0.0);
        }
    }

    /**
     * @param params the twelve entries named in the class comment
     * @param config the hyper-parameters
     * @return the layer
     */
    public static TransformerEncoderLayer load(StateDict params, Config config) {
        return params.load("TransformerEncoderLayer", p -> {
            int d = config.dModel();
            int ff = config.dimFeedforward();
            return new TransformerEncoderLayer(
                    MultiHeadAttention.load(p.select("self_attn."), d, config.nhead(), true, config.dropout()),
                    Names.TORCH, Linear.load(p.select("linear1."), d, ff, true), Linear.load(p.select("linear2."), ff, d, true),
                    LayerNorm.load(p.select("norm1."), d, config.layerNormEps(), true),
                    LayerNorm.load(p.select("norm2."), d, config.layerNormEps(), true),
                    config.activation(), config.normFirst(), config.dropout());
        });
    }

    /**
     * Bloem's {@code TransformerBlock(k, heads, mask, ff_hidden_mult)}: wide-head attention, post-norm, ReLU.
     *
     * @param params {@code attention.tokeys.weight}, {@code attention.toqueries.weight},
     *     {@code attention.tovalues.weight}, {@code attention.unifyheads.*}, {@code norm1.*}, {@code norm2.*},
     *     {@code ff.0.*}, {@code ff.2.*}
     * @param k the embedding size
     * @param heads the number of heads
     * @param ffHiddenMult the feed-forward network is {@code k → ffHiddenMult·k → k}
     * @param causal Bloem's {@code mask}: query {@code i} sees only keys {@code j <= i}
     * @return the block (layer norm epsilon {@code 1e-5}, no dropout)
     */
    public static TransformerEncoderLayer loadBloem(StateDict params, int k, int heads, int ffHiddenMult,
                                                    boolean causal) {
        return params.load("TransformerEncoderLayer", p -> {
            int ff = ffHiddenMult * k;
            return new TransformerEncoderLayer(WideSelfAttention.load(p.select("attention."), k, heads, causal),
                    Names.BLOEM, Linear.load(p.select("ff.0."), k, ff, true),
                    Linear.load(p.select("ff.2."), ff, k, true),
                    LayerNorm.load(p.select("norm1."), k, LayerNorm.DEFAULT_EPS, true),
                    LayerNorm.load(p.select("norm2."), k, LayerNorm.DEFAULT_EPS, true),
                    Activation.RELU, false, 0.0);
        });
    }

    /**
     * Random weights for demos: projections uniform in {@code ±1/sqrt(fan_in)}, norms 1 and 0, biases 0.
     *
     * @param config the hyper-parameters
     * @param seed the seed
     * @return the layer
     */
    public static TransformerEncoderLayer random(Config config, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int d = config.dModel();
        int ff = config.dimFeedforward();
        StateDict sd = MultiHeadAttention.random(d, config.nhead(), r.nextLong()).stateDict().prefixed("self_attn.")
                .plus(randomLinear(r, d, ff).prefixed("linear1.")).plus(randomLinear(r, ff, d).prefixed("linear2."));
        double[] ones = new double[d];
        Arrays.fill(ones, 1.0);
        for (String norm : new String[] {"norm1.", "norm2."}) {
            sd = sd.with(norm + "weight", HostTensor.of(ones, d)).with(norm + "bias", HostTensor.of(new double[d], d));
        }
        return load(sd, config);
    }

    private static StateDict randomLinear(SplittableRandom r, int in, int out) {
        double a = 1 / Math.sqrt(in);
        return StateDict.of("weight", HostTensor.of(r.doubles((long) in * out, -a, a).toArray(), out, in))
                .with("bias", HostTensor.of(new double[out], out));
    }

    /**
     * @param parameters the owner of the uploaded parameters, open
     * @return a copy whose forward calls read every parameter (attention, feed-forward, norms) from
     *     {@code parameters}, uploaded there once, so a call allocates only its activations
     */
    public TransformerEncoderLayer bind(Parameters parameters) {
        return new TransformerEncoderLayer(selfAttn.bind(parameters), names, linear1.bind(parameters),
                linear2.bind(parameters), norm1.bind(parameters), norm2.bind(parameters), activation, normFirst,
                dropout);
    }

    /** @return the attention sub-layer */
    public AttentionLayer selfAttention() {
        return selfAttn;
    }

    /** @return the parameters, with the names they were loaded under (PyTorch's or Bloem's) */
    public StateDict stateDict() {
        return selfAttn.stateDict().prefixed(names.attention()).plus(linear1.stateDict().prefixed(names.linear1()))
                .plus(linear2.stateDict().prefixed(names.linear2())).plus(norm1.stateDict().prefixed("norm1."))
                .plus(norm2.stateDict().prefixed("norm2."));
    }

    /**
     * @param scope receives the result
     * @param src {@code [B, L, d]} or {@code [L, d]}
     * @param masks PyTorch's {@code src_key_padding_mask} ({@link AttentionMasks#keyPadding()}), {@code src_mask}
     *     (boolean {@link AttentionMasks#attnMask()} or float {@link AttentionMasks#additive()}), or causal
     * @param mode training (dropout) or inference
     * @return {@code [B, L, d]}
     */
    public Tensor forward(Scope scope, Tensor src, AttentionMasks masks, RunMode mode) {
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Tensor x = src;
            if (normFirst) {
                x = ops.add(x, drop(ops, attend(work, norm1.forward(work, x), masks, mode), mode, 2));
                x = ops.add(x, drop(ops, feedForward(work, norm2.forward(work, x), mode), mode, 3));
            } else {
                x = norm1.forward(work, drop(ops, attend(work, x, masks, mode), mode, 2), x);
                x = norm2.forward(work, drop(ops, feedForward(work, x, mode), mode, 3), x);
            }
            return scope.adopt(x);
        }
    }

    /**
     * @param scope receives the result
     * @param src {@code [B, L, d]} or {@code [L, d]}
     * @return the block's output in inference, without masks
     */
    public Tensor forward(Scope scope, Tensor src) {
        return forward(scope, src, AttentionMasks.NONE, RunMode.INFERENCE);
    }

    private Tensor attend(Scope work, Tensor x, AttentionMasks masks, RunMode mode) {
        return selfAttn.forward(work, x, masks, false, mode).output();
    }

    private Tensor feedForward(Scope work, Tensor x, RunMode mode) {
        Ops ops = work.ops();
        Tensor hidden = drop(ops, linear1.forward(work, x, Epilogue.none().withActivation(activation)), mode, 1);
        return linear2.forward(work, hidden);
    }

    private Tensor drop(Ops ops, Tensor x, RunMode mode, int site) {
        return mode.drops(dropout) ? ops.dropout(x, dropout, mode.seedFor(site)) : x;
    }
}
