package org.attn4j.models.layers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The blocks both the encoders and the decoders are built from, on EJML: a block bound over parameters its caller
 * keeps ({@code bound}) gives the bits of one bound through {@link Parameters}, on a work scope's ops
 * ({@code apply}) as in the caller's scope ({@code forward}); RMS norm is its formula; a table read as a head is the
 * product with the table; a host block refuses {@code apply}, and misfit parameters are refused by name.
 */
class SharedBlocksTest {
    private final Backend backend = Backends.load("ejml");

    private static double[] random(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian();
        }
        return a;
    }

    private static void assertClose(String what, double tolerance, double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= tolerance + tolerance * Math.abs(expected[i]))) {
                fail(String.format("%s: index %d expected %.17g actual %.17g abs error %.3g rel error %.3g", what, i,
                        expected[i], actual[i], abs, abs / Math.abs(expected[i])));
            }
        }
    }

    private static void assertSameBits(String what, Tensor expected, Tensor actual) {
        assertEquals(expected.shape(), actual.shape(), what + ": shape");
        assertClose(what, 0, expected.toDoubleArray(), actual.toDoubleArray());
    }

    private static double tolerance(DType dtype) {
        return dtype == DType.F64 ? 1e-12 : 1e-5;
    }

    private static WeightType storage(DType dtype) {
        return dtype == DType.F64 ? WeightType.F64 : WeightType.F32;
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F64"})
    void aBlockBoundOverItsCallersParametersGivesTheBitsOfOneBoundThroughParameters(DType dtype) {
        Random r = new Random(21);
        int d = 6;
        int out = 5;
        HostTensor w = HostTensor.of(random(r, out * d), out, d);
        HostTensor b = HostTensor.of(random(r, out), out);
        HostTensor g = HostTensor.of(random(r, d), d);
        HostTensor beta = HostTensor.of(random(r, d), d);
        HostTensor table = HostTensor.of(random(r, 9 * d), 9, d);
        int[] ids = {4, 0, 8, 4, 2, 7};
        Shape idsShape = Shape.of(2, 3);
        try (Parameters p = Parameters.on(backend, dtype); Scope model = backend.newScope();
             Scope s = backend.newScope()) {
            Linear viaParameters = new Linear(w, b).bind(p);
            Linear viaCaller = Linear.bound(w.toWeight(model, storage(dtype)), b.toTensor(model, dtype), dtype);
            LayerNorm layerViaParameters = new LayerNorm(d, 1e-5, g, beta).bind(p);
            LayerNorm layerViaCaller = LayerNorm.bound(g.toTensor(model, dtype), beta.toTensor(model, dtype), 1e-5);
            RmsNorm rmsViaParameters = new RmsNorm(d, 1e-6, g).bind(p);
            RmsNorm rmsViaCaller = RmsNorm.bound(g.toTensor(model, dtype), 1e-6);
            Embedding tableViaParameters = new Embedding(table).bind(p);
            Embedding tableViaCaller = Embedding.bound(table.toWeight(model, storage(dtype)));

            Tensor x = tableViaParameters.forward(s, ids, idsShape, dtype);
            assertSameBits("embedding, apply", x, tableViaCaller.apply(s.ops(), ids, idsShape));
            assertSameBits("embedding, forward", x, tableViaCaller.forward(s, ids, idsShape, dtype));
            assertSameBits("layer norm, apply", layerViaParameters.forward(s, x), layerViaCaller.apply(s.ops(), x));
            assertSameBits("layer norm, forward", layerViaParameters.forward(s, x), layerViaCaller.forward(s, x));
            assertSameBits("rms norm, apply", rmsViaParameters.forward(s, x), rmsViaCaller.apply(s.ops(), x));
            assertSameBits("rms norm, forward", rmsViaParameters.forward(s, x), rmsViaCaller.forward(s, x));
            assertSameBits("linear, apply", viaParameters.forward(s, x), viaCaller.apply(s.ops(), x));
            assertSameBits("linear, forward", viaParameters.forward(s, x), viaCaller.forward(s, x));
            Tensor residual = s.tensor(random(r, 2 * 3 * out), Shape.of(2, 3, out), dtype);
            Epilogue epilogue = Epilogue.none().withResidual(residual);
            assertSameBits("linear with an epilogue", viaParameters.forward(s, x, epilogue),
                    viaCaller.apply(s.ops(), x, epilogue));
            assertEquals(new Linear(w, b).stateDict().names(), viaCaller.stateDict().names());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F64"})
    void rmsNormIsXOverTheRootMeanSquareTimesTheWeight(DType dtype) {
        Random r = new Random(22);
        int rows = 4;
        int d = 7;
        double eps = 1e-6;
        double[] x = random(r, rows * d);
        double[] w = random(r, d);
        double[] expected = new double[x.length];
        for (int i = 0; i < rows; i++) {
            double squares = 0;
            for (int j = 0; j < d; j++) {
                squares += x[i * d + j] * x[i * d + j];
            }
            double scale = 1 / Math.sqrt(squares / d + eps);
            for (int j = 0; j < d; j++) {
                expected[i * d + j] = x[i * d + j] * scale * w[j];
            }
        }
        RmsNorm norm = new RmsNorm(d, eps, HostTensor.of(w, d));
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            Tensor input = s.tensor(x, Shape.of(rows, d), dtype);
            assertClose("host rms norm", tolerance(dtype), expected, norm.forward(s, input).toDoubleArray());
            assertClose("bound rms norm", tolerance(dtype), expected, norm.bind(p).forward(s, input).toDoubleArray());
            double[] unweighted = new RmsNorm(d, eps, null).forward(s, input).toDoubleArray();
            for (int i = 0; i < expected.length; i++) {
                expected[i] /= w[i % d];
            }
            assertClose("rms norm without a weight", tolerance(dtype), expected, unweighted);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F64"})
    void aTableReadAsAHeadIsTheProductWithTheTable(DType dtype) {
        Random r = new Random(23);
        int v = 8;
        int d = 5;
        double[] table = random(r, v * d);
        double[] x = random(r, 3 * d);
        double[] expected = new double[3 * v];
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < v; k++) {
                double sum = 0;
                for (int j = 0; j < d; j++) {
                    sum += x[i * d + j] * table[k * d + j];
                }
                expected[i * v + k] = sum;
            }
        }
        Embedding host = new Embedding(HostTensor.of(table, v, d));
        try (Parameters p = Parameters.on(backend, dtype); Scope model = backend.newScope();
             Scope s = backend.newScope()) {
            Tensor input = s.tensor(x, Shape.of(3, d), dtype);
            assertClose("host head", tolerance(dtype), expected, host.asHead().forward(s, input).toDoubleArray());
            assertClose("head of a table bound through parameters", tolerance(dtype), expected,
                    host.bind(p).asHead().forward(s, input).toDoubleArray());
            Embedding bound = Embedding.bound(HostTensor.of(table, v, d).toWeight(model, storage(dtype)));
            assertClose("head of a table bound by its caller", tolerance(dtype), expected,
                    bound.asHead().apply(s.ops(), input).toDoubleArray());
            assertEquals(d, bound.asHead().inFeatures());
            assertEquals(v, bound.asHead().outFeatures());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F64"})
    void aHostBlockRefusesApplyAndABoundOneRefusesAnotherDtypeByName(DType dtype) {
        Random r = new Random(24);
        Linear linear = new Linear(HostTensor.of(random(r, 6), 2, 3), null);
        RmsNorm rms = new RmsNorm(3, 1e-6, null);
        LayerNorm layer = new LayerNorm(3, 1e-5, null, null);
        Embedding table = new Embedding(HostTensor.of(random(r, 12), 4, 3));
        DType other = dtype == DType.F32 ? DType.F64 : DType.F32;
        try (Scope model = backend.newScope(); Scope s = backend.newScope()) {
            Tensor x = s.tensor(random(r, 3), Shape.of(1, 3), dtype);
            assertMessage("Linear.apply", assertThrows(IllegalStateException.class, () -> linear.apply(s.ops(), x)));
            assertMessage("RmsNorm.apply", assertThrows(IllegalStateException.class, () -> rms.apply(s.ops(), x)));
            assertMessage("LayerNorm.apply", assertThrows(IllegalStateException.class, () -> layer.apply(s.ops(), x)));
            assertMessage("Embedding.apply", assertThrows(IllegalStateException.class,
                    () -> table.apply(s.ops(), new int[] {1}, Shape.of(1))));
            Linear bound = Linear.bound(HostTensor.of(random(r, 6), 2, 3).toWeight(model, storage(dtype)), null, dtype);
            Tensor wrong = s.tensor(random(r, 3), Shape.of(1, 3), other);
            assertMessage("bound to " + dtype, assertThrows(IllegalArgumentException.class,
                    () -> bound.forward(s, wrong)));
            RmsNorm boundRms = RmsNorm.bound(HostTensor.of(random(r, 3), 3).toTensor(model, dtype), 1e-6);
            assertMessage("RmsNorm: argument x", assertThrows(IllegalArgumentException.class,
                    () -> boundRms.forward(s, wrong)));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F64"})
    void parametersThatDoNotFitABlockAreRefusedByName(DType dtype) {
        Random r = new Random(25);
        try (Scope model = backend.newScope()) {
            var weight = HostTensor.of(random(r, 6), 2, 3).toWeight(model, storage(dtype));
            Tensor vector3 = HostTensor.of(random(r, 3), 3).toTensor(model, dtype);
            Tensor vector4 = HostTensor.of(random(r, 4), 4).toTensor(model, dtype);
            Tensor matrix = HostTensor.of(random(r, 6), 2, 3).toTensor(model, dtype);
            assertMessage("Linear: argument bias has shape [3]", assertThrows(IllegalArgumentException.class,
                    () -> Linear.bound(weight, vector3, dtype)));
            assertMessage("Linear.bound: argument weight is null", assertThrows(IllegalArgumentException.class,
                    () -> Linear.bound(null, null, dtype)));
            assertMessage("LayerNorm.bound: weight [3]", assertThrows(IllegalArgumentException.class,
                    () -> LayerNorm.bound(vector3, vector4, 1e-5)));
            assertMessage("RmsNorm.bound: argument weight has shape [2, 3]", assertThrows(
                    IllegalArgumentException.class, () -> RmsNorm.bound(matrix, 1e-6)));
            assertMessage("RmsNorm.bound: argument eps is -1.0", assertThrows(IllegalArgumentException.class,
                    () -> RmsNorm.bound(vector3, -1)));
            assertMessage("Embedding.bound: argument weight is null", assertThrows(IllegalArgumentException.class,
                    () -> Embedding.bound(null)));
        }
    }

    private static void assertMessage(String expected, Exception e) {
        assertTrue(e.getMessage().contains(expected), "expected a message with \"" + expected + "\": "
                + e.getMessage());
    }
}
