package org.attn4j.tck;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * A caller's mistakes and the exception every backend must throw for each: {@link IllegalArgumentException} for
 * a bad shape, dtype, axis, id or probability, {@link IllegalStateException} for a closed tensor or scope. The
 * message must name the op, so that the same mistake reads the same on every backend.
 */
final class BadInputSuite {

    private BadInputSuite() {
    }

    /** Makes the mistake in a fresh scope; must throw. */
    private interface Mistake {
        void make(Scope scope, DType dtype);
    }

    /** A mistake, the exception it must raise, and what the message must name besides the op. */
    private record Case(String id, String op, Class<? extends RuntimeException> expected, Set<Feature> needs,
                        Mistake mistake, List<String> mentions) {
        Case(String id, String op, Class<? extends RuntimeException> expected, Set<Feature> needs, Mistake mistake) {
            this(id, op, expected, needs, mistake, List.of());
        }
    }

    /** A null where the op needs a value: IllegalArgumentException naming the op and the argument. */
    private static Case nullArgument(String op, String argument, Mistake mistake) {
        return new Case(op + "_null_" + argument, op, IllegalArgumentException.class, Set.of(), mistake,
                List.of("argument " + argument, "null"));
    }

    /** A tensor too large for any machine: IllegalArgumentException naming the op, the shape and the bytes. */
    private static Case tooLarge(String id, String op, Shape shape, Mistake mistake) {
        return new Case(id, op, IllegalArgumentException.class, Set.of(), mistake, List.of(shape.toString(), "bytes"));
    }

    private static List<Case> nullsAndSizes() {
        Shape huge = Shape.of(1 << 20, 1 << 20, 1 << 10);
        return List.of(
                nullArgument("tensor", "data", (s, t) -> s.tensor((float[]) null, Shape.of(2))),
                nullArgument("tensor", "shape", (s, t) -> s.tensor(new double[2], null, t)),
                nullArgument("tensor", "dtype", (s, t) -> s.tensor(new double[2], Shape.of(2), null)),
                nullArgument("zeros", "shape", (s, t) -> s.zeros(null, t)),
                nullArgument("zeros", "dtype", (s, t) -> s.zeros(Shape.of(2), null)),
                nullArgument("reshape", "shape", (s, t) -> s.ops().reshape(ones(s, t, 2, 3), (int[]) null)),
                nullArgument("permute", "axes", (s, t) -> s.ops().permute(ones(s, t, 2, 3), (int[]) null)),
                nullArgument("transpose", "x", (s, t) -> s.ops().transpose(null, 0, 1)),
                nullArgument("matmul", "a", (s, t) -> s.ops().matmul(null, ones(s, t, 2, 3))),
                nullArgument("add", "a", (s, t) -> s.ops().add(null, ones(s, t, 2))),
                nullArgument("concat", "parts", (s, t) -> s.ops().concat(null, 0)),
                nullArgument("split", "sizes", (s, t) -> s.ops().split(ones(s, t, 4, 2), null, 0)),
                nullArgument("chunk", "x", (s, t) -> s.ops().chunk(null, 2, 0)),
                nullArgument("embedding", "ids", (s, t) -> s.ops().embedding(ones(s, t, 4, 3), null, Shape.of(2))),
                nullArgument("embedding", "idsShape", (s, t) -> s.ops().embedding(ones(s, t, 4, 3), new int[2], null)),
                nullArgument("cast", "dtype", (s, t) -> s.ops().cast(ones(s, t, 2), null)),
                nullArgument("gelu", "approximation", (s, t) -> s.ops().gelu(ones(s, t, 2), null)),
                nullArgument("rope", "rotary", (s, t) -> s.ops().rope(ones(s, t, 2, 4), (RotaryEmbedding) null, 0)),
                nullArgument("rope", "layout", (s, t) -> s.ops().rope(ones(s, t, 2, 4), null, 1e4, 0)),
                nullArgument("additiveMask", "mask", (s, t) -> s.ops().additiveMask(null, t)),
                tooLarge("zeros_too_large", "zeros", huge, (s, t) -> s.zeros(huge, t)),
                tooLarge("matmul_result_too_large", "matmul", Shape.of(1 << 21, 1 << 21),
                        (s, t) -> s.ops().matmul(ones(s, t, 1 << 21, 1), ones(s, t, 1, 1 << 21))),
                new Case("shape_size_past_long", "Shape", IllegalArgumentException.class, Set.of(),
                        (s, t) -> Shape.of(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE)),
                new Case("causal_mask_past_int", "Mask.causal", IllegalArgumentException.class, Set.of(),
                        (s, t) -> Mask.causal(70_000, 70_000), List.of("bytes")),
                new Case("key_padding_mask_past_int", "Mask.keyPadding", IllegalArgumentException.class, Set.of(),
                        (s, t) -> Mask.keyPadding(new int[70_000], 70_000), List.of("bytes")));
    }

    static List<TckCase> plan() {
        Class<IllegalArgumentException> iae = IllegalArgumentException.class;
        Class<IllegalStateException> ise = IllegalStateException.class;
        List<Case> mistakes = List.of(
                new Case("matmul_inner_dims_differ", "matmul", iae, Set.of(),
                        (s, t) -> s.ops().matmul(ones(s, t, 2, 3), ones(s, t, 4, 5)), List.of("b", "[2, 3]", "[4, 5]")),
                new Case("matmul_rank1_operand", "matmul", iae, Set.of(),
                        (s, t) -> s.ops().matmul(ones(s, t, 3), ones(s, t, 3, 2))),
                new Case("add_shapes_do_not_broadcast", "add", iae, Set.of(),
                        (s, t) -> s.ops().add(ones(s, t, 2, 3), ones(s, t, 4)), List.of("b", "[2, 3]", "[4]")),
                new Case("add_dtypes_differ", "add", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().add(ones(s, DType.F32, 2, 3), ones(s, DType.F64, 2, 3)),
                        List.of("b", "F64", "F32")),
                new Case("mul_shapes_do_not_broadcast", "mul", iae, Set.of(),
                        (s, t) -> s.ops().mul(ones(s, t, 2, 3), ones(s, t, 3, 3)), List.of("[2, 3]", "[3, 3]")),
                new Case("mul_dtypes_differ", "mul", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().mul(ones(s, DType.F32, 2, 3), ones(s, DType.F64, 2, 3)),
                        List.of("F64", "F32")),
                new Case("matmul_dtypes_differ", "matmul", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().matmul(ones(s, DType.F32, 2, 3), ones(s, DType.F64, 3, 2)),
                        List.of("b", "[3, 2]", "[2, 3]")),
                new Case("softmax_axis_out_of_range", "softmax", iae, Set.of(),
                        (s, t) -> s.ops().softmax(ones(s, t, 2, 3), 2)),
                new Case("sum_axis_out_of_range", "sum", iae, Set.of(),
                        (s, t) -> s.ops().sum(ones(s, t, 2, 3), -3, false), List.of("axis", "[2, 3]")),
                new Case("reshape_to_another_size", "reshape", iae, Set.of(),
                        (s, t) -> s.ops().reshape(ones(s, t, 2, 3), 4, 2), List.of("[2, 3]")),
                new Case("permute_not_a_permutation", "permute", iae, Set.of(),
                        (s, t) -> s.ops().permute(ones(s, t, 2, 3, 4), 0, 0, 1), List.of("[2, 3, 4]")),
                new Case("concat_shapes_differ", "concat", iae, Set.of(),
                        (s, t) -> s.ops().concat(List.of(ones(s, t, 2, 3), ones(s, t, 2, 4)), 0),
                        List.of("parts[1]", "[2, 4]", "[2, 3]")),
                new Case("split_sizes_do_not_sum", "split", iae, Set.of(),
                        (s, t) -> s.ops().split(ones(s, t, 5, 2), new int[] {2, 2}, 0), List.of("sizes", "[5, 2]")),
                new Case("chunk_zero_pieces", "chunk", iae, Set.of(),
                        (s, t) -> s.ops().chunk(ones(s, t, 5, 2), 0, 0)),
                new Case("linear_weight_shape", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), ones(s, t, 4, 5), null),
                        List.of("weight", "[2, 3]", "[4, 5]")),
                new Case("layerNorm_gamma_shape", "layerNorm", iae, Set.of(),
                        (s, t) -> s.ops().layerNorm(ones(s, t, 2, 3), ones(s, t, 4), null, 1e-5),
                        List.of("gamma", "[2, 3]", "[4]")),
                new Case("layerNorm_negative_eps", "layerNorm", iae, Set.of(),
                        (s, t) -> s.ops().layerNorm(ones(s, t, 2, 3), null, null, -1e-5)),
                new Case("concat_no_parts", "concat", iae, Set.of(),
                        (s, t) -> s.ops().concat(List.of(), 0)),
                new Case("embedding_id_out_of_range", "embedding", iae, Set.of(),
                        (s, t) -> s.ops().embedding(ones(s, t, 4, 3), new int[] {1, 4}, Shape.of(2)),
                        List.of("ids[1]")),
                new Case("dropout_probability_above_one", "dropout", iae, Set.of(Feature.OPTIONAL_DROPOUT),
                        (s, t) -> s.ops().dropout(ones(s, t, 2, 3), 1.5, 0), List.of("p", "1.5")),
                new Case("attention_key_dim_differs", "attention", iae, Set.of(),
                        (s, t) -> s.ops().attention(ones(s, t, 1, 1, 3, 4), ones(s, t, 1, 1, 5, 6),
                                ones(s, t, 1, 1, 5, 4), AttentionOptions.defaults()),
                        List.of("k", "[1, 1, 3, 4]", "[1, 1, 5, 6]")),
                new Case("attention_value_length_differs", "attention", iae, Set.of(),
                        (s, t) -> s.ops().attention(ones(s, t, 1, 2, 3, 4), ones(s, t, 1, 2, 5, 4),
                                ones(s, t, 1, 2, 4, 4), AttentionOptions.defaults()),
                        List.of("v", "[1, 2, 4, 4]", "[1, 2, 5, 4]")),
                new Case("attention_additive_mask_does_not_broadcast", "attention", iae, Set.of(),
                        (s, t) -> s.ops().attention(ones(s, t, 1, 2, 3, 4), ones(s, t, 1, 2, 5, 4),
                                ones(s, t, 1, 2, 5, 4), AttentionOptions.defaults()
                                        .withAdditiveMask(ones(s, t, 2, 1, 5, 1))),
                        List.of("additiveMask", "[2, 1, 5, 1]")),
                new Case("attention_mask_does_not_broadcast", "attention", iae, Set.of(),
                        (s, t) -> s.ops().attention(ones(s, t, 1, 1, 3, 4), ones(s, t, 1, 1, 5, 4),
                                ones(s, t, 1, 1, 5, 4), AttentionOptions.defaults()
                                        .withMask(Mask.causal(4, 4))), List.of("mask", "[4, 4]", "[1, 1, 3, 5]")),
                new Case("attention_additive_mask_dtype_differs", "attention", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().attention(ones(s, DType.F32, 1, 1, 3, 4), ones(s, DType.F32, 1, 1, 5, 4),
                                ones(s, DType.F32, 1, 1, 5, 4), AttentionOptions.defaults()
                                        .withAdditiveMask(ones(s, DType.F64, 3, 5))), List.of("additiveMask", "F64")),
                new Case("rope_rotates_more_features_than_x_has", "rope", iae, Set.of(),
                        (s, t) -> s.ops().rope(ones(s, t, 1, 2, 3, 8),
                                RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 1e4, 12), 0),
                        List.of("rotary", "12", "[1, 2, 3, 8]")),
                new Case("rope_negative_offset", "rope", iae, Set.of(),
                        (s, t) -> s.ops().rope(ones(s, t, 2, 3, 8), RotaryEmbedding.of(RopeLayout.INTERLEAVED, 1e4, 8),
                                -1), List.of("offset", "-1", "[2, 3, 8]")),
                new Case("softcap_cap_not_positive", "softcap", iae, Set.of(),
                        (s, t) -> s.ops().softcap(ones(s, t, 2, 3), 0.0), List.of("cap", "0.0")),
                new Case("attention_null_options", "attention", iae, Set.of(),
                        (s, t) -> s.ops().attention(ones(s, t, 1, 1, 3, 4), ones(s, t, 1, 1, 5, 4),
                                ones(s, t, 1, 1, 5, 4), null), List.of("options")),
                new Case("tensor_data_length", "tensor", iae, Set.of(),
                        (s, t) -> s.tensor(new double[5], Shape.of(2, 3), t), List.of("5", "[2, 3]")),
                new Case("tensor_float_data_length", "tensor", iae, Set.of(),
                        (s, t) -> s.tensor(new float[3], Shape.of(2, 2)), List.of("3", "[2, 2]")),
                new Case("op_on_a_closed_tensor", "relu", ise, Set.of(), (s, t) -> s.ops().relu(closed(s, t, 2, 2)),
                        List.of("closed")),
                new Case("add_on_a_closed_tensor", "add", ise, Set.of(),
                        (s, t) -> s.ops().add(closed(s, t, 2, 2), ones(s, t, 2, 2)), List.of("closed")),
                new Case("reshape_a_closed_tensor", "reshape", ise, Set.of(),
                        (s, t) -> s.ops().reshape(closed(s, t, 2, 2), 1, 1, 2, 2), List.of("closed")),
                new Case("attention_on_a_closed_tensor", "attention", ise, Set.of(), (s, t) -> {
                    Tensor q = ones(s, t, 1, 1, 2, 2);
                    s.ops().attention(q, closed(s, t, 1, 1, 2, 2), q, AttentionOptions.defaults());
                }, List.of("closed")),
                new Case("op_on_a_closed_scope", "relu", ise, Set.of(), (s, t) -> {
                    Tensor live = ones(s, t, 2, 2);
                    Scope other = s.backend().newScope();
                    Ops ops = other.ops();
                    other.close();
                    ops.relu(live);
                }, List.of("scope is closed")),
                new Case("zeros_on_a_closed_scope", "zeros", ise, Set.of(), (s, t) -> {
                    Scope other = s.backend().newScope();
                    other.close();
                    other.zeros(Shape.of(1), t);
                }, List.of("closed")),
                new Case("read_a_closed_tensor", "toFloatArray", ise, Set.of(),
                        (s, t) -> closed(s, t, 2, 2).toFloatArray(), List.of("closed")),
                new Case("read_a_closed_tensor_as_doubles", "toDoubleArray", ise, Set.of(),
                        (s, t) -> closed(s, t, 2, 2).toDoubleArray(), List.of("closed")));
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            for (Case c : concat(concat(mistakes, nullsAndSizes()), weightsAndFusedOps())) {
                cases.add(new TckCase("bad_input_" + c.id(), Kind.BAD_INPUT, c.op(), dtype, dtype.name(), c.needs(),
                        backend -> check(backend, c, dtype)));
            }
        }
        return cases;
    }

    private static List<Case> concat(List<Case> a, List<Case> b) {
        List<Case> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** @return a tensor of a scope that is closed already */
    /** Mistakes with weights and the fused ops. */
    private static List<Case> weightsAndFusedOps() {
        Class<IllegalArgumentException> iae = IllegalArgumentException.class;
        Class<IllegalStateException> ise = IllegalStateException.class;
        return List.of(
                new Case("weight_bytes_do_not_fit_the_shape", "weight", iae, Set.of(),
                        (s, t) -> s.weight(ByteBuffer.allocate(10), WeightType.BF16, Shape.of(2, 3)),
                        List.of("[2, 3]", "12", "10")),
                new Case("weight_rows_not_whole_blocks", "weight", iae, Set.of(),
                        (s, t) -> s.weight(ByteBuffer.allocate(68), WeightType.Q8_0, Shape.of(2, 48)),
                        List.of("[2, 48]", "32")),
                new Case("weight_not_a_matrix", "weight", iae, Set.of(),
                        (s, t) -> s.weight(ByteBuffer.allocate(96), WeightType.F32, Shape.of(2, 3, 4)),
                        List.of("[2, 3, 4]")),
                new Case("weight_block_scale_not_finite", "weight", iae, Set.of(), (s, t) -> {
                    ByteBuffer b = WeightType.Q4_0.encode(new float[64], Shape.of(1, 64))
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    b.putShort(18, (short) 0x7c00);
                    s.weight(b, WeightType.Q4_0, Shape.of(1, 64));
                }, List.of("block 1 of row 0", "Infinity")),
                new Case("weight_k_block_minimum_not_finite", "weight", iae, Set.of(), (s, t) -> {
                    ByteBuffer b = WeightType.Q4_K.encode(new float[512], Shape.of(2, 256))
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    b.putShort(144 + 2, (short) 0x7e00);
                    s.weight(b, WeightType.Q4_K, Shape.of(2, 256));
                }, List.of("Q4_K", "block 0 of row 1", "NaN")),
                new Case("weight_super_block_bytes_do_not_fit_the_shape", "weight", iae, Set.of(),
                        (s, t) -> s.weight(ByteBuffer.allocate(209), WeightType.Q6_K, Shape.of(1, 256)),
                        List.of("Q6_K", "[1, 256]", "210", "209")),
                new Case("weight_rows_not_whole_super_blocks", "weight", iae, Set.of(),
                        (s, t) -> s.weight(ByteBuffer.allocate(144), WeightType.Q4_K, Shape.of(2, 128)),
                        List.of("Q4_K", "[2, 128]", "256")),
                nullArgument("weight", "type", (s, t) -> s.weight(ByteBuffer.allocate(4), null, Shape.of(1, 1))),
                nullArgument("weight", "data", (s, t) -> s.weight(null, WeightType.F32, Shape.of(1, 1))),
                new Case("linear_weight_in_differs", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), weight(s, t, 4, 5), null),
                        List.of("weight", "[4, 5]", "[2, 3]")),
                new Case("linear_f64_weight_meets_f32_activations", "linear", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().linear(ones(s, DType.F32, 2, 3), weight(s, DType.F64, 4, 3), null),
                        List.of("F64", "F32", "[2, 3]")),
                new Case("linear_i8_weight_meets_f64_activations", "linear", iae, Set.of(Feature.OPTIONAL_F64),
                        (s, t) -> s.ops().linear(ones(s, DType.F64, 2, 3),
                                s.weight(new float[12], Shape.of(4, 3), WeightType.I8), null),
                        List.of("F64", "I8", "[2, 3]")),
                new Case("linear_i8_input_not_finite", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(
                                s.tensor(new float[] {1f, Float.POSITIVE_INFINITY, 0f}, Shape.of(1, 3)),
                                s.weight(new float[12], Shape.of(4, 3), WeightType.I8), null),
                        List.of("x", "Infinity", "row 0")),
                new Case("weight_i8_zero_point_outside_int8", "weight", iae, Set.of(), (s, t) -> {
                    ByteBuffer b = WeightType.I8.encode(new float[6], Shape.of(2, 3))
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    b.putInt(11 + 4, 200);
                    s.weight(b, WeightType.I8, Shape.of(2, 3));
                }, List.of("row 1", "zero point 200")),
                new Case("linear_bias_shape", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), weight(s, t, 4, 3), ones(s, t, 5)),
                        List.of("bias", "[5]", "[4]")),
                new Case("linear_gated_weight_rows_odd", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), weight(s, t, 5, 3), null,
                                Epilogue.gated(Activation.SILU)), List.of("gated", "[5, 3]")),
                new Case("linear_residual_shape", "linear", iae, Set.of(),
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), weight(s, t, 4, 3), null,
                                Epilogue.none().withResidual(ones(s, t, 2, 5))), List.of("residual", "[2, 5]", "[2, 4]")),
                nullArgument("linear", "epilogue",
                        (s, t) -> s.ops().linear(ones(s, t, 2, 3), weight(s, t, 4, 3), null, null)),
                new Case("linear_weight_of_a_closed_scope", "linear", ise, Set.of(), (s, t) -> {
                    Weight w;
                    try (Scope other = s.backend().newScope()) {
                        w = weight(other, t, 4, 3);
                    }
                    s.ops().linear(ones(s, t, 2, 3), w, null);
                }, List.of("closed")),
                new Case("embedding_weight_id_out_of_range", "embedding", iae, Set.of(),
                        (s, t) -> s.ops().embedding(weight(s, t, 4, 3), new int[] {1, 4}, Shape.of(2)),
                        List.of("ids[1]")),
                new Case("layerNorm_residual_shape", "layerNorm", iae, Set.of(),
                        (s, t) -> s.ops().layerNorm(ones(s, t, 2, 3), ones(s, t, 3, 3), null, null, 1e-5),
                        List.of("residual", "[3, 3]", "[2, 3]")),
                new Case("rmsNorm_residual_shape", "rmsNorm", iae, Set.of(),
                        (s, t) -> s.ops().rmsNorm(ones(s, t, 2, 3), ones(s, t, 2, 4), null, 1e-5),
                        List.of("residual", "[2, 4]", "[2, 3]")),
                new Case("packedAttention_width_not_heads_times_d", "packedAttention", iae, Set.of(),
                        (s, t) -> s.ops().packedAttention(ones(s, t, 1, 3, 10), 2, 1, AttentionOptions.defaults()),
                        List.of("qkv", "[1, 3, 10]")),
                new Case("packedAttention_kv_heads_do_not_divide", "packedAttention", iae, Set.of(),
                        (s, t) -> s.ops().packedAttention(ones(s, t, 1, 3, 14), 3, 2, AttentionOptions.defaults()),
                        List.of("heads 3", "kvHeads 2")),
                new Case("packedAttention_mask_does_not_broadcast", "packedAttention", iae, Set.of(),
                        (s, t) -> s.ops().packedAttention(ones(s, t, 1, 3, 12), 2, 1,
                                AttentionOptions.defaults().withMask(Mask.causal(4, 4))),
                        List.of("mask", "[4, 4]", "[1, 2, 3, 3]")),
                nullArgument("packedAttention", "options",
                        (s, t) -> s.ops().packedAttention(ones(s, t, 1, 3, 12), 2, 1, null)));
    }

    /** A weight of ones, F64 for the F64 run, else F32. */
    private static Weight weight(Scope scope, DType dtype, int rows, int columns) {
        float[] values = new float[rows * columns];
        Arrays.fill(values, 1f);
        return scope.weight(values, Shape.of(rows, columns), dtype == DType.F64 ? WeightType.F64 : WeightType.F32);
    }

    private static Tensor closed(Scope scope, DType dtype, int... dims) {
        try (Scope other = scope.backend().newScope()) {
            return ones(other, dtype, dims);
        }
    }

    private static Tensor ones(Scope scope, DType dtype, int... dims) {
        Shape shape = Shape.of(dims);
        double[] data = new double[(int) shape.size()];
        Arrays.fill(data, 1.0);
        return scope.tensor(data, shape, dtype);
    }

    private static Measurement check(Backend backend, Case c, DType dtype) {
        String what = c.op() + " case bad_input_" + c.id() + " [" + dtype + "] on " + backend.name();
        try (Scope scope = backend.newScope()) {
            c.mistake().make(scope, dtype);
            return Measurement.failed(what + ": returned normally, expected " + c.expected().getSimpleName());
        } catch (RuntimeException e) {
            if (!c.expected().isInstance(e)) {
                return Measurement.failed(what + ": threw " + e + ", expected " + c.expected().getSimpleName());
            }
            if (e.getMessage() == null || !e.getMessage().contains(c.op())) {
                return Measurement.failed(what + ": threw " + c.expected().getSimpleName() + " as expected, but its"
                        + " message does not name the op '" + c.op() + "': " + e.getMessage());
            }
            for (String mention : c.mentions()) {
                if (!e.getMessage().contains(mention)) {
                    return Measurement.failed(what + ": threw " + c.expected().getSimpleName() + " naming the op,"
                            + " but its message does not mention '" + mention + "': " + e.getMessage());
                }
            }
            return Measurement.EXACT;
        }
    }
}
