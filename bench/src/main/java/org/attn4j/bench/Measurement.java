package org.attn4j.bench;

/**
 * One benchmark's outcome: what ran, on what shape, and how long it took, or why it did not finish.
 *
 * @param suite the table it belongs to
 * @param implementation who computed it: an attn4j backend's name, {@link #ONNX_RUNTIME}, or a GEMM label
 * @param workload the shape and its operation count
 * @param timing the call times; null when it failed
 * @param failure why it did not finish; null when it did
 */
public record Measurement(Suite suite, String implementation, Workload workload, Timing timing, String failure) {

    /** The implementation name of ONNX Runtime's fused {@code com.microsoft.MultiHeadAttention}. */
    public static final String ONNX_RUNTIME = "onnxruntime";

    /** Requires exactly one of timing and failure. */
    public Measurement {
        if ((timing == null) == (failure == null)) {
            throw new IllegalArgumentException("Measurement: exactly one of timing and failure must be given, got "
                    + timing + " and " + failure);
        }
    }

    /**
     * @param suite the table
     * @param implementation who computed it
     * @param workload the shape
     * @param timing the call times
     * @return a finished measurement
     */
    public static Measurement of(Suite suite, String implementation, Workload workload, Timing timing) {
        return new Measurement(suite, implementation, workload, timing, null);
    }

    /**
     * @param suite the table
     * @param implementation who was asked to compute it
     * @param workload the shape
     * @param failure what went wrong
     * @return a failed measurement
     */
    public static Measurement failed(Suite suite, String implementation, Workload workload, String failure) {
        return new Measurement(suite, implementation, workload, null, failure);
    }

    /** @return whether it finished */
    public boolean ok() {
        return timing != null;
    }

    /** @return {@code flops / median seconds / 1e9}, or NaN when it failed */
    public double gflops() {
        return ok() ? Flops.gflops(workload.flops(), timing.medianSeconds()) : Double.NaN;
    }

    /** @return whether ONNX Runtime computed it */
    public boolean isOnnxRuntime() {
        return ONNX_RUNTIME.equals(implementation);
    }
}
