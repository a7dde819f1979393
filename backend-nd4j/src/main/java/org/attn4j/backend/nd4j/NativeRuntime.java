package org.attn4j.backend.nd4j;

import java.io.IOException;
import java.io.InputStream;
import org.attn4j.api.Availability;
import org.nd4j.context.Nd4jContext;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.factory.Nd4jBackend;
import org.nd4j.nativeblas.NativeOps;
import org.nd4j.nativeblas.NativeOpsHolder;

/**
 * Loads ND4J's native CPU library and decides whether it can run here. Only {@link Nd4jBackendProvider} calls it,
 * inside a guard that turns any {@link LinkageError} or {@link RuntimeException} into an unavailable result.
 */
final class NativeRuntime {
    private NativeRuntime() {
    }

    /**
     * Loads the native library, checks the CPU's instruction set against the binary's and runs one tiny product.
     * ND4J itself calls {@code System.exit} when the CPU lacks the binary's instructions, so that check runs here
     * first: the backend's configuration is loaded and the native library opened the way ND4J's own start-up does,
     * but before ND4J's array factory is initialised.
     *
     * @return available with the BLAS and thread count, or unavailable with the reason and the fix
     */
    static Availability check() {
        quietDefaults();
        try (InputStream configuration = Nd4jBackend.load().getConfigurationResource().getInputStream()) {
            Nd4jContext.getInstance().updateProperties(configuration);
        } catch (Nd4jBackend.NoAvailableBackendException | IOException e) {
            return Availability.unavailable(NativeFailure.explain(e));
        }
        NativeOps ops = NativeOpsHolder.getInstance().getDeviceNativeOps();
        if (!ops.isMinimalRequirementsMet()) {
            return Availability.unavailable("ND4J's native library was built for " + level(ops.binaryLevel())
                    + " but this CPU supports only " + level(ops.optimalLevel()) + "; use the classifier "
                    + suggestedClassifier(ops.optimalLevel()) + " of org.nd4j:nd4j-native instead");
        }
        try (INDArray one = Nd4j.createUninitializedDetached(DataType.FLOAT, 1, 1).assign(1.0f);
             INDArray product = Nd4j.gemm(one, one, Nd4j.createUninitializedDetached(DataType.FLOAT, 1, 1),
                     false, false, 1.0, 0.0)) {
            if (product.getFloat(0) != 1.0f) {
                return Availability.unavailable("ND4J's native matrix product returned " + product.getFloat(0)
                        + " for 1·1; the native library is broken." + NativeFailure.FIX);
            }
        }
        return Availability.available("ND4J " + Nd4j.getBackend().getClass().getSimpleName() + " on "
                + Nd4j.getExecutioner().getEnvironmentInformation().getProperty("blas.vendor", "BLAS") + ", "
                + ops.ompGetMaxThreads() + " threads, " + level(ops.binaryLevel()) + " binary; " + ATTENTION_NOTE);
    }

    /**
     * What a user who selects this backend should know: its attention runs its softmax steps between the
     * OpenBLAS products on one thread, so it is several times slower than the pure-Java backend's fused kernel.
     */
    static final String ATTENTION_NOTE = "attention is several times slower here than on the ejml backend (softmax"
            + " steps between OpenBLAS calls run on one thread; see the bench results): for attention-bound work"
            + " choose -Dattn4j.backend=ejml";

    /**
     * Keeps ND4J's start-up quiet, and JavaCPP from reading the process's resident size at every allocation, unless
     * the user asked otherwise. JavaCPP's default limit on physical memory, twice the Java heap's maximum, makes each
     * native allocation read {@code /proc/self/statm} (a sixth of a decoding step's samples on this backend) and
     * refuses allocations once a model's native weights pass it, although this backend frees every buffer itself.
     */
    private static void quietDefaults() {
        if (System.getProperty("org.bytedeco.javacpp.maxphysicalbytes") == null
                && System.getProperty("org.bytedeco.javacpp.maxPhysicalBytes") == null) {
            System.setProperty("org.bytedeco.javacpp.maxPhysicalBytes", "0");
        }
        if (System.getProperty("org.nd4j.log.initialization") == null) {
            System.setProperty("org.nd4j.log.initialization", "false");
        }
        if (System.getProperty("org.nd4j.versioncheck") == null) {
            System.setProperty("org.nd4j.versioncheck", "false");
        }
    }

    private static String level(int binaryLevel) {
        return switch (binaryLevel) {
            case 3 -> "AVX-512";
            case 2 -> "AVX2";
            default -> "generic x86-64";
        };
    }

    private static String suggestedClassifier(int optimalLevel) {
        return switch (optimalLevel) {
            case 3 -> "linux-x86_64-avx512";
            case 2 -> "linux-x86_64-avx2";
            default -> "linux-x86_64";
        };
    }
}
