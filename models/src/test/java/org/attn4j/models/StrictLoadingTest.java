package org.attn4j.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.Shape;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.StateDictException;
import org.attn4j.models.tutorial.MultiHeadAttention;
import org.attn4j.models.tutorial.SelfAttention;
import org.attn4j.models.tutorial.TransformerEncoder;
import org.attn4j.models.tutorial.TransformerEncoderLayer;
import org.junit.jupiter.api.Test;

/** load_state_dict(strict=True): every problem at once, under full dotted names, and configs that cannot work. */
class StrictLoadingTest {
    private static final TransformerEncoderLayer.Config CONFIG =
            TransformerEncoderLayer.Config.of(8, 2, 2, Activation.GELU, false);

    private static StateDict layer(long seed) {
        return TransformerEncoderLayer.random(CONFIG, seed).stateDict();
    }

    @Test
    void unexpectedNamesAreRefusedWithTheirFullNames() {
        StateDict sd = layer(1).with("linear3.weight", HostTensor.of(new double[4], 2, 2))
                .with("self_attn.bias_k", HostTensor.of(new double[8], 1, 1, 8));
        StateDictException e = assertThrows(StateDictException.class,
                () -> TransformerEncoderLayer.load(sd, CONFIG));
        assertEquals(List.of("linear3.weight", "self_attn.bias_k"), e.unexpected());
        assertTrue(e.getMessage().contains("unexpected (2): linear3.weight, self_attn.bias_k"), e.getMessage());
    }

    @Test
    void aBaseModelIsTakenFromATaskModelsFileWithoutItsHeadAndAnythingElseIsRefused() {
        HostTensor t = HostTensor.of(new double[] {1}, 1);
        StateDict bare = StateDict.of("encoder.w", t);
        assertTrue(bare == bare.base("M", "base.", "head."), "a file without the prefix is the base model itself");

        StateDict task = bare.prefixed("base.").with("head.w", t).with("decoder.b", t);
        assertEquals(List.of("encoder.w"), task.base("M", "base.", "head.", "decoder.").names());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> task.with("other.x", t).base("M", "base.", "head.", "decoder."));
        assertEquals("Error(s) in loading state_dict for M: unexpected (1) outside base., head. and decoder.: other.x",
                e.getMessage());
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class, () -> task.base("M", "base."));
        assertEquals("Error(s) in loading state_dict for M: unexpected (2) outside base.: head.w, decoder.b",
                two.getMessage());
    }

    @Test
    void aTwoLayerStateDictDoesNotLoadAsOneLayer() {
        StateDict two = layer(1).prefixed("layers.0.").plus(layer(2).prefixed("layers.1."));
        StateDictException e = assertThrows(StateDictException.class,
                () -> TransformerEncoder.load(two, CONFIG, 1, false));
        assertEquals(12, e.unexpected().size());
        assertTrue(e.unexpected().contains("layers.1.self_attn.in_proj_weight"), e.unexpected().toString());
        assertEquals(2, TransformerEncoder.load(two, CONFIG, 2, false).layers().size());
    }

    @Test
    void missingAndMisshapedNamesAreAllReportedAtOnceWithDottedNames() {
        StateDict sd = layer(1).prefixed("layers.0.");
        StateDict broken = StateDict.of(sd.asMap().entrySet().stream()
                        .filter(en -> !en.getKey().endsWith("norm1.bias") && !en.getKey().endsWith("linear2.weight"))
                        .collect(java.util.stream.Collectors.toMap(java.util.Map.Entry::getKey,
                                java.util.Map.Entry::getValue, (a, b) -> a, java.util.LinkedHashMap::new)))
                .with("layers.0.linear1.bias", HostTensor.of(new double[3], 3));
        StateDictException e = assertThrows(StateDictException.class,
                () -> TransformerEncoder.load(broken, CONFIG, 1, false));
        assertEquals(List.of("layers.0.linear2.weight [8, 16]", "layers.0.norm1.bias [8]"), e.missing());
        assertEquals(List.of("layers.0.linear1.bias: shape [3] in the state dict, the module needs [16]"),
                e.misShaped());
        assertTrue(e.unexpected().isEmpty(), e.unexpected().toString());
    }

    @Test
    void nonFiniteValuesAreRefusedWithNameAndIndexUnlessAllowed() {
        double[] w = layer(1).get("linear1.weight").data();
        w[5] = Double.NaN;
        w[7] = Double.POSITIVE_INFINITY;
        StateDict sd = layer(1).with("linear1.weight", HostTensor.of(w, 16, 8));
        StateDictException e = assertThrows(StateDictException.class,
                () -> TransformerEncoderLayer.load(sd, CONFIG));
        assertEquals(List.of("linear1.weight[5] = NaN"), e.nonFinite());
        TransformerEncoderLayer loaded = TransformerEncoderLayer.load(sd.allowingNonFinite(), CONFIG);
        assertTrue(Double.isNaN(loaded.stateDict().get("linear1.weight").get(5)));
    }

    @Test
    void aSelectedSubDictReportsFullNames() {
        StateDict all = layer(1).prefixed("encoder.layer.3.");
        StateDictException e = assertThrows(StateDictException.class,
                () -> Linear.load(all.select("encoder.layer.3.linear1."), 8, 4, true));
        assertTrue(e.getMessage().contains("encoder.layer.3.linear1.weight: shape [16, 8]"), e.getMessage());
    }

    @Test
    void configsThatCannotWorkFailAtConstruction() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TransformerEncoderLayer.Config.of(8, 2, 2, null, false));
        assertTrue(e.getMessage().contains("activation is null"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TransformerEncoderLayer.Config.of(8, 3, 2, Activation.RELU, false));
        assertTrue(e.getMessage().contains("nhead must divide dModel"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MultiHeadAttention.load(layer(1)
                .select("self_attn."), 8, 3));
        assertTrue(e.getMessage().contains("not divisible"), e.getMessage());
    }

    @Test
    void aMissingTensorAloneStillNamesEverythingRecordedSoFar() {
        StateDictException e = assertThrows(StateDictException.class,
                () -> SelfAttention.load(StateDict.of("W_query.weight", HostTensor.of(new double[4], 2, 2))));
        assertTrue(e.missing().contains("W_key.weight"), e.missing().toString());
        assertEquals(Shape.of(2, 2), StateDict.of("w", HostTensor.of(new double[4], 2, 2)).get("w").shape());
    }
}
