package org.attn4j.models;

import static org.attn4j.models.Numerics.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.Goldens.Case;
import org.attn4j.models.Numerics.Target;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tutorial.AttentionMasks;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.MultiHeadOptions;
import org.attn4j.models.tutorial.PerHeadMultiHeadAttention;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.SelfAttention;
import org.attn4j.models.tutorial.SimplifiedSelfAttention;
import org.attn4j.models.tutorial.TorchMasks;
import org.attn4j.models.tutorial.TransformerEncoder;
import org.attn4j.models.tutorial.TransformerEncoderLayer;
import org.attn4j.models.tutorial.WideSelfAttention;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the goldens cannot show: single positions, dropout modes, weight conventions, masks, loading errors. */
class LayerBehaviourTest {

    static Stream<Target> targets() {
        return Numerics.targets().stream();
    }

    private static Case golden(String op, String name) {
        return Goldens.of(op).stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    private static double[] row(double[] all, int width, int batch, int length, int position) {
        double[] r = new double[batch * width];
        for (int b = 0; b < batch; b++) {
            System.arraycopy(all, (b * length + position) * width, r, b * width, width);
        }
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void singleQueryPositionEqualsThatRowOfAllPositions(Target t) {
        Case c = golden("SelfAttention", "causal_attention");
        for (boolean causal : new boolean[] {false, true}) {
            SelfAttention sa = SelfAttention.load(c.parameters()).withCausal(causal);
            try (Scope s = t.backend().newScope()) {
                Tensor x = c.input("x").toTensor(s, t.dtype());
                AttentionResult all = sa.forward(s, x);
                for (int p = 0; p < 6; p++) {
                    AttentionResult one = sa.forwardQuery(s, x, p);
                    assertEquals(Shape.of(2, 2), one.output().shape());
                    assertClose("context of position " + p, t, row(all.output().toDoubleArray(), 2, 2, 6, p),
                            one.output().toDoubleArray());
                    assertClose("weights of position " + p, t, row(all.weights().toDoubleArray(), 6, 2, 6, p),
                            one.weights().toDoubleArray());
                }
                AttentionResult simple = SimplifiedSelfAttention.forward(s, x);
                AttentionResult last = SimplifiedSelfAttention.forwardQuery(s, x, 5);
                assertClose("simplified position 5", t, row(simple.output().toDoubleArray(), 3, 2, 6, 5),
                        last.output().toDoubleArray());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void dropoutIsOffInInferenceAndSeededInTraining(Target t) {
        Case plain = golden("SelfAttention", "causal_attention_dropout");
        SelfAttention sa = SelfAttention.load(plain.parameters()).withCausal(true).withDropout(0.5);
        SelfAttention noDropout = SelfAttention.load(plain.parameters()).withCausal(true);
        try (Scope s = t.backend().newScope()) {
            Tensor x = plain.input("x").toTensor(s, t.dtype());
            assertClose("inference ignores dropout", t, noDropout.forward(s, x).output().toDoubleArray(),
                    sa.forward(s, x).output().toDoubleArray());
            double[] a = sa.forward(s, x, x, RunMode.training(5)).weights().toDoubleArray();
            double[] b = sa.forward(s, x, x, RunMode.training(5)).weights().toDoubleArray();
            double[] c = sa.forward(s, x, x, RunMode.training(6)).weights().toDoubleArray();
            assertArrayEquals(a, b);
            assertFalse(Arrays.equals(a, c), "another seed drops other weights");
        }
    }

    @Test
    void runModeSeedsOfSitesAndChildrenAreDistinct() {
        RunMode m = RunMode.training(42);
        assertEquals(42, m.seedFor(0));
        Set<Long> seeds = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            seeds.add(m.seedFor(i));
            for (int j = 0; j < 4; j++) {
                seeds.add(m.child(i).seedFor(j));
            }
        }
        assertEquals(20, seeds.size());
        assertFalse(RunMode.INFERENCE.drops(0.5));
        assertFalse(m.drops(0.0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void xTimesWAndWTimesXConventionsGiveTheSameLayer(Target t) {
        Case c = golden("SelfAttentionV1", "selfattentionv1_b2_5x8_4");
        SelfAttention xw = SelfAttention.loadXW(c.parameters());
        StateDict linear = StateDict.of(Map.of(
                "W_query.weight", c.parameters().get("W_query").transpose(),
                "W_key.weight", c.parameters().get("W_key").transpose(),
                "W_value.weight", c.parameters().get("W_value").transpose()));
        SelfAttention wx = SelfAttention.load(linear);
        try (Scope s = t.backend().newScope()) {
            Tensor x = c.input("x").toTensor(s, t.dtype());
            assertClose("W·x against x·W", t, xw.forward(s, x).output().toDoubleArray(),
                    wx.forward(s, x).output().toDoubleArray());
            assertClose("queries", t, xw.queries(s, x).toDoubleArray(), wx.queries(s, x).toDoubleArray());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void stackedPerHeadWeightsEqualNamedOnes(Target t) {
        Case c = golden("PerHeadMultiHeadAttention", "per_head_mha_h3");
        StateDict p = c.parameters();
        HostTensor[] stacked = new HostTensor[3];
        String[] names = {"W_query", "W_key", "W_value"};
        for (int i = 0; i < 3; i++) {
            List<HostTensor> heads = new ArrayList<>();
            for (int h = 0; h < 3; h++) {
                HostTensor w = p.get("heads." + h + "." + names[i] + ".weight");
                heads.add(w.reshape(1, w.shape().dim(0), w.shape().dim(1)));
            }
            stacked[i] = HostTensor.concatRows(heads);
        }
        PerHeadMultiHeadAttention a = PerHeadMultiHeadAttention.ofStacked(stacked[0], stacked[1], stacked[2],
                p.select("W_o."), false);
        assertEquals(p, a.stateDict());
        try (Scope s = t.backend().newScope()) {
            assertClose("stacked", t, c.output("out"), a.forward(s, c.input("x").toTensor(s, t.dtype())).output());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void encoderSavedAsSafeTensorsLoadsBackToTheSameNumbers(Target t) throws IOException {
        Case c = golden("nn.TransformerEncoder", "encoder_2layer_prenorm_gelu");
        TransformerEncoderLayer.Config config = new TransformerEncoderLayer.Config(8, 2, 16, Activation.GELU, true,
                1e-5, 0.0);
        TransformerEncoder enc = TransformerEncoder.load(c.parameters(), config, 2, false);
        byte[] file = SafeTensors.toBytes(enc.stateDict(), DType.F64, Map.of("format", "pt"));
        TransformerEncoder reloaded = TransformerEncoder.load(SafeTensors.read(file).tensors(), config, 2, false);
        try (Scope s = t.backend().newScope()) {
            assertClose("reloaded encoder", t, c.output("out"),
                    reloaded.forward(s, c.input("src").toTensor(s, t.dtype())));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void unbatchedInputsGiveUnbatchedResults(Target t) {
        Case c = golden("WideSelfAttention", "wide_mha_k8_h4");
        WideSelfAttention m = WideSelfAttention.load(c.parameters(), 8, 4, false);
        try (Scope s = t.backend().newScope()) {
            HostTensor x = c.input("x");
            AttentionResult one = m.forward(s, x.rows(1, 2).reshape(5, 8).toTensor(s, t.dtype()));
            assertEquals(Shape.of(5, 8), one.output().shape());
            assertEquals(Shape.of(4, 5, 5), one.weights().shape());
            assertClose("item 1", t, c.output("out").rows(1, 2).reshape(5, 8), one.output());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void encoderLayerRunsInTrainingWithSeededDropout(Target t) {
        TransformerEncoderLayer.Config config = new TransformerEncoderLayer.Config(8, 2, 16, Activation.RELU, false,
                1e-5, 0.1);
        TransformerEncoderLayer layer = TransformerEncoderLayer.random(config, 3);
        try (Scope s = t.backend().newScope()) {
            Tensor x = s.tensor(new SplittableRandom(1).doubles(48).toArray(), Shape.of(1, 6, 8),
                    t.dtype());
            double[] a = layer.forward(s, x, AttentionMasks.NONE, RunMode.training(9)).toDoubleArray();
            double[] b = layer.forward(s, x, AttentionMasks.NONE, RunMode.training(9)).toDoubleArray();
            double[] inference = layer.forward(s, x).toDoubleArray();
            assertArrayEquals(a, b);
            assertFalse(Arrays.equals(a, inference));
        }
    }

    @Test
    void torchMasksAreInvertedToMayAttend() {
        Mask kp = TorchMasks.keyPadding(new boolean[][] {{false, true}, {false, false}});
        assertEquals(Shape.of(2, 1, 1, 2), kp.shape());
        assertArrayEquals(new boolean[] {true, false, true, true}, kp.toArray());
        Mask inv = TorchMasks.invert(HostTensor.of(new double[] {0, 1, 0, 0}, 2, 2));
        assertArrayEquals(new boolean[] {true, false, true, true}, inv.toArray());
        Mask perHead = TorchMasks.perHead(HostTensor.of(new double[8], 4, 1, 2), 2);
        assertEquals(Shape.of(2, 2, 1, 2), perHead.shape());
    }

    @Test
    void misshapenParametersAreRejectedByNameAndShape() {
        Case c = golden("nn.MultiheadAttention", "mha_self_avg");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MultiHeadAttention.load(c.parameters(), 12, 4));
        assertTrue(e.getMessage().contains("in_proj_weight") && e.getMessage().contains("[48, 16]")
                && e.getMessage().contains("[36, 12]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> MultiHeadAttention.load(StateDict.empty(), 16, 4));
        assertTrue(e.getMessage().contains("missing (4): in_proj_weight [48, 16], in_proj_bias [48]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MultiHeadAttention.load(c.parameters(), 16, 3));
        assertTrue(e.getMessage().contains("not divisible"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void badInputShapesAreRejectedWithTheShapes(Target t) {
        Case c = golden("nn.MultiheadAttention", "mha_self_avg");
        MultiHeadAttention mha = MultiHeadAttention.load(c.parameters(), 16, 4);
        try (Scope s = t.backend().newScope()) {
            Tensor x = s.zeros(Shape.of(2, 5, 16), t.dtype());
            Tensor flat = s.zeros(Shape.of(16), t.dtype());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> mha.forward(s, x, flat, flat, MultiHeadOptions.defaults()));
            assertTrue(e.getMessage().contains("[2, 5, 16]") && e.getMessage().contains("[16]"), e.getMessage());
            AttentionMasks wrong = AttentionMasks.NONE.withKeyPadding(Mask.keyPadding(new int[] {1, 2, 3}, 5));
            e = assertThrows(IllegalArgumentException.class,
                    () -> mha.forward(s, x, x, x, MultiHeadOptions.defaults().withMasks(wrong)));
            assertTrue(e.getMessage().contains("keyPadding has shape [3, 1, 1, 5]"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> SimplifiedSelfAttention.forwardQuery(s, x, 5));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void resultsLiveInTheCallersScopeAndSurviveTheLayersWorkScopes(Target t) {
        Case c = golden("nn.TransformerEncoderLayer", "encoder_layer_relu_postnorm");
        TransformerEncoderLayer layer = TransformerEncoderLayer.load(c.parameters(),
                TransformerEncoderLayer.Config.of(16, 4, 2, Activation.RELU, false));
        Tensor out;
        try (Scope s = t.backend().newScope()) {
            Tensor x = c.input("src").toTensor(s, t.dtype());
            try (Scope inner = t.backend().newScope()) {
                out = s.adopt(layer.forward(inner, x));
            }
            assertTrue(out.isOpen());
            assertClose("adopted output", t, c.output("out"), out);
        }
        assertFalse(out.isOpen());
    }
}
