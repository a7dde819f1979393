package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Loads the provider in a class loader whose class path lacks nd4j-native's platform jar, as a user on an
 * unsupported OS or with a forgotten classifier would, and checks that availability reports it instead of
 * throwing.
 */
class MissingNativesTest {

    private static URL[] classPathWithoutNatives() throws Exception {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            String name = new File(entry).getName();
            if (!name.matches("nd4j-native-[^-]+-[^-]+-(linux|macosx|windows|android)-.*\\.jar")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    @Test
    void missingNativeLibraryIsReportedAsUnavailableWithTheClassifierToAdd() throws Exception {
        try (URLClassLoader loader = new URLClassLoader(classPathWithoutNatives(),
                ClassLoader.getPlatformClassLoader())) {
            Class<?> type = Class.forName(Nd4jBackendProvider.class.getName(), true, loader);
            Object provider = type.getConstructor().newInstance();
            Object availability = type.getMethod("availability").invoke(provider);
            boolean available = (Boolean) availability.getClass().getMethod("available").invoke(availability);
            String reason = (String) availability.getClass().getMethod("reason").invoke(availability);
            assertEquals(false, available, reason);
            assertTrue(reason.contains("nd4j-native") && reason.contains("classifier"), reason);
        }
    }
}
