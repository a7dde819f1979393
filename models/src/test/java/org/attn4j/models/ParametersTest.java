package org.attn4j.models;

import static org.attn4j.models.Numerics.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.attn4j.api.Activation;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.Numerics.Target;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.tutorial.AttentionMasks;
import org.attn4j.models.tutorial.RunMode;
import org.attn4j.models.tutorial.TransformerEncoder;
import org.attn4j.models.tutorial.TransformerEncoderLayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Layers bound to a backend read their parameters from one long-lived owner and give the unbound numbers. */
class ParametersTest {

    static Stream<Target> targets() {
        return Numerics.targets().stream();
    }

    private static HostTensor random(SplittableRandom r, int... dims) {
        return HostTensor.of(r.doubles(Shape.of(dims).size(), -1, 1).toArray(), dims);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void boundLayersUploadOnceAndMatchTheUnboundLayers(Target t) {
        SplittableRandom r = new SplittableRandom(7);
        Linear linear = new Linear(random(r, 6, 4), random(r, 6));
        LayerNorm norm = new LayerNorm(6, 1e-5, random(r, 6), random(r, 6));
        Embedding table = new Embedding(random(r, 10, 4));
        int[] ids = {3, 1, 4, 1, 5, 9};
        try (Parameters p = Parameters.on(t.backend(), t.dtype()); Scope s = t.backend().newScope()) {
            Linear boundLinear = linear.bind(p);
            LayerNorm boundNorm = norm.bind(p);
            Embedding boundTable = table.bind(p);
            assertEquals(5, p.count());
            long weights = p.weight(linear.stateDict().get("weight")).byteSize()
                    + p.weight(table.stateDict().get("weight")).byteSize();
            assertTrue(weights >= (24 + 40) * (long) t.dtype().byteSize(), "a weight holds at least its values");
            assertEquals(weights + (6 + 6 + 6) * (long) t.dtype().byteSize(), p.byteSize(),
                    "the weights as their backend holds them (padding included) and the vectors");
            Tensor x = table.forward(s, ids, Shape.of(2, 3), t.dtype());
            assertClose("embedding", t, x.toDoubleArray(),
                    boundTable.forward(s, ids, Shape.of(2, 3), t.dtype()).toDoubleArray());
            Tensor y = linear.forward(s, x);
            assertClose("linear", t, y.toDoubleArray(), boundLinear.forward(s, x).toDoubleArray());
            assertClose("layer norm", t, norm.forward(s, y).toDoubleArray(), boundNorm.forward(s, y).toDoubleArray());
            assertSame(p.weight(linear.stateDict().get("weight")), p.weight(linear.stateDict().get("weight")));
            assertEquals(5, p.count());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void aBoundEncoderUploadsEveryParameterOnceAndMatchesTheUnboundOne(Target t) {
        TransformerEncoderLayer.Config config = TransformerEncoderLayer.Config.of(8, 2, 2, Activation.GELU, true);
        TransformerEncoder encoder = TransformerEncoder.of(List.of(TransformerEncoderLayer.random(config, 11),
                TransformerEncoderLayer.random(config, 12)), new LayerNorm(8, 1e-5, null, null));
        SplittableRandom r = new SplittableRandom(13);
        int perLayer = 6 + 2 + 2 + 2 + 2 + 2;
        try (Parameters p = Parameters.on(t.backend(), t.dtype()); Scope s = t.backend().newScope()) {
            TransformerEncoder bound = encoder.bind(p);
            assertEquals(2 * perLayer, p.count());
            Tensor x = s.tensor(r.doubles(2 * 5 * 8, -1, 1).toArray(), Shape.of(2, 5, 8), t.dtype());
            AttentionMasks causal = AttentionMasks.NONE.withCausal(true);
            double[] expected = encoder.forward(s, x, causal, RunMode.INFERENCE).toDoubleArray();
            for (int call = 0; call < 2; call++) {
                assertClose("bound encoder, call " + call, t, expected,
                        bound.forward(s, x, causal, RunMode.INFERENCE).toDoubleArray());
                assertEquals(2 * perLayer, p.count());
            }
            assertEquals(encoder.stateDict().names(), bound.stateDict().names());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void aClosedOwnerOrAnotherDtypeIsRefused(Target t) {
        SplittableRandom r = new SplittableRandom(8);
        Linear linear = new Linear(random(r, 3, 2), null);
        Parameters p = Parameters.on(t.backend(), t.dtype());
        Linear bound = linear.bind(p);
        DType other = t.dtype() == DType.F32 ? DType.F64 : DType.F32;
        try (Scope s = t.backend().newScope()) {
            Tensor x = s.tensor(new double[] {1, 2}, Shape.of(1, 2), t.dtype());
            bound.forward(s, x);
            if (t.backend().capabilities().supports(other)) {
                Tensor wrong = s.tensor(new double[] {1, 2}, Shape.of(1, 2), other);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> bound.forward(s, wrong));
                assertTrue(e.getMessage().contains("bound to " + t.dtype()), e.getMessage());
            }
            p.close();
            assertThrows(IllegalStateException.class, () -> bound.forward(s, x));
            assertThrows(IllegalStateException.class, () -> linear.bind(p));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void halfPrecisionParametersUploadExactly(Target t) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putShort((short) 0x3F80).putShort((short) 0xC2F7).flip();
        HostTensor bf = HostTensor.wrap(Shape.of(2), WeightType.BF16, b);
        try (Parameters p = Parameters.on(t.backend(), t.dtype())) {
            assertEquals(java.util.List.of(1.0, -123.5), java.util.Arrays.stream(p.upload(bf).toDoubleArray())
                    .boxed().toList());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void matricesKeepTheirStorageTypeUnlessOneIsChosenForAll(Target t) {
        float[] values = new float[4 * 64];
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) r.nextDouble(-1, 1);
        }
        HostTensor f32 = HostTensor.of(values, 4, 64);
        HostTensor bf16 = HostTensor.wrap(Shape.of(4, 64), WeightType.BF16,
                WeightType.BF16.encode(values, Shape.of(4, 64)));
        try (Parameters keep = Parameters.on(t.backend(), t.dtype())) {
            WeightType expected = t.dtype() == DType.F64 ? WeightType.F64 : WeightType.BF16;
            assertEquals(expected, keep.weight(bf16).type());
            assertEquals(t.dtype() == DType.F64 ? WeightType.F64 : WeightType.F32, keep.weight(f32).type());
        }
        if (t.dtype() == DType.F32) {
            try (Parameters q8 = Parameters.on(t.backend(), DType.F32, WeightType.Q8_0)) {
                assertEquals(WeightType.Q8_0, q8.weight(f32).type());
                float[] back = q8.weight(f32).toFloatArray();
                float[] expected = WeightType.Q8_0.decode(WeightType.Q8_0.encode(values, Shape.of(4, 64)),
                        Shape.of(4, 64));
                assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(back));
            }
        }
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
                () -> Parameters.on(t.backend(), DType.F64, WeightType.Q8_0));
        assertTrue(mismatch.getMessage().contains("F64"), mismatch.getMessage());
    }
}
