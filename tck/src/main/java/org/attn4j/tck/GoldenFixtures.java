package org.attn4j.tck;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/** Golden cases read from a {@code manifest.json} and the safetensors files beside it. */
public final class GoldenFixtures implements FixtureSource {
    /** The class-path folder of the committed golden files. */
    public static final String RESOURCE_FOLDER = "/org/attn4j/tck/golden/";
    /** The sub-folder of {@link #RESOURCE_FOLDER} that holds one golden folder per model family. */
    static final String FAMILIES = "families/";
    /** Strict like the safetensors header: duplicate names rejected; integers as {@link Long}, as cases expect. */
    private static final ObjectMapper MANIFEST = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_LONG_FOR_INTS).build();

    private interface Opener {
        byte[] read(String fileName) throws IOException;
    }

    private final String description;
    private final Opener opener;
    private final List<GoldenCase> cases;
    private final Map<String, StateDict> files = new ConcurrentHashMap<>();

    private GoldenFixtures(String description, Opener opener) {
        this.description = description;
        this.opener = opener;
        this.cases = parseManifest(new String(load("manifest.json"), StandardCharsets.UTF_8));
    }

    /** @return the golden files committed with the kit (PyTorch float64), read once per class loader */
    public static GoldenFixtures classpath() {
        return Committed.INSTANCE;
    }

    /** Holds the committed files, read on first use. */
    private static final class Committed {
        static final GoldenFixtures INSTANCE = new GoldenFixtures("class path " + RESOURCE_FOLDER,
                name -> {
                    try (InputStream in = GoldenFixtures.class.getResourceAsStream(RESOURCE_FOLDER + name)) {
                        if (in == null) {
                            throw new IOException("resource " + RESOURCE_FOLDER + name
                                    + " is missing from the tck jar");
                        }
                        return in.readAllBytes();
                    }
                });
    }

    /**
     * The golden folders of model families committed with the kit beside the main files: every
     * {@code families/<family>/manifest.json} under {@value #RESOURCE_FOLDER}, each with the safetensors files it
     * names. A family (a decoder architecture, a new op's cases) plugs in by adding such a folder; the model and
     * golden suites run every case in it.
     *
     * @return one source per family folder, in name order; none if there is no such folder
     */
    public static List<GoldenFixtures> families() {
        return families(GoldenFixtures.class.getClassLoader());
    }

    /**
     * @param loader the class loader whose copy of the kit's golden folder to look in
     * @return one source per {@code families/<family>/} folder holding a {@code manifest.json}, in name order
     */
    static List<GoldenFixtures> families(ClassLoader loader) {
        String root = RESOURCE_FOLDER.substring(1);
        URL main = loader.getResource(root + "manifest.json");
        if (main == null) {
            return List.of();
        }
        String prefix = root + FAMILIES;
        List<String> names = new ArrayList<>();
        try {
            if ("file".equals(main.getProtocol())) {
                Path folder = Path.of(main.toURI()).resolveSibling(FAMILIES);
                if (Files.isDirectory(folder)) {
                    try (Stream<Path> children = Files.list(folder)) {
                        children.filter(p -> Files.isRegularFile(p.resolve("manifest.json")))
                                .forEach(p -> names.add(p.getFileName().toString()));
                    }
                }
            } else if ("jar".equals(main.getProtocol())) {
                JarURLConnection connection = (JarURLConnection) main.openConnection();
                connection.setUseCaches(false);
                try (JarFile jar = connection.getJarFile()) {
                    jar.stream().map(JarEntry::getName)
                            .filter(n -> n.startsWith(prefix) && n.endsWith("/manifest.json")
                                    && n.indexOf('/', prefix.length()) == n.length() - "/manifest.json".length())
                            .forEach(n -> names.add(n.substring(prefix.length(), n.indexOf('/', prefix.length()))));
                }
            }
        } catch (IOException | URISyntaxException e) {
            throw new UncheckedIOException(new IOException("tck: cannot list the family folders beside " + main
                    + ": " + e.getMessage(), e));
        }
        names.sort(null);
        List<GoldenFixtures> out = new ArrayList<>();
        for (String family : names) {
            String folder = prefix + family + "/";
            out.add(new GoldenFixtures("class path /" + folder, name -> {
                try (InputStream in = loader.getResourceAsStream(folder + name)) {
                    if (in == null) {
                        throw new IOException("resource /" + folder + name + " is missing");
                    }
                    return in.readAllBytes();
                }
            }));
        }
        return out;
    }

    /**
     * @param folder a folder holding {@code manifest.json} and the safetensors files it names, as written by
     *     {@code tck/src/golden/generate_goldens.py}
     * @return the cases found there
     */
    public static GoldenFixtures directory(Path folder) {
        return new GoldenFixtures("folder " + folder.toAbsolutePath(),
                name -> Files.readAllBytes(folder.resolve(name)));
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public List<GoldenCase> cases() {
        return cases;
    }

    @Override
    public HostTensor tensor(GoldenCase golden, String tensorName) {
        StateDict dict = files.computeIfAbsent(golden.file(), f -> {
            try {
                return SafeTensors.read(load(f)).tensors();
            } catch (SafeTensors.FormatException e) {
                throw new UncheckedIOException("golden file " + f + " in " + description + " is malformed: "
                        + e.getMessage() + "; regenerate it with tck/src/golden/generate_goldens.py", e);
            }
        });
        return dict.get(tensorName);
    }

    private byte[] load(String fileName) {
        try {
            return opener.read(fileName);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read golden file " + fileName + " from " + description + ": "
                    + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private List<GoldenCase> parseManifest(String json) {
        List<GoldenCase> out = new ArrayList<>();
        Object parsed;
        try {
            parsed = MANIFEST.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw malformed("it is not valid JSON: " + e.getOriginalMessage());
        }
        if (!(parsed instanceof List<?> items)) {
            throw malformed("it is not a JSON array of cases");
        }
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof Map<?, ?> c)) {
                throw malformed("case #" + i + " is not an object");
            }
            out.add(new GoldenCase(field(c, i, "group", String.class), field(c, i, "name", String.class),
                    field(c, i, "op", String.class), field(c, i, "params", Map.class),
                    field(c, i, "inputs", List.class), field(c, i, "outputs", List.class),
                    c.containsKey("parameters") ? field(c, i, "parameters", List.class) : List.of(),
                    field(c, i, "file", String.class)));
        }
        return List.copyOf(out);
    }

    private <T> T field(Map<?, ?> c, int index, String key, Class<T> type) {
        Object value = c.get(key);
        if (!type.isInstance(value)) {
            throw malformed("case #" + index + " " + c.get("name") + " has " + key + " = " + value + ", not a "
                    + type.getSimpleName());
        }
        return type.cast(value);
    }

    private IllegalArgumentException malformed(String problem) {
        return new IllegalArgumentException("golden manifest.json in " + description + " is malformed: " + problem
                + "; regenerate it with tck/src/golden/generate_goldens.py");
    }
}
