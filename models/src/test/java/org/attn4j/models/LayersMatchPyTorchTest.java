package org.attn4j.models;

import static org.attn4j.models.Numerics.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.Goldens.Case;
import org.attn4j.models.Numerics.Target;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.tutorial.AttentionMasks;
import org.attn4j.models.tutorial.BahdanauAttention;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.MultiHeadOptions;
import org.attn4j.models.tutorial.PerHeadMultiHeadAttention;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.SelfAttention;
import org.attn4j.models.tutorial.SimplifiedSelfAttention;
import org.attn4j.models.tutorial.SinusoidalPositionalEncoding;
import org.attn4j.models.tutorial.TorchMasks;
import org.attn4j.models.tutorial.TransformerEncoder;
import org.attn4j.models.tutorial.TransformerEncoderLayer;
import org.attn4j.models.tutorial.WideSelfAttention;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every layer against PyTorch float64 outputs computed from the same weights, on every backend of the test class
 * path, in F32 and (where supported) F64. Each test also checks that the layer gives its state_dict back unchanged.
 */
class LayersMatchPyTorchTest {

    /**
     * The layer names of the golden manifests this class tests (CausalLM: DecodersMatchPyTorchTest;
     * RopeParameters: RopeScalingMatchesTransformersTest).
     */
    private static final Set<String> TESTED = Set.of("nn.MultiheadAttention",
            "RaschkaMultiHeadAttention", "nn.TransformerEncoderLayer", "nn.TransformerEncoder", "nn.LayerNorm",
            "nn.Embedding", "SinusoidalPositionalEncoding", "BahdanauAttention", "SelfAttentionV1", "SelfAttentionV2",
            "SelfAttention", "SimplifiedSelfAttention", "WideSelfAttention", "PerHeadMultiHeadAttention", "BloemTransformerBlock",
            "CausalLM", "RopeParameters");

    @org.junit.jupiter.api.Test
    void everyGoldenLayerHasATest() {
        assertEquals(TESTED, Goldens.ops(), "layers in the golden manifests vs. layers tested here");
    }

    /** Checks an attention layer's output (role {@code outRole}) and its weights (role {@code weights}). */
    private static void assertResult(Target t, Case c, String outRole, AttentionResult r) {
        assertClose(c + " " + outRole, t, c.output(outRole), r.output());
        assertClose(c + " weights", t, c.output("weights"), r.weights());
    }

    private static Tensor in(Scope s, Target t, HostTensor h) {
        return h.toTensor(s, t.dtype());
    }

    static Stream<Arguments> multiheadAttention() {
        return Numerics.across(Goldens.of("nn.MultiheadAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("multiheadAttention")
    void multiheadAttentionMatchesTorchModule(Target t, Case c) {
        MultiHeadAttention mha = MultiHeadAttention.load(c.parameters(), c.integer("embedDim"), c.integer("numHeads"),
                c.flag("bias"), c.number("dropout"));
        assertEquals(c.parameters(), mha.stateDict());
        try (Scope s = t.backend().newScope()) {
            AttentionMasks masks = AttentionMasks.NONE;
            if (c.input("key_padding_mask") != null) {
                masks = masks.withKeyPadding(TorchMasks.invert(c.input("key_padding_mask")));
            }
            if (c.input("attn_mask") != null) {
                masks = "bool".equals(c.string("attnMaskKind"))
                        ? masks.withAttnMask(TorchMasks.invert(c.input("attn_mask")))
                        : masks.withAdditive(in(s, t, c.input("attn_mask")));
            }
            AttentionResult r = mha.forward(s, in(s, t, c.input("query")), in(s, t, c.input("key")),
                    in(s, t, c.input("value")), MultiHeadOptions.defaults().withMasks(masks)
                            .withNeedWeights(c.flag("needWeights")).withAverageAttnWeights(c.flag("averageAttnWeights")));
            assertClose(c + " attn_output", t, c.output("attn_output"), r.output());
            if (c.flag("needWeights")) {
                assertClose(c + " attn_weights", t, c.output("attn_weights"), r.weights());
            } else {
                assertNull(r.weights());
            }
        }
    }

    static Stream<Arguments> raschkaMultiHead() {
        return Numerics.across(Goldens.of("RaschkaMultiHeadAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("raschkaMultiHead")
    void raschkaSplitProjectionMultiHeadAttentionIsCausal(Target t, Case c) {
        MultiHeadAttention mha = MultiHeadAttention.loadSeparateProjections(c.parameters(), c.integer("dIn"),
                c.integer("dOut"), c.integer("numHeads"), c.flag("qkvBias"), 0.0);
        assertEquals(c.parameters(), mha.stateDict());
        try (Scope s = t.backend().newScope()) {
            Tensor x = in(s, t, c.input("x"));
            AttentionResult r = mha.forward(s, x, x, x, MultiHeadOptions.defaults()
                    .withMasks(AttentionMasks.NONE.withCausal(true)).withAverageAttnWeights(false));
            assertResult(t, c, "context", r);
        }
    }

    static Stream<Arguments> encoderLayer() {
        return Numerics.across(Goldens.of("nn.TransformerEncoderLayer"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("encoderLayer")
    void encoderLayerMatchesTorchModuleInBothNormPlacements(Target t, Case c) {
        TransformerEncoderLayer layer = TransformerEncoderLayer.load(c.parameters(), config(c));
        assertEquals(c.parameters(), layer.stateDict());
        try (Scope s = t.backend().newScope()) {
            Tensor out = layer.forward(s, in(s, t, c.input("src")), srcMasks(s, t, c), RunMode.INFERENCE);
            assertClose(c + " out", t, c.output("out"), out);
        }
    }

    static Stream<Arguments> bloemBlock() {
        return Numerics.across(Goldens.of("BloemTransformerBlock"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("bloemBlock")
    void bloemTransformerBlockOnWideHeads(Target t, Case c) {
        TransformerEncoderLayer block = TransformerEncoderLayer.loadBloem(c.parameters(), c.integer("k"),
                c.integer("heads"), c.integer("ffHiddenMult"), c.flag("causal"));
        assertEquals(c.parameters(), block.stateDict());
        try (Scope s = t.backend().newScope()) {
            assertClose(c + " out", t, c.output("out"), block.forward(s, in(s, t, c.input("x"))));
        }
    }

    static Stream<Arguments> encoder() {
        return Numerics.across(Goldens.of("nn.TransformerEncoder"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("encoder")
    void encoderStackMatchesTorchModule(Target t, Case c) {
        TransformerEncoder enc = TransformerEncoder.load(c.parameters(), config(c), c.integer("numLayers"),
                c.flag("finalNorm"));
        assertEquals(c.parameters(), enc.stateDict());
        try (Scope s = t.backend().newScope()) {
            Tensor out = enc.forward(s, in(s, t, c.input("src")), srcMasks(s, t, c), RunMode.INFERENCE);
            assertClose(c + " out", t, c.output("out"), out);
        }
    }

    private static TransformerEncoderLayer.Config config(Case c) {
        Activation act = Activation.valueOf(c.string("activation").toUpperCase(Locale.ROOT));
        return new TransformerEncoderLayer.Config(c.integer("dModel"), c.integer("nhead"), c.integer("dimFeedforward"),
                act, c.flag("normFirst"), c.number("layerNormEps"), c.number("dropout"));
    }

    private static AttentionMasks srcMasks(Scope s, Target t, Case c) {
        AttentionMasks masks = AttentionMasks.NONE;
        if (c.input("src_key_padding_mask") != null) {
            masks = masks.withKeyPadding(TorchMasks.invert(c.input("src_key_padding_mask")));
        }
        if (c.input("src_mask") != null) {
            masks = "bool".equals(c.string("srcMaskKind"))
                    ? masks.withAttnMask(TorchMasks.invert(c.input("src_mask")))
                    : masks.withAdditive(in(s, t, c.input("src_mask")));
        }
        return masks;
    }

    static Stream<Arguments> layerNorm() {
        return Numerics.across(Goldens.of("nn.LayerNorm"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("layerNorm")
    void layerNormMatchesTorchModule(Target t, Case c) {
        @SuppressWarnings("unchecked")
        int d = ((List<Long>) c.params().get("normalizedShape")).get(0).intValue();
        LayerNorm ln = LayerNorm.load(c.parameters(), d, c.number("eps"), c.flag("elementwiseAffine"));
        assertEquals(c.parameters(), ln.stateDict());
        try (Scope s = t.backend().newScope()) {
            assertClose(c + " out", t, c.output("out"), ln.forward(s, in(s, t, c.input("x"))));
        }
    }

    static Stream<Arguments> embedding() {
        return Numerics.across(Goldens.of("nn.Embedding"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("embedding")
    void embeddingGathersRowsLikeTorch(Target t, Case c) {
        Embedding emb = Embedding.load(c.parameters(), c.integer("numEmbeddings"), c.integer("embeddingDim"));
        assertEquals(c.parameters(), emb.stateDict());
        HostTensor ids = c.input("ids");
        int[] idx = Arrays.stream(ids.data()).mapToInt(v -> (int) v).toArray();
        try (Scope s = t.backend().newScope()) {
            assertClose(c + " out", t, c.output("out"), emb.forward(s, idx, ids.shape(), t.dtype()));
        }
    }

    static Stream<Arguments> positionalEncoding() {
        return Numerics.across(Goldens.of("SinusoidalPositionalEncoding"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("positionalEncoding")
    void sinusoidalEncodingMatchesThePaperFormula(Target t, Case c) {
        int maxLen = c.integer("maxLen");
        int d = c.integer("dModel");
        SinusoidalPositionalEncoding pe = new SinusoidalPositionalEncoding(maxLen, d);
        try (Scope s = t.backend().newScope()) {
            Tensor out = pe.forward(s, s.zeros(Shape.of(1, maxLen, d), t.dtype()));
            assertClose(c + " pe", t, c.output("pe").reshape(1, maxLen, d), out);
        }
    }

    static Stream<Arguments> bahdanau() {
        return Numerics.across(Goldens.of("BahdanauAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("bahdanau")
    void bahdanauAdditiveAttentionMatchesReference(Target t, Case c) {
        BahdanauAttention m = BahdanauAttention.load(c.parameters(), c.integer("queryDim"), c.integer("keyDim"),
                c.integer("hiddenDim"));
        assertEquals(c.parameters(), m.stateDict());
        @SuppressWarnings("unchecked")
        List<Long> vl = (List<Long>) c.params().get("validLengths");
        int[] valid = vl == null ? null : vl.stream().mapToInt(Long::intValue).toArray();
        try (Scope s = t.backend().newScope()) {
            AttentionResult r = m.forward(s, in(s, t, c.input("query")), in(s, t, c.input("keys")),
                    in(s, t, c.input("values")), valid);
            assertResult(t, c, "context", r);
        }
    }

    static Stream<Arguments> raschkaV1() {
        return Numerics.across(Goldens.of("SelfAttentionV1"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("raschkaV1")
    void selfAttentionLoadsXTimesWWeightsOfRaschkaV1(Target t, Case c) {
        SelfAttention sa = SelfAttention.loadXW(c.parameters());
        assertEquals(c.parameters(), sa.stateDict());
        checkSelfAttention(t, c, sa);
    }

    static Stream<Arguments> raschkaV2() {
        return Numerics.across(Goldens.of("SelfAttentionV2"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("raschkaV2")
    void selfAttentionLoadsLinearWeightsOfRaschkaV2(Target t, Case c) {
        SelfAttention sa = SelfAttention.load(c.parameters());
        assertEquals(c.parameters(), sa.stateDict());
        checkSelfAttention(t, c, sa);
    }

    static Stream<Arguments> singleHead() {
        return Numerics.across(Goldens.of("SelfAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("singleHead")
    void singleHeadAttentionWithBiasScaleCausalDropoutAndCrossInputs(Target t, Case c) {
        SelfAttention sa = SelfAttention.load(c.parameters()).withCausal(c.flag("causal"))
                .withDropout(c.number("dropoutP"));
        if (c.params().get("scale") != null) {
            sa = sa.withScale(c.number("scale"));
        }
        assertEquals(c.parameters(), sa.stateDict());
        RunMode mode = c.number("dropoutP") > 0 ? RunMode.training(((Long) c.params().get("dropoutSeed")))
                : RunMode.INFERENCE;
        try (Scope s = t.backend().newScope()) {
            Tensor x = in(s, t, c.input("x"));
            Tensor memory = c.input("memory") == null ? x : in(s, t, c.input("memory"));
            AttentionResult r = sa.forward(s, x, memory, mode);
            assertResult(t, c, "context", r);
        }
    }

    private static void checkSelfAttention(Target t, Case c, SelfAttention sa) {
        try (Scope s = t.backend().newScope()) {
            AttentionResult r = sa.forward(s, in(s, t, c.input("x")));
            assertResult(t, c, "context", r);
        }
    }

    static Stream<Arguments> simplified() {
        return Numerics.across(Goldens.of("SimplifiedSelfAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("simplified")
    void simplifiedSelfAttentionIsSoftmaxOfXXTransposeTimesX(Target t, Case c) {
        try (Scope s = t.backend().newScope()) {
            AttentionResult r = SimplifiedSelfAttention.forward(s, in(s, t, c.input("x")));
            assertResult(t, c, "context", r);
        }
    }

    static Stream<Arguments> wide() {
        return Numerics.across(Goldens.of("WideSelfAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("wide")
    void wideHeadsWithUnifyheadsMatchBloem(Target t, Case c) {
        WideSelfAttention m = WideSelfAttention.load(c.parameters(), c.integer("k"), c.integer("heads"),
                c.flag("causal"));
        assertEquals(c.parameters(), m.stateDict());
        try (Scope s = t.backend().newScope()) {
            AttentionResult r = m.forward(s, in(s, t, c.input("x")));
            assertResult(t, c, "out", r);
        }
    }

    static Stream<Arguments> perHead() {
        return Numerics.across(Goldens.of("PerHeadMultiHeadAttention"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("perHead")
    void separatePerHeadWeightsWithOutputProjection(Target t, Case c) {
        PerHeadMultiHeadAttention m = PerHeadMultiHeadAttention.load(c.parameters(), c.integer("heads"),
                c.flag("causal"));
        assertEquals(c.parameters(), m.stateDict());
        try (Scope s = t.backend().newScope()) {
            AttentionResult r = m.forward(s, in(s, t, c.input("x")));
            assertResult(t, c, "out", r);
        }
    }
}
