package org.attn4j.bench.quantize;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.attn4j.models.io.Gguf;

/**
 * What differs between two GGUF files in what a reader sees: the metadata (keys and values, in any order) and the
 * tensors by name (type, shape and stored bytes, in any order; {@code llama-quantize} reorders them).
 */
final class FileDifferences {
    private FileDifferences() {
    }

    /**
     * @param ours one file
     * @param theirs the other
     * @return one line per difference, empty if they hold the same
     * @throws IOException if a file cannot be read
     */
    static List<String> of(Path ours, Path theirs) throws IOException {
        Gguf.Contents a = Gguf.read(ours);
        Gguf.Contents b = Gguf.read(theirs);
        List<String> out = new ArrayList<>();
        Map<String, Gguf.Value> other = new LinkedHashMap<>(b.metadata());
        a.metadata().forEach((key, value) -> {
            Gguf.Value v = other.remove(key);
            if (v == null) {
                out.add("metadata " + key + " only in " + ours.getFileName());
            } else if (v.type() != value.type() || v.elementType() != value.elementType()
                    || !Objects.deepEquals(v.value(), value.value())) {
                out.add("metadata " + key + ": " + value + " against " + v);
            }
        });
        other.keySet().forEach(key -> out.add("metadata " + key + " only in " + theirs.getFileName()));
        Map<String, Gguf.TensorInfo> tensors = new LinkedHashMap<>();
        b.infos().forEach(t -> tensors.put(t.name(), t));
        for (Gguf.TensorInfo t : a.infos()) {
            Gguf.TensorInfo u = tensors.remove(t.name());
            if (u == null) {
                out.add("tensor " + t.name() + " only in " + ours.getFileName());
            } else if (t.type() != u.type() || !t.shape().equals(u.shape())) {
                out.add("tensor " + t.name() + ": " + t.type() + t.shape() + " against " + u.type() + u.shape());
            } else if (!a.tensors().get(t.name()).bytes().equals(b.tensors().get(t.name()).bytes())) {
                out.add("tensor " + t.name() + ": other " + t.type() + " bytes");
            }
        }
        tensors.keySet().forEach(name -> out.add("tensor " + name + " only in " + theirs.getFileName()));
        return out;
    }
}
