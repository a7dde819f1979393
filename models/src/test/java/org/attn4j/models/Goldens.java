package org.attn4j.models;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * The PyTorch float64 golden cases of the layers: the TCK's {@code models} group (read from the tck source tree,
 * see models/pom.xml) and the extra cases of {@code models/src/test/python/generate_model_goldens.py}.
 */
final class Goldens {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);
    private static final String ROOT = "/org/attn4j/models/golden/";
    private static final List<Case> ALL = load();

    private Goldens() {
    }

    /**
     * One golden case.
     *
     * @param name the case name
     * @param op the layer name, for example {@code nn.MultiheadAttention}
     * @param params the hyper-parameters from the manifest
     * @param inputs by role ({@code x}, {@code query}, ...)
     * @param outputs by role
     * @param parameters the state_dict
     */
    record Case(String name, String op, Map<String, Object> params, Map<String, HostTensor> inputs,
                Map<String, HostTensor> outputs, StateDict parameters) {

        int integer(String key) {
            return ((Long) params.get(key)).intValue();
        }

        boolean flag(String key) {
            return Boolean.TRUE.equals(params.get(key));
        }

        double number(String key) {
            return ((Number) params.get(key)).doubleValue();
        }

        String string(String key) {
            return (String) params.get(key);
        }

        HostTensor input(String role) {
            return inputs.get(role);
        }

        HostTensor output(String role) {
            return outputs.get(role);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> of(String op) {
        List<Case> out = ALL.stream().filter(c -> c.op().equals(op)).toList();
        if (out.isEmpty()) {
            throw new IllegalStateException("no golden cases for " + op);
        }
        return out;
    }

    static Set<String> ops() {
        return ALL.stream().map(Case::op).collect(Collectors.toSet());
    }

    private static List<Case> load() {
        List<Case> all = new ArrayList<>();
        all.addAll(load("tck/manifest.json", "tck/models.safetensors"));
        all.addAll(load("extra-manifest.json", "extra.safetensors"));
        return List.copyOf(all);
    }

    @SuppressWarnings("unchecked")
    private static List<Case> load(String manifest, String data) {
        try {
            StateDict tensors = SafeTensors.read(bytes(data)).tensors();
            List<Object> entries = JSON.readValue(bytes(manifest), List.class);
            List<Case> cases = new ArrayList<>();
            for (Object o : entries) {
                Map<String, Object> e = (Map<String, Object>) o;
                if (!"models".equals(e.get("group"))) {
                    continue;
                }
                String name = (String) e.get("name");
                Map<String, HostTensor> params = roles(tensors, (List<Object>) e.getOrDefault("parameters", List.of()),
                        name + "/param/");
                cases.add(new Case(name, (String) e.get("op"), (Map<String, Object>) e.get("params"),
                        roles(tensors, (List<Object>) e.get("inputs"), name + "/"),
                        roles(tensors, (List<Object>) e.get("outputs"), name + "/"), StateDict.of(params)));
            }
            return cases;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, HostTensor> roles(StateDict tensors, List<Object> names, String prefix) {
        Map<String, HostTensor> out = new LinkedHashMap<>();
        for (Object n : names) {
            out.put(((String) n).substring(prefix.length()), tensors.get((String) n));
        }
        return out;
    }

    private static byte[] bytes(String resource) throws IOException {
        try (InputStream in = Goldens.class.getResourceAsStream(ROOT + resource)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + ROOT + resource + " is missing");
            }
            return in.readAllBytes();
        }
    }
}
