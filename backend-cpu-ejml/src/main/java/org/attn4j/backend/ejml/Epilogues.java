package org.attn4j.backend.ejml;

import org.attn4j.api.Activation;

/**
 * {@code linear}'s epilogue on a block of its output, after the product:
 * <pre>
 *   plain:  y = act(y + bias) + residual
 *   gated:  y = act(y + bias_g) ⊙ (up + bias_u) + residual      (y the gate's product, up the up projection's)
 * </pre>
 * F32 blocks run on {@link VectorActivationsF32} when {@link Simd#enabled()}, each step a pass over a row of the
 * block while it is in cache, every step from one call site (so that C2 inlines at most the two steps a model uses
 * most into this method, which keeps its vector calls within the budget {@link VectorGemmF32} explains); otherwise,
 * and for F64, each element is computed in double precision and rounded once.
 */
final class Epilogues {

    private Epilogues() {
    }

    /**
     * The F32 epilogue of an {@code n × cols} block.
     *
     * @param act the activation
     * @param y the block, modified: row {@code i} at {@code yo + i·ldy}
     * @param yo where it starts
     * @param ldy its row stride
     * @param n rows
     * @param cols columns
     * @param bias the bias row or null: column {@code j} of the block takes {@code bias[bo + j]} (the gate's half)
     * @param bo the bias offset of column 0
     * @param up the up projection's block or null (plain): row {@code i} at {@code uo + i·ldu}; modified
     * @param uo where it starts
     * @param ldu its row stride
     * @param ubo the bias offset of the up projection's column 0
     * @param residual the residual or null: row {@code i} at {@code ro + i·ldr}
     * @param ro where it starts
     * @param ldr its row stride
     */
    static void f32(Activation act, float[] y, int yo, int ldy, int n, int cols, float[] bias, int bo, float[] up,
                    int uo, int ldu, int ubo, float[] residual, int ro, int ldr) {
        if (act == Activation.IDENTITY && bias == null && up == null && residual == null) {
            return;
        }
        if (!Simd.enabled()) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < cols; j++) {
                    int at = yo + i * ldy + j;
                    double v = activate(act, bias == null ? y[at] : (double) y[at] + bias[bo + j]);
                    if (up != null) {
                        v *= bias == null ? up[uo + i * ldu + j] : (double) up[uo + i * ldu + j] + bias[ubo + j];
                    }
                    if (residual != null) {
                        v += residual[ro + i * ldr + j];
                    }
                    y[at] = (float) v;
                }
            }
            return;
        }
        int activation = switch (act) {
            case IDENTITY -> -1;
            case RELU -> VectorActivationsF32.RELU;
            case GELU -> VectorActivationsF32.GELU;
            case GELU_TANH -> VectorActivationsF32.GELU_TANH;
            case SILU -> VectorActivationsF32.SILU;
        };
        for (int i = 0; i < n; i++) {
            int row = yo + i * ldy;
            int u = uo + i * ldu;
            for (int s = 0; s < 5; s++) {
                int kind;
                float[] target = y;
                int at = row;
                float[] operand = null;
                int from = 0;
                switch (s) {
                    case 0 -> {
                        kind = bias == null ? -1 : VectorActivationsF32.ADD;
                        operand = bias;
                        from = bo;
                    }
                    case 1 -> kind = activation;
                    case 2 -> {
                        kind = up == null || bias == null ? -1 : VectorActivationsF32.ADD;
                        target = up;
                        at = u;
                        operand = bias;
                        from = ubo;
                    }
                    case 3 -> {
                        kind = up == null ? -1 : VectorActivationsF32.MUL;
                        operand = up;
                        from = u;
                    }
                    default -> {
                        kind = residual == null ? -1 : VectorActivationsF32.ADD;
                        operand = residual;
                        from = ro + i * ldr;
                    }
                }
                if (kind >= 0) {
                    VectorActivationsF32.step(kind, target, at, operand, from, cols);
                }
            }
        }
    }

    /** The F64 form of {@link #f32}, in double precision. */
    static void f64(Activation act, double[] y, int yo, int ldy, int n, int cols, double[] bias, int bo, double[] up,
                    int uo, int ldu, int ubo, double[] residual, int ro, int ldr) {
        if (act == Activation.IDENTITY && bias == null && up == null && residual == null) {
            return;
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < cols; j++) {
                int at = yo + i * ldy + j;
                double v = activate(act, bias == null ? y[at] : y[at] + bias[bo + j]);
                if (up != null) {
                    v *= bias == null ? up[uo + i * ldu + j] : up[uo + i * ldu + j] + bias[ubo + j];
                }
                if (residual != null) {
                    v += residual[ro + i * ldr + j];
                }
                y[at] = v;
            }
        }
    }

    /**
     * @param act the activation
     * @param v the value
     * @return {@code act(v)} in double precision, as the backend's own relu, gelu and silu compute it
     */
    static double activate(Activation act, double v) {
        return switch (act) {
            case IDENTITY -> v;
            case RELU -> v > 0 || Double.isNaN(v) ? v : 0.0;
            case GELU -> Elementwise.geluExact(v);
            case GELU_TANH -> Elementwise.geluTanh(v);
            case SILU -> DecoderKernels.silu(v);
        };
    }
}
