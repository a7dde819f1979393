package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * Runs one golden case of group {@code ops} or {@code attention} through the api, following the manifest's
 * conventions: boolean masks are stored as 1.0 (may attend) / 0.0, ids as exact integers in F64.
 */
final class GoldenCall {
    private final GoldenCase golden;
    private final FixtureSource fixtures;
    private final Scope scope;
    private final DType dtype;

    private GoldenCall(GoldenCase golden, FixtureSource fixtures, Scope scope, DType dtype) {
        this.golden = golden;
        this.fixtures = fixtures;
        this.scope = scope;
        this.dtype = dtype;
    }

    /**
     * @param golden the case
     * @param fixtures its tensors
     * @param scope where inputs and results live
     * @param dtype the element type the inputs are created in (rounded to nearest for F32)
     * @param returnWeights for attention: whether to ask for the weights
     * @return the outputs in manifest order (for attention without weights, only {@code out})
     */
    static List<HostTensor> run(GoldenCase golden, FixtureSource fixtures, Scope scope, DType dtype,
                                boolean returnWeights) {
        return new GoldenCall(golden, fixtures, scope, dtype).call(returnWeights);
    }

    private HostTensor host(String role) {
        return fixtures.tensor(golden, golden.name() + "/" + role);
    }

    private Tensor in(String role) {
        return host(role).toTensor(scope, dtype);
    }

    private Mask mask(String role) {
        HostTensor m = host(role);
        boolean[] allowed = new boolean[(int) m.shape().size()];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = m.get(i) != 0.0;
        }
        return Mask.of(m.shape(), allowed);
    }

    private static HostTensor flags(Mask mask) {
        boolean[] allowed = mask.toArray();
        double[] d = new double[allowed.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = allowed[i] ? 1.0 : 0.0;
        }
        return new HostTensor(mask.shape(), d);
    }

    private List<HostTensor> call(boolean returnWeights) {
        if (golden.op().equals("maskCausal")) {
            return List.of(flags(Mask.causal(golden.integer("lq"), golden.integer("lk"))));
        }
        if (golden.op().equals("maskKeyPadding")) {
            return List.of(flags(Mask.keyPadding(golden.integers("validLengths"), golden.integer("lk"))));
        }
        Ops ops = scope.ops();
        List<Tensor> results = switch (golden.op()) {
            case "matmul" -> List.of(ops.matmul(in("a"), in("b"), golden.bool("transposeA"),
                    golden.bool("transposeB")));
            case "add" -> List.of(ops.add(in("a"), in("b")));
            case "sub" -> List.of(ops.sub(in("a"), in("b")));
            case "mul" -> List.of(ops.mul(in("a"), in("b")));
            case "div" -> List.of(ops.div(in("a"), in("b")));
            case "scale" -> List.of(ops.scale(in("x"), golden.number("s")));
            case "exp" -> List.of(ops.exp(in("x")));
            case "relu" -> List.of(ops.relu(in("x")));
            case "silu" -> List.of(ops.silu(in("x")));
            case "rmsNorm" -> List.of(golden.hasInput("residual")
                    ? ops.rmsNorm(in("x"), in("residual"), golden.bool("hasWeight") ? in("weight") : null,
                            golden.number("eps"))
                    : ops.rmsNorm(in("x"), golden.bool("hasWeight") ? in("weight") : null, golden.number("eps")));
            case "rope" -> List.of(golden.hasInput("inverseFrequencies")
                    ? ops.rope(in("x"), RotaryEmbedding.ofInverseFrequencies(RopeLayout.valueOf(golden.string("layout")),
                            host("inverseFrequencies").data()).withAttentionScaling(golden.number("attentionScaling")),
                            golden.integer("offset"))
                    : ops.rope(in("x"), RopeLayout.valueOf(golden.string("layout")), golden.number("base"),
                            golden.integer("offset")));
            case "softcap" -> List.of(ops.softcap(in("x"), golden.number("cap")));
            case "writeSlice" -> List.of(ops.writeSlice(in("target"), in("source"), golden.integer("axis"),
                    golden.integer("offset")));
            case "max" -> List.of(ops.max(in("x"), golden.integer("axis"), golden.bool("keepDims")));
            case "sum" -> List.of(ops.sum(in("x"), golden.integer("axis"), golden.bool("keepDims")));
            case "mean" -> List.of(ops.mean(in("x"), golden.integer("axis"), golden.bool("keepDims")));
            case "variance" -> List.of(ops.variance(in("x"), golden.integer("axis"), golden.bool("keepDims")));
            case "softmax" -> List.of(ops.softmax(in("x"), golden.integer("axis")));
            case "layerNorm" -> List.of(golden.hasInput("residual")
                    ? ops.layerNorm(in("x"), in("residual"), golden.bool("hasGamma") ? in("gamma") : null,
                            golden.bool("hasBeta") ? in("beta") : null, golden.number("eps"))
                    : ops.layerNorm(in("x"), golden.bool("hasGamma") ? in("gamma") : null,
                            golden.bool("hasBeta") ? in("beta") : null, golden.number("eps")));
            case "gelu" -> List.of(ops.gelu(in("x"), GeluApproximation.valueOf(golden.string("approximation"))));
            case "linear" -> List.of(golden.hasParam("weightType") ? weightLinear(ops)
                    : ops.linear(in("x"), in("w"), golden.bool("hasBias") ? in("b") : null));
            case "packedAttention" -> packedAttention(returnWeights);
            case "embedding" -> {
                HostTensor ids = host("ids");
                int[] flat = new int[(int) ids.shape().size()];
                for (int i = 0; i < flat.length; i++) {
                    flat[i] = (int) ids.get(i);
                }
                yield List.of(golden.hasParam("weightType") ? ops.embedding(weight("weight"), flat, ids.shape())
                        : ops.embedding(in("weight"), flat, ids.shape()));
            }
            case "reshape" -> List.of(ops.reshape(in("x"), golden.integers("shape")));
            case "permute" -> List.of(ops.permute(in("x"), golden.integers("axes")));
            case "transpose" -> List.of(ops.transpose(in("x"), golden.integer("dim0"), golden.integer("dim1")));
            case "concat" -> {
                List<Tensor> parts = new ArrayList<>();
                for (String name : golden.inputs()) {
                    parts.add(in(GoldenCase.role(name)));
                }
                yield List.of(ops.concat(parts, golden.integer("axis")));
            }
            case "split" -> ops.split(in("x"), golden.integers("sizes"), golden.integer("axis"));
            case "chunk" -> ops.chunk(in("x"), golden.integer("n"), golden.integer("axis"));
            case "cast" -> List.of(ops.cast(in("x"), DType.valueOf(golden.string("dtype"))));
            case "dropout" -> List.of(ops.dropout(in("x"), golden.number("p"), golden.longValue("seed")));
            case "additiveMask" -> List.of(ops.additiveMask(additiveMaskSource(), dtype));
            case "attention" -> attention(returnWeights);
            default -> throw new IllegalArgumentException("golden case " + golden.name() + " has op "
                    + golden.op() + ", which this kit does not know; update the tck");
        };
        List<HostTensor> out = new ArrayList<>(results.size());
        for (Tensor t : results) {
            out.add(HostTensor.copyOf(t));
        }
        return out;
    }

    private Mask additiveMaskSource() {
        return switch (golden.string("maskKind")) {
            case "causal" -> Mask.causal(golden.integer("lq"), golden.integer("lk"));
            case "keyPadding" -> Mask.keyPadding(golden.integers("validLengths"), golden.integer("lk"));
            default -> mask("mask");
        };
    }

    /**
     * A weight of the case's storage type holding the golden values, which the generator already rounded or
     * quantized to that type, so binding them is exact; F64 runs bind them as F64.
     */
    private Weight weight(String role) {
        HostTensor h = host(role);
        WeightType type = dtype == DType.F64 ? WeightType.F64 : WeightType.valueOf(golden.string("weightType"));
        return h.toWeight(scope, type);
    }

    private Tensor weightLinear(Ops ops) {
        Epilogue epilogue = Epilogue.none().withActivation(Activation.valueOf(golden.string("activation")))
                .withGate(golden.bool("gated")).withResidual(golden.bool("hasResidual") ? in("residual") : null);
        return ops.linear(in("x"), weight("w"), golden.bool("hasBias") ? in("b") : null, epilogue);
    }

    private List<Tensor> packedAttention(boolean returnWeights) {
        AttentionResult r = scope.ops().packedAttention(in("qkv"), golden.integer("heads"), golden.integer("kvHeads"),
                options(returnWeights));
        return returnWeights ? List.of(r.output(), r.weights()) : List.of(r.output());
    }

    private AttentionOptions options(boolean returnWeights) {
        AttentionOptions options = AttentionOptions.defaults().withCausal(golden.bool("causal"))
                .withWeights(returnWeights);
        if (golden.param("scale") != null) {
            options = options.withScale(golden.number("scale"));
        }
        if (golden.number("dropoutP") > 0) {
            options = options.withDropout(golden.number("dropoutP"), golden.longValue("dropoutSeed"));
        }
        if (golden.hasInput("mask")) {
            options = options.withMask(mask("mask"));
        }
        if (golden.hasInput("additiveMask")) {
            options = options.withAdditiveMask(in("additiveMask"));
        }
        return options;
    }

    private List<Tensor> attention(boolean returnWeights) {
        AttentionOptions options = AttentionOptions.defaults().withCausal(golden.bool("causal"))
                .withWeights(returnWeights);
        if (golden.hasParam("causalAlignment")) {
            options = options.withCausalAlignment(CausalAlignment.valueOf(golden.string("causalAlignment")));
        }
        if (golden.hasParam("window")) {
            options = options.withWindow(golden.integer("window"));
        }
        if (golden.hasParam("keyLength")) {
            options = options.withKeyLength(golden.integer("keyLength"));
        }
        if (golden.hasParam("logitSoftcap")) {
            options = options.withLogitSoftcap(golden.number("logitSoftcap"));
        }
        if (golden.param("scale") != null) {
            options = options.withScale(golden.number("scale"));
        }
        if (golden.number("dropoutP") > 0) {
            options = options.withDropout(golden.number("dropoutP"), golden.longValue("dropoutSeed"));
        }
        if (golden.hasInput("mask")) {
            options = options.withMask(mask("mask"));
        }
        if (golden.hasInput("additiveMask")) {
            options = options.withAdditiveMask(in("additiveMask"));
        }
        AttentionResult r = scope.ops().attention(in("q"), in("k"), in("v"), options);
        List<Tensor> out = new ArrayList<>();
        out.add(r.output());
        if (returnWeights) {
            out.add(r.weights());
        }
        return out;
    }
}
