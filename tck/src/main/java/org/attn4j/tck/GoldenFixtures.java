package org.attn4j.tck;

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
import org.attn4j.models.io.Json;
import org.attn4j.models.io.SafeTensors;

/** Golden cases read from a {@code manifest.json} and the safetensors files beside it. */
public final class GoldenFixtures implements FixtureSource {
    /** The class-path folder of the committed golden files. */
    public static final String RESOURCE_FOLDER = "/org/attn4j/tck/golden/";

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
    private static List<GoldenCase> parseManifest(String json) {
        List<GoldenCase> out = new ArrayList<>();
        for (Object item : (List<Object>) Json.parse(json)) {
            Map<String, Object> c = (Map<String, Object>) item;
            out.add(new GoldenCase((String) c.get("group"), (String) c.get("name"), (String) c.get("op"),
                    (Map<String, Object>) c.get("params"), (List<String>) c.get("inputs"),
                    (List<String>) c.get("outputs"), (String) c.get("file")));
        }
        return List.copyOf(out);
    }
}
