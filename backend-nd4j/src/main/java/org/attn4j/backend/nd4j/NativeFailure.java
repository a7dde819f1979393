package org.attn4j.backend.nd4j;

import java.util.Locale;

/**
 * Turns a failure to load ND4J into a sentence with the fix. It references no ND4J class, so it still works when
 * ND4J's classes are missing or fail to link.
 */
final class NativeFailure {
    static final String FIX = " Add org.nd4j:nd4j-native:1.0.0-M2.1 with the classifier of this machine"
            + " (with org.bytedeco:openblas and org.bytedeco:javacpp of the same classifier) to the class path;"
            + " see the README of attn4j-backend-nd4j.";

    private NativeFailure() {
    }

    /**
     * @param failure what loading ND4J threw
     * @return a sentence naming the failure, the platform and the fix
     */
    static String explain(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String platform = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        String cause = String.valueOf(root).replaceAll("[.\\s]+$", "");
        String what = failure instanceof NoClassDefFoundError
                ? "ND4J's classes are missing (" + failure.getMessage() + ")"
                : "ND4J's native library failed to load on " + platform + ": " + cause;
        return what + "." + FIX + " This platform's classifier is probably " + platformClassifier() + ".";
    }

    /** @return the classifier of ND4J's natives that matches this JVM's OS and architecture */
    static String platformClassifier() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osPart = os.contains("win") ? "windows" : os.contains("mac") ? "macosx" : "linux";
        String archPart = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "arm64";
            case "ppc64le" -> "ppc64le";
            default -> arch;
        };
        return osPart + "-" + archPart;
    }
}
