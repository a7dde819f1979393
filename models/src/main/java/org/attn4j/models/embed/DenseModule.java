package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.attn4j.api.Shape;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * sentence-transformers' {@code Dense} module, a projection of the pooled vector:
 * {@code y = activation(linear.weight · x + linear.bias)}, {@code [in_features] → [out_features]}, computed on the
 * host in double precision (one small product per text). Read from its folder's {@code config.json}
 * ({@code in_features}, {@code out_features}, {@code bias}, {@code activation_function}) and
 * {@code model.safetensors} ({@code linear.weight [out, in]}, {@code linear.bias [out]}).
 *
 * @param path the module's folder inside the model folder, for messages
 * @param weight {@code [out, in]}, row-major
 * @param bias {@code [out]}, zeros when the module has none
 * @param activation the activation
 */
record DenseModule(String path, double[] weight, double[] bias, Activation activation) {
    /** The activations sentence-transformers' Dense modules name, by their class names. */
    enum Activation {
        /** {@code torch.nn.modules.linear.Identity}. */
        IDENTITY("torch.nn.modules.linear.Identity"),
        /** {@code torch.nn.modules.activation.Tanh}. */
        TANH("torch.nn.modules.activation.Tanh"),
        /** {@code torch.nn.modules.activation.ReLU}. */
        RELU("torch.nn.modules.activation.ReLU"),
        /** {@code torch.nn.modules.activation.Sigmoid}. */
        SIGMOID("torch.nn.modules.activation.Sigmoid");

        private final String className;

        Activation(String className) {
            this.className = className;
        }

        double apply(double x) {
            return switch (this) {
                case IDENTITY -> x;
                case TANH -> Math.tanh(x);
                case RELU -> Math.max(x, 0);
                case SIGMOID -> 1 / (1 + Math.exp(-x));
            };
        }
    }

    private static final Set<String> KEYS = Set.of("in_features", "out_features", "bias", "activation_function");

    /** @return {@code in_features} */
    int in() {
        return weight.length / bias.length;
    }

    /** @return {@code out_features} */
    int out() {
        return bias.length;
    }

    /**
     * @param x {@code [in]}; not modified
     * @return {@code activation(W·x + b)}, {@code [out]}
     */
    double[] apply(double[] x) {
        int in = in();
        if (x.length != in) {
            throw new IllegalArgumentException("Dense module " + path + ": input has " + x.length
                    + " features; in_features is " + in);
        }
        double[] y = new double[out()];
        for (int o = 0; o < y.length; o++) {
            double acc = bias[o];
            for (int i = 0; i < in; i++) {
                acc += weight[o * in + i] * x[i];
            }
            y[o] = activation.apply(acc);
        }
        return y;
    }

    /**
     * @param folder the module's folder
     * @param config its parsed {@code config.json}
     * @param path how messages name it
     * @return the module
     * @throws IOException if a file is missing or unreadable, a key is unknown, the activation is not one of
     *     {@link Activation}, or the weights do not have the stated shapes
     */
    static DenseModule read(Path folder, JsonNode config, String path) throws IOException {
        Path where = folder.resolve("config.json");
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = config.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!KEYS.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IOException(where + ": keys attn4j does not implement for a Dense module: "
                    + String.join(", ", unknown));
        }
        int in = config.path("in_features").asInt(0);
        int out = config.path("out_features").asInt(0);
        if (in < 1 || out < 1) {
            throw new IOException(where + ": in_features " + config.get("in_features") + " and out_features "
                    + config.get("out_features") + " must be positive integers");
        }
        boolean hasBias = config.path("bias").asBoolean(true);
        String named = config.path("activation_function").asText("torch.nn.modules.activation.Tanh");
        Activation activation = null;
        for (Activation a : Activation.values()) {
            if (a.className.equals(named)) {
                activation = a;
            }
        }
        if (activation == null) {
            List<String> known = new ArrayList<>();
            for (Activation a : Activation.values()) {
                known.add(a.className);
            }
            throw new IOException(where + ": activation_function '" + named + "' is not supported ("
                    + String.join(", ", known) + ")");
        }
        Path weights = folder.resolve("model.safetensors");
        if (!Files.isRegularFile(weights)) {
            if (Files.exists(folder.resolve("pytorch_model.bin"))) {
                throw new IOException(folder + " holds pytorch_model.bin, which attn4j does not read: save the Dense"
                        + " module as model.safetensors");
            }
            throw new NoSuchFileException(weights.toString(), null, "the Dense module's weights");
        }
        StateDict sd = SafeTensors.read(Files.readAllBytes(weights)).tensors();
        double[][] loaded = sd.load("Dense (" + path + ")", p -> {
            HostTensor w = p.get("linear.weight", Shape.of(out, in));
            HostTensor b = hasBias ? p.get("linear.bias", Shape.of(out)) : null;
            return new double[][] {w.data(), b == null ? new double[out] : b.data()};
        });
        return new DenseModule(path, loaded[0], loaded[1], activation);
    }
}
