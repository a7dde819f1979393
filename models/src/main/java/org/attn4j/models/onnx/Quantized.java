package org.attn4j.models.onnx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * The int8 weights of an ONNX Runtime {@code quantize_dynamic} export in {@code nn.Module} layout under their
 * module's name (see {@link OnnxStateDict}): {@code MatMulInteger} weights with their per-column scales and zero
 * points, either dequantized to FLOAT or kept as {@link WeightType#I8} rows (a UINT8 matrix shifted to int8 with its
 * zero point, {@code (q - 128) - (zp - 128) = q - zp}), and {@code DequantizeLinear}ed {@code Gather} tables, always
 * dequantized. Operators of other quantization schemes are refused by name.
 */
final class Quantized {
    private static final Set<String> SUPPORTED = Set.of("DynamicQuantizeLinear", "MatMulInteger", "DequantizeLinear");

    private Quantized() {
    }

    /**
     * @param out receives each dequantized weight by state_dict name
     * @param integer receives each {@code MatMulInteger} weight as an I8 matrix {@code [out, in]} instead of
     *     {@code out}, or null to dequantize those too
     * @param from receives, by the same name, what it was made from
     * @param consumed receives the names of every initializer used (integers, scales, zero points)
     */
    static void map(OnnxModel model, Map<String, OnnxTensor> out, Map<String, HostTensor> integer,
                    Map<String, String> from, Set<String> consumed) {
        Map<String, OnnxNode> producer = new HashMap<>();
        Map<String, List<OnnxNode>> consumers = new HashMap<>();
        for (OnnxNode n : model.nodes()) {
            n.outputs().forEach(o -> producer.put(o, n));
            n.inputs().forEach(i -> consumers.computeIfAbsent(i, k -> new ArrayList<>()).add(n));
        }
        for (OnnxNode n : model.nodes()) {
            String op = n.opType();
            boolean quantized = op.contains("Quant") || op.contains("Integer") || op.startsWith("QLinear")
                    || op.startsWith("QAttention") || op.startsWith("QEmbed") || op.contains("NBits")
                    || op.contains("QOrdered");
            if (quantized && !SUPPORTED.contains(op)) {
                throw new IllegalArgumentException("OnnxStateDict.map: quantized operator " + op + " (node '"
                        + n.name() + "') is not supported; supported quantized operators: DynamicQuantizeLinear, "
                        + "MatMulInteger, DequantizeLinear");
            }
            if (op.equals("MatMulInteger")) {
                matMulInteger(model, n, consumers, producer, out, integer, from, consumed);
            } else if (op.equals("DequantizeLinear")) {
                dequantizeLinear(model, n, producer, out, from, consumed);
            }
        }
    }

    private static OnnxTensor integerInitializer(OnnxModel model, OnnxNode n, int input) {
        if (input >= n.inputs().size() || n.inputs().get(input).isEmpty()) {
            return null;
        }
        OnnxTensor t = model.initializers().get(n.inputs().get(input));
        return t != null && (t.dataType() == OnnxDataType.INT8 || t.dataType() == OnnxDataType.UINT8) ? t : null;
    }

    private static IllegalArgumentException refuse(OnnxNode n, String why) {
        return new IllegalArgumentException("OnnxStateDict.map: " + n.opType() + " node '" + n.name() + "' " + why
                + "; this quantized pattern is not supported");
    }

    private static void matMulInteger(OnnxModel model, OnnxNode n, Map<String, List<OnnxNode>> consumers,
                                      Map<String, OnnxNode> producer, Map<String, OnnxTensor> out,
                                      Map<String, HostTensor> integer, Map<String, String> from,
                                      Set<String> consumed) {
        OnnxTensor b = integerInitializer(model, n, 1);
        if (b == null || b.dims().length != 2) {
            throw refuse(n, "does not multiply by an INT8/UINT8 matrix initializer");
        }
        int in = (int) b.dims()[0];
        int cols = (int) b.dims()[1];
        OnnxTensor zp = integerInitializer(model, n, 3);
        if (n.inputs().size() > 3 && !n.inputs().get(3).isEmpty() && zp == null) {
            throw refuse(n, "has a weight zero point that is not an integer initializer");
        }
        OnnxNode cast = n.outputs().isEmpty() ? null : single(consumers.get(n.outputs().get(0)), "Cast");
        OnnxNode mul = cast == null || cast.outputs().isEmpty() ? null
                : single(consumers.get(cast.outputs().get(0)), "Mul");
        OnnxTensor scale = null;
        if (mul != null) {
            for (String input : mul.inputs()) {
                OnnxNode scales = producer.get(input);
                if (scales != null && scales.opType().equals("Mul")) {
                    for (String s : scales.inputs()) {
                        OnnxTensor t = model.initializers().get(s);
                        if (t != null && t.dataType().isFloatingPoint()) {
                            scale = t;
                        }
                    }
                }
            }
        }
        if (scale == null) {
            throw refuse(n, "does not reach Cast and a Mul by its weight's FLOAT scale");
        }
        long[] q = b.toLongArray();
        long[] z = perColumn(zp == null ? new long[] {0} : zp.toLongArray(), cols, n, "zero point");
        float[] s = perColumn(scale.toFloatArray(), cols, n, "scale");
        String name = OnnxStateDict.modulePath(n, b) + ".weight";
        if (integer != null) {
            OnnxNode quantize = producer.get(n.inputs().get(0));
            if (quantize == null || !quantize.opType().equals("DynamicQuantizeLinear")) {
                throw refuse(n, "multiplies an input that no DynamicQuantizeLinear quantized");
            }
            integer.put(name, integerRows(q, z, s, in, cols, b.dataType() == OnnxDataType.UINT8 ? 128 : 0));
        } else {
            float[] w = new float[in * cols];
            for (int i = 0; i < in; i++) {
                for (int o = 0; o < cols; o++) {
                    w[o * in + i] = (q[i * cols + o] - z[o]) * s[o];
                }
            }
            out.put(name, OnnxTensor.ofFloats(name, new long[] {cols, in}, w));
        }
        from.put(name, "initializer '" + b.name() + "'");
        consumed.add(b.name());
        consumed.add(scale.name());
        if (zp != null) {
            consumed.add(zp.name());
        }
    }

    /**
     * @param q {@code B [in, cols]} row-major
     * @param z the zero point of each column
     * @param s the scale of each column
     * @param shift 128 for UINT8 numbers, moved into int8 with their zero points; 0 for INT8
     * @return {@code Bᵀ} as I8 rows: per column of {@code B}, its scale, zero point and numbers
     */
    private static HostTensor integerRows(long[] q, long[] z, float[] s, int in, int cols, int shift) {
        Shape shape = Shape.of(cols, in);
        int rowBytes = Math.toIntExact(WeightType.I8.rowBytes(in));
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(WeightType.I8.byteSize(shape)))
                .order(ByteOrder.LITTLE_ENDIAN);
        for (int o = 0; o < cols; o++) {
            int at = o * rowBytes;
            bytes.putFloat(at, s[o]);
            bytes.putInt(at + 4, (int) z[o] - shift);
            for (int i = 0; i < in; i++) {
                bytes.put(at + 8 + i, (byte) (q[i * cols + o] - shift));
            }
        }
        return HostTensor.wrap(shape, WeightType.I8, bytes);
    }

    private static void dequantizeLinear(OnnxModel model, OnnxNode n, Map<String, OnnxNode> producer,
                                         Map<String, OnnxTensor> out, Map<String, String> from,
                                         Set<String> consumed) {
        if (n.inputs().isEmpty()) {
            throw refuse(n, "has no input");
        }
        OnnxNode gather = producer.get(n.inputs().get(0));
        OnnxTensor table = gather != null && gather.opType().equals("Gather") ? integerInitializer(model, gather, 0)
                : null;
        if (table == null) {
            throw refuse(n, "does not dequantize a Gather from an INT8/UINT8 table");
        }
        OnnxTensor scale = n.inputs().size() > 1 ? model.initializers().get(n.inputs().get(1)) : null;
        OnnxTensor zp = integerInitializer(model, n, 2);
        if (scale == null || !scale.dataType().isFloatingPoint()) {
            throw refuse(n, "has no FLOAT scale initializer");
        }
        long[] dims = table.dims();
        if (dims.length != 2) {
            throw refuse(n, "dequantizes " + table + ", not a matrix");
        }
        int rows = (int) dims[0];
        int cols = (int) dims[1];
        long axis = n.intAttribute("axis", 1);
        boolean perRow = axis == 0 || axis == -2;
        int along = perRow ? rows : cols;
        float[] s = perColumn(scale.toFloatArray(), along, n, "scale");
        long[] z = perColumn(zp == null ? new long[] {0} : zp.toLongArray(), along, n, "zero point");
        long[] q = table.toLongArray();
        float[] w = new float[q.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int k = perRow ? r : c;
                w[r * cols + c] = (q[r * cols + c] - z[k]) * s[k];
            }
        }
        String name = OnnxStateDict.modulePath(gather, table) + ".weight";
        out.put(name, OnnxTensor.ofFloats(name, dims, w));
        from.put(name, "initializer '" + table.name() + "'");
        consumed.add(table.name());
        consumed.add(scale.name());
        if (zp != null) {
            consumed.add(zp.name());
        }
    }

    private static OnnxNode single(List<OnnxNode> nodes, String op) {
        return nodes != null && nodes.size() == 1 && nodes.get(0).opType().equals(op) ? nodes.get(0) : null;
    }

    private static long[] perColumn(long[] v, int n, OnnxNode node, String what) {
        if (v.length == n) {
            return v;
        }
        if (v.length != 1) {
            throw refuse(node, "has a " + what + " of " + v.length + " values for " + n + " columns");
        }
        long[] out = new long[n];
        java.util.Arrays.fill(out, v[0]);
        return out;
    }

    private static float[] perColumn(float[] v, int n, OnnxNode node, String what) {
        if (v.length == n) {
            return v;
        }
        if (v.length != 1) {
            throw refuse(node, "has a " + what + " of " + v.length + " values for " + n + " columns");
        }
        float[] out = new float[n];
        java.util.Arrays.fill(out, v[0]);
        return out;
    }
}
