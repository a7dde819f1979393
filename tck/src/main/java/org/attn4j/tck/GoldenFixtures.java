package org.attn4j.tck;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;
import org.attn4j.models.io.SafeTensors;

/** Golden cases read from a {@code manifest.json} and the safetensors files beside it. */
public final class GoldenFixtures implements FixtureSource {
    /** The class-path folder of the committed golden files. */
    public static final String RESOURCE_FOLDER = "/org/attn4j/tck/golden/";
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
