package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

class AbstractOpsTest {

    /** Records which compute method ran, with the shape it was handed; computes nothing. */
    private static final class RecordingOps extends AbstractOps<ToyBackend.ToyTensor> {
        final List<String> calls = new ArrayList<>();
        Runnable duringCompute = () -> { };
        private final ToyBackend.ToyScope scope;

        RecordingOps(ToyBackend.ToyScope scope) {
            super(scope, ToyBackend.ToyTensor.class);
            this.scope = scope;
        }

        private Tensor result(String call, Shape shape) {
            duringCompute.run();
            calls.add(call + " " + shape);
            return scope.zeros(shape, DType.F32);
        }

        @Override
        protected Tensor computeMatmul(ToyBackend.ToyTensor a, ToyBackend.ToyTensor b, boolean ta, boolean tb,
                                       Shape out) {
            return result("matmul", out);
        }

        @Override
        protected Tensor computeBinary(Binary kind, ToyBackend.ToyTensor a, ToyBackend.ToyTensor b, Shape out) {
            return result(kind.op(), out);
        }

        @Override
        protected Tensor computeScale(ToyBackend.ToyTensor x, double factor) {
            return result("scale", x.shape());
        }

        @Override
        protected Tensor computeExp(ToyBackend.ToyTensor x) {
            return result("exp", x.shape());
        }

        @Override
        protected Tensor computeReduce(Reduction kind, ToyBackend.ToyTensor x, int axis, boolean keepDims,
                                       Shape out) {
            return result(kind.op() + " axis " + axis, out);
        }

        @Override
        protected Tensor computeSoftmax(ToyBackend.ToyTensor x, int axis) {
            return result("softmax axis " + axis, x.shape());
        }

        @Override
        protected Tensor computeLayerNorm(ToyBackend.ToyTensor x, ToyBackend.ToyTensor gamma,
                                          ToyBackend.ToyTensor beta, double eps) {
            return result("layerNorm", x.shape());
        }

        @Override
        protected Tensor computeRelu(ToyBackend.ToyTensor x) {
            return result("relu", x.shape());
        }

        @Override
        protected Tensor computeGelu(ToyBackend.ToyTensor x, GeluApproximation approximation) {
            return result("gelu", x.shape());
        }

        @Override
        protected Tensor computeLinear(ToyBackend.ToyTensor x, ToyBackend.ToyTensor weight,
                                       ToyBackend.ToyTensor bias, Shape out) {
            return result("linear", out);
        }

        @Override
        protected Tensor computeEmbedding(ToyBackend.ToyTensor weight, int[] ids, Shape out) {
            return result("embedding", out);
        }

        @Override
        protected Tensor computeReshape(ToyBackend.ToyTensor x, Shape out) {
            return result("reshape", out);
        }

        @Override
        protected Tensor computePermute(ToyBackend.ToyTensor x, int[] axes, Shape out) {
            return result("permute " + Arrays.toString(axes), out);
        }

        @Override
        protected Tensor computeConcat(List<ToyBackend.ToyTensor> parts, int axis, Shape out) {
            return result("concat axis " + axis, out);
        }

        @Override
        protected List<Tensor> computeSplit(ToyBackend.ToyTensor x, int axis, List<Shape> pieces) {
            return List.of(result("split axis " + axis, pieces.get(0)));
        }

        @Override
        protected Tensor computeCast(ToyBackend.ToyTensor x, DType dtype) {
            return result("cast", x.shape());
        }

        @Override
        protected Tensor computeDropout(ToyBackend.ToyTensor x, double p, long seed) {
            return result("dropout", x.shape());
        }

        @Override
        protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
            return result("additiveMask", mask.shape());
        }

        @Override
        protected AttentionResult computeAttention(ToyBackend.ToyTensor q, ToyBackend.ToyTensor k,
                                                   ToyBackend.ToyTensor v, ToyBackend.ToyTensor additiveMask,
                                                   AttentionOptions options, ShapeChecks.AttentionShape shape) {
            return new AttentionResult(result("attention", shape.output()), null);
        }
    }

    @Test
    void everyOpOfTheInterfaceIsFinalSoNoBackendSkipsTheChecks() {
        for (Method m : Ops.class.getMethods()) {
            if (m.isDefault() || Modifier.isStatic(m.getModifiers()) || m.getName().equals("scope")) {
                continue;
            }
            Method impl = implementationOf(m);
            assertTrue(Modifier.isFinal(impl.getModifiers()), () -> m.getName() + " is not final in AbstractOps");
        }
    }

    private static Method implementationOf(Method m) {
        try {
            return AbstractOps.class.getMethod(m.getName(), m.getParameterTypes());
        } catch (NoSuchMethodException e) {
            throw new AssertionError("AbstractOps lacks " + m, e);
        }
    }

    @Test
    void aValidCallReachesTheComputeMethodWithTheResultShapeAndNormalisedAxes() {
        try (ToyBackend.ToyScope s = new ToyBackend().newScope()) {
            RecordingOps ops = new RecordingOps(s);
            Tensor a = s.zeros(Shape.of(2, 1, 3, 4), DType.F32);
            Tensor b = s.zeros(Shape.of(5, 4, 6), DType.F32);
            ops.matmul(a, b);
            ops.add(a, s.zeros(Shape.of(4), DType.F32));
            ops.sum(a, -1, false);
            ops.permute(a, -1, 0, 1, 2);
            ops.concat(List.of(a, a), -2);
            assertEquals(List.of("matmul [2, 5, 3, 6]", "add [2, 1, 3, 4]", "sum axis 3 [2, 1, 3]",
                    "permute [3, 0, 1, 2] [4, 2, 1, 3]", "concat axis 2 [2, 1, 6, 4]"), ops.calls);
        }
    }

    @Test
    void aPermutationThatMovesOnlyAxesOfLengthOneIsAReshape() {
        try (ToyBackend.ToyScope s = new ToyBackend().newScope()) {
            RecordingOps ops = new RecordingOps(s);
            ops.permute(s.zeros(Shape.of(2, 1, 3, 4), DType.F32), 1, 0, 2, 3);
            ops.permute(s.zeros(Shape.of(1, 1, 9, 4), DType.F32), 0, 2, 1, 3);
            ops.permute(s.zeros(Shape.of(2, 3), DType.F32), 0, 1);
            ops.permute(s.zeros(Shape.of(1, 4, 9, 4), DType.F32), 0, 2, 1, 3);
            ops.permute(s.zeros(Shape.of(2, 3), DType.F32), 1, 0);
            assertEquals(List.of("reshape [1, 2, 3, 4]", "reshape [1, 9, 1, 4]", "reshape [2, 3]",
                    "permute [0, 2, 1, 3] [1, 9, 4, 4]", "permute [1, 0] [3, 2]"), ops.calls);
        }
    }

    @Test
    void aRejectedCallNeverReachesTheComputeMethod() {
        try (ToyBackend.ToyScope s = new ToyBackend().newScope()) {
            RecordingOps ops = new RecordingOps(s);
            Tensor a = s.zeros(Shape.of(2, 3), DType.F32);
            Tensor d = s.zeros(Shape.of(3, 2), DType.F64);
            String m = assertThrows(IllegalArgumentException.class, () -> ops.matmul(a, a)).getMessage();
            assertTrue(m.startsWith("matmul: argument b of shape [2, 3] has inner dimension 2"), m);
            m = assertThrows(IllegalArgumentException.class, () -> ops.matmul(a, d)).getMessage();
            assertTrue(m.contains("dtype F64"), m);
            m = assertThrows(IllegalArgumentException.class, () -> ops.reshape(a, (int[]) null)).getMessage();
            assertEquals("reshape: argument shape is null", m);
            m = assertThrows(IllegalArgumentException.class, () -> ops.gelu(a, null)).getMessage();
            assertEquals("gelu: argument approximation is null", m);
            m = assertThrows(IllegalArgumentException.class, () -> ops.dropout(a, 1.5, 1)).getMessage();
            assertTrue(m.startsWith("dropout: argument p is 1.5"), m);
            m = assertThrows(IllegalArgumentException.class, () -> ops.exp(null)).getMessage();
            assertEquals("exp: argument x is null", m);
            assertEquals(List.of(), ops.calls);
        }
    }

    @Test
    void anOpPinsItsOperandsUntilItReturnsAndNamesItselfMeanwhile() {
        ToyBackend backend = new ToyBackend();
        ToyBackend.ToyScope owner = backend.newScope();
        Tensor x = owner.zeros(Shape.of(2), DType.F32);
        try (ToyBackend.ToyScope s = backend.newScope()) {
            RecordingOps ops = new RecordingOps(s);
            List<String> during = new ArrayList<>();
            ops.duringCompute = () -> {
                owner.close();
                during.add(AbstractScope.runningOp("no op") + " released " + backend.released);
            };
            ops.exp(x);
            assertEquals(List.of("exp released []"), during);
            assertEquals(List.of("z[2]"), backend.released);
            assertEquals("no op", AbstractScope.runningOp("no op"));
        }
    }

    @Test
    void aClosedScopeIsReportedBeforeAnythingElse() {
        ToyBackend.ToyScope s = new ToyBackend().newScope();
        RecordingOps ops = new RecordingOps(s);
        s.close();
        assertThrows(IllegalStateException.class, () -> ops.additiveMask(null, null));
        assertThrows(IllegalStateException.class, () -> ops.exp(null));
        assertEquals(List.of(), ops.calls);
    }
}
