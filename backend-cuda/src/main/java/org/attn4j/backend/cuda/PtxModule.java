package org.attn4j.backend.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One PTX module shipped under {@value #RESOURCE_DIR}, with the {@code .entry} kernels and parameter lists
 * parsed from its text, so that a missing or mismatched kernel is reported when the module is loaded rather
 * than when a launch fails.
 */
final class PtxModule {
    /** Classpath folder holding {@code <module>.ptx} for every module of {@link Kernel#byModule()}. */
    static final String RESOURCE_DIR = "/org/attn4j/backend/cuda/ptx/";

    private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)\\s*\\(([^)]*)\\)");
    private static final Pattern PARAM =
            Pattern.compile("\\.param\\s+(?:\\.align\\s+\\d+\\s+)?\\.(\\w+)\\s+[\\w$]+(?:\\[(\\d+)])?");
    private static final Pattern VERSION = Pattern.compile("(?m)^\\s*\\.version\\s+(\\S+)");
    private static final Pattern TARGET = Pattern.compile("(?m)^\\s*\\.target\\s+([^\\s,]+)");
    private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

    /** One declared kernel parameter: PTX type ({@code u64}, {@code f32}, {@code b8}, ...) and array length. */
    record Param(String type, int length) {
        /** @return the parameter's size in bytes */
        int bytes() {
            return length * scalarBytes(type);
        }

        /** @return whether the host may pass {@code host} for this parameter */
        boolean accepts(ParamType host) {
            return switch (host) {
                case POINTER, LONG -> length == 1 && (type.equals("u64") || type.equals("s64") || type.equals("b64"));
                case INT -> length == 1 && (type.equals("u32") || type.equals("s32") || type.equals("b32"));
                case FLOAT -> length == 1 && type.equals("f32");
                case DOUBLE -> length == 1 && type.equals("f64");
                case SHAPE, STRIDES, ROWS -> type.equals("b8") && length == host.bytes();
            };
        }

        @Override
        public String toString() {
            return length == 1 ? "." + type : ".b8[" + length + "]";
        }

        private static int scalarBytes(String type) {
            return switch (type.substring(1)) {
                case "8" -> 1;
                case "16" -> 2;
                case "32" -> 4;
                case "64" -> 8;
                default -> throw new IllegalArgumentException("PTX parameter type ." + type + " is not supported");
            };
        }
    }

    private final String name;
    private final String text;
    private final Map<String, List<Param>> entries;

    private PtxModule(String name, String text, Map<String, List<Param>> entries) {
        this.name = name;
        this.text = text;
        this.entries = entries;
    }

    /**
     * Parses PTX text; {@code //} and {@code /* *}{@code /} comments are ignored.
     *
     * @param name the module name used in messages
     * @param text the PTX source
     * @return the module with its entries in declaration order
     */
    static PtxModule parse(String name, String text) {
        Map<String, List<Param>> entries = new LinkedHashMap<>();
        String code = COMMENT.matcher(text).replaceAll(" ");
        Matcher m = ENTRY.matcher(code);
        while (m.find()) {
            List<Param> params = new ArrayList<>();
            Matcher p = PARAM.matcher(m.group(2));
            while (p.find()) {
                params.add(new Param(p.group(1), p.group(2) == null ? 1 : Integer.parseInt(p.group(2))));
            }
            entries.put(m.group(1), List.copyOf(params));
        }
        return new PtxModule(name, text, Collections.unmodifiableMap(entries));
    }

    /**
     * Loads {@code <name>.ptx} from {@value #RESOURCE_DIR} and checks that it defines every kernel of
     * {@link Kernel#byModule()} for that module with the expected parameters.
     *
     * @param name the module name, e.g. {@code "gemm"}
     * @return the verified module
     * @throws IllegalStateException if the resource is missing or lacks or mis-declares a kernel
     */
    static PtxModule load(String name) {
        String resource = RESOURCE_DIR + name + ".ptx";
        try (InputStream in = PtxModule.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("PTX module '" + name + "' not found on the classpath at " + resource);
            }
            PtxModule module = parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            Kernel.byModule().getOrDefault(name, List.of()).forEach(module::requireSignature);
            return module;
        } catch (IOException e) {
            throw new UncheckedIOException("reading PTX module " + resource, e);
        }
    }

    /**
     * Loads and verifies every module that {@link Kernel} refers to.
     *
     * @return module name to module, in {@link Kernel#byModule()} order
     */
    static Map<String, PtxModule> loadAll() {
        Map<String, PtxModule> modules = new LinkedHashMap<>();
        Kernel.byModule().keySet().forEach(name -> modules.put(name, load(name)));
        return Collections.unmodifiableMap(modules);
    }

    /**
     * Checks that this module defines {@code kernel} with exactly the host's parameter list.
     *
     * @param kernel the kernel the host will launch
     * @throws IllegalStateException naming the module, the symbol and the entries it does define, or both
     *                               parameter lists
     */
    void requireSignature(Kernel kernel) {
        List<Param> declared = entries.get(kernel.symbol());
        if (declared == null) {
            throw new IllegalStateException("PTX module '" + name + "' has no kernel '" + kernel.symbol()
                    + "' (" + kernel + "); it defines " + entries.keySet());
        }
        List<ParamType> host = kernel.params();
        boolean match = declared.size() == host.size();
        for (int i = 0; match && i < host.size(); i++) {
            match = declared.get(i).accepts(host.get(i));
        }
        if (!match) {
            throw new IllegalStateException("PTX kernel '" + kernel.symbol() + "' in module '" + name
                    + "' declares parameters " + declared + " but the host passes " + host);
        }
    }

    /** @return the module name */
    String name() {
        return name;
    }

    /** @return kernel symbol to declared parameters, in declaration order */
    Map<String, List<Param>> entries() {
        return entries;
    }

    /** @return the PTX ISA version of the {@code .version} directive, e.g. {@code "9.0"} */
    String isaVersion() {
        return directive(VERSION, ".version");
    }

    /** @return the {@code .target} architecture, e.g. {@code "sm_75"} */
    String target() {
        return directive(TARGET, ".target");
    }

    /** @return the PTX text as NUL-terminated bytes, the form {@code cuModuleLoadData} expects */
    byte[] image() {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(bytes, bytes.length + 1);
    }

    private String directive(Pattern pattern, String directive) {
        Matcher m = pattern.matcher(COMMENT.matcher(text).replaceAll(" "));
        if (!m.find()) {
            throw new IllegalStateException("PTX module '" + name + "' has no " + directive + " directive");
        }
        return m.group(1);
    }
}
