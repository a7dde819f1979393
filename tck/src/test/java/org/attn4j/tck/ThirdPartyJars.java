package org.attn4j.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Jars a test builds as a third party would ship them: a provider class, with or without its service file. */
final class ThirdPartyJars {

    private ThirdPartyJars() {
    }

    /**
     * Compiles {@code package com.example.<name>; public class <Type> extends JarBackendProvider} into a jar.
     *
     * @param dir a scratch folder
     * @param backend the backend's name, also the package's last part
     * @param withServiceFile whether the jar lists the provider in {@code META-INF/services}
     * @return the jar
     */
    static Path providerJar(Path dir, String backend, boolean withServiceFile) throws IOException {
        String type = "com.example." + backend + ".Provider";
        Path src = Files.createDirectories(dir.resolve(backend + "-src/com/example/" + backend));
        Path classes = Files.createDirectories(dir.resolve(backend + "-classes"));
        Files.writeString(src.resolve("Provider.java"), "package com.example." + backend + ";\n"
                + "public class Provider extends org.attn4j.tck.JarBackendProvider {\n"
                + "    public Provider() {\n        super(\"" + backend + "\");\n    }\n}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-classpath", System.getProperty("java.class.path"),
                "-d", classes.toString(), "-proc:none", src.resolve("Provider.java").toString());
        if (status != 0) {
            throw new IllegalStateException("the test provider does not compile:\n" + diagnostics);
        }
        Path jar = dir.resolve(backend + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                put(out, classes.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
            if (withServiceFile) {
                put(out, ServiceWiring.SERVICE_FILE, (type + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }

    /**
     * @param dir a scratch folder
     * @param name the jar's file name without extension
     * @param providerClass the class its service file lists
     * @return a jar that holds nothing but that service file
     */
    static Path serviceFileJar(Path dir, String name, String providerClass) throws IOException {
        Path jar = dir.resolve(name + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            put(out, ServiceWiring.SERVICE_FILE, (providerClass + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return jar;
    }

    private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        ((OutputStream) out).write(bytes);
        out.closeEntry();
    }

    /**
     * Runs {@code body} with a class loader over {@code jars} (child of the test's) as the thread's context class
     * loader, as a tool that loads backend jars at run time does, and restores the previous one.
     */
    static <T> T withJars(List<Path> jars, Callable<T> body) throws Exception {
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = jars.get(i).toUri().toURL();
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(urls, ThirdPartyJars.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            return body.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
