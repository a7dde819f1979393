package org.attn4j.backend.cuda;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;

/**
 * The CUDA backend, {@value #NAME}: F32 tensors in the memory of one NVIDIA GPU (compute capability 7.5 or newer,
 * driver 580 or newer), ops run by the kernels of this module, attention by one fused FlashAttention-2 style
 * kernel. Priority {@value #PRIORITY}, above the CPU backends, so it is the default wherever it is available.
 *
 * <p>{@link #availability()} loads nothing before it is called and never throws: a missing
 * {@code libcuda.so.1}, no device, a device older than 7.5 or a driver that rejects PTX ISA 9.0 each become the
 * reason. The device is 0 unless the system property {@code attn4j.cuda.device} names another.
 *
 * <p>Threads: the backend starts no host threads (every driver call runs on the calling thread, one at a time per
 * context), so a thread count ({@link BackendOptions}, {@code attn4j.threads}) is checked and otherwise has no effect,
 * and its capabilities report one thread.
 */
public final class CudaBackendProvider implements BackendProvider {
    /** The name users select this backend by. */
    public static final String NAME = "cuda";
    /** Above the CPU backends. */
    public static final int PRIORITY = 300;

    /**
     * The capabilities of every CUDA backend: F32 tensors; weights held in F32, F16, BF16, Q8_0, Q4_0, Q4_K and Q6_K
     * ({@code CudaWeight.NATIVE}), the other GGUF block types decoded to F32 once, at bind.
     */
    static final Capabilities CAPABILITIES = Capabilities.builder("cuda").dtypes(DType.F32)
            .weightTypes(CudaWeight.NATIVE.toArray(new WeightType[0]))
            .features(Feature.FUSED_ATTENTION, Feature.DROPOUT, Feature.ATTENTION_WEIGHTS).build();

    private Availability availability;

    /** Creates the provider; loads nothing. */
    public CudaBackendProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * Probes once per provider: JCuda's driver binding and {@code libcuda.so.1}, a device, its compute capability,
     * the driver version, and whether the driver loads the shipped PTX.
     *
     * @return available with the device's description, or unavailable with the reason
     */
    @Override
    public synchronized Availability availability() {
        if (availability == null) {
            availability = probe(deviceOrdinal());
        }
        return availability;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /**
     * @param options checked; a thread count has no effect here (see the class comment)
     * @return a backend with its own CUDA context on the probed device
     * @throws IllegalStateException with the availability reason if the backend is unavailable
     */
    @Override
    public Backend create(BackendOptions options) {
        options.resolveThreads(1);
        Availability a = availability();
        if (!a.available()) {
            throw new IllegalStateException("backend cuda is unavailable: " + a.reason());
        }
        return new CudaBackend(CudaContext.open(deviceOrdinal()), CAPABILITIES);
    }

    private static Availability probe(int ordinal) {
        try {
            return CudaProbe.probe(ordinal);
        } catch (LinkageError e) {
            return ProbeDiagnosis.linkFailure(e);
        } catch (RuntimeException e) {
            return Availability.unavailable("probing CUDA failed: " + e.getMessage());
        }
    }

    private static int deviceOrdinal() {
        return Integer.getInteger("attn4j.cuda.device", 0);
    }
}
