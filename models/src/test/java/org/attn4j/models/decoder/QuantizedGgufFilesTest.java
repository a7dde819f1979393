package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.attn4j.api.Scope;
import org.attn4j.api.WeightType;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The quantized GGUF test files in {@code quantized/}, made as {@code llama-quantize} makes them (every tensor's type
 * chosen by llama.cpp's rules and quantized by ggml's own code; {@code bench/src/quantize}), against the float64
 * references of {@code models/src/test/python/generate_quantized_gguf_goldens.py} ({@code goldens.json}): each
 * tensor read by attn4j dequantizes to exactly the numbers ggml's dequantizers give (the SHA-256 of the float32
 * values); {@link QuantMix} gives every tensor the type llama.cpp's rules gave it; and greedy decoding on every
 * backend and dtype of the test class path chooses PyTorch float64's ids on the dequantized weights, except where
 * float64's top two logits are nearer than the target's tolerance can tell apart.
 */
class QuantizedGgufFilesTest {
    private static final String FOLDER = "/org/attn4j/models/decoder/quantized/";
    private static final Pattern LAYER = Pattern.compile("layers\\.(\\d+)\\.");

    /** One file's references. */
    record Case(String file, int[] prompt, int[] generated, double[] margins, Map<String, JsonNode> tensors) {
        Path path() {
            try {
                return Path.of(QuantizedGgufFilesTest.class.getResource(FOLDER + file).toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String toString() {
            return file;
        }
    }

    static List<Case> cases() {
        try (InputStream in = QuantizedGgufFilesTest.class.getResourceAsStream(FOLDER + "goldens.json")) {
            List<Case> out = new ArrayList<>();
            for (JsonNode c : new ObjectMapper().readTree(in).get("cases")) {
                Map<String, JsonNode> tensors = new TreeMap<>();
                c.get("tensors").properties().forEach(e -> tensors.put(e.getKey(), e.getValue()));
                double[] margins = new double[c.get("margins").size()];
                for (int i = 0; i < margins.length; i++) {
                    margins[i] = c.get("margins").get(i).asDouble();
                }
                out.add(new Case(c.get("file").asText(), ints(c.get("prompt")), ints(c.get("generated")), margins,
                        tensors));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Stream<Arguments> acrossTargets() {
        List<Case> cases = cases();
        return DecoderGoldens.targets().stream().flatMap(t -> cases.stream().map(c -> Arguments.of(t, c)));
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyTensorDequantizesToGgmlsNumbersBitForBit(Case c) throws IOException, NoSuchAlgorithmException {
        Gguf.Contents file = Gguf.read(c.path());
        assertEquals(c.tensors().keySet(), new TreeSet<>(file.tensors().asMap().keySet()), c.file()
                + ": tensor names");
        for (Gguf.TensorInfo info : file.infos()) {
            JsonNode expected = c.tensors().get(info.name());
            assertEquals(expected.get("type").asText(), info.type().name(), c.file() + ": type of " + info.name());
            float[] values = file.tensors().get(info.name()).toFloatArray();
            ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
            bytes.asFloatBuffer().put(values);
            String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.array()));
            assertEquals(expected.get("sha256").asText(), sha, c.file() + ": " + info.name() + " (" + info.type()
                    + ", " + values.length + " numbers) dequantizes to other float32 numbers than ggml's");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void quantMixGivesEveryTensorTheTypeLlamaCppsRulesGaveIt(Case c) throws IOException {
        Gguf.Contents file = Gguf.read(c.path());
        long fileType = file.integer("general.file_type");
        QuantMix mix = QuantMix.ofFileType(fileType).orElseThrow();
        assertTrue(mix.isProducible(), c.file() + ": " + mix + " is not a mix attn4j makes");
        GgufDecoder.Decoded decoded = GgufDecoder.read(file);
        DecoderConfig config = decoded.config();
        List<String> differ = new ArrayList<>();
        int matrices = 0;
        for (Map.Entry<String, HostTensor> e : decoded.state().asMap().entrySet()) {
            HostTensor t = e.getValue();
            WeightType expected;
            if (t.shape().rank() < 2) {
                expected = WeightType.F32;
            } else {
                Matcher m = LAYER.matcher(e.getKey());
                int layer = m.find() ? Integer.parseInt(m.group(1)) : 0;
                expected = mix.typeOf(Weights.role(e.getKey()), layer, config.layers(), t.shape().dim(1),
                        config.tiedEmbeddings());
                matrices++;
            }
            if (expected != t.type()) {
                differ.add(e.getKey() + ": file " + t.type() + ", QuantMix " + expected);
            }
        }
        assertTrue(differ.isEmpty(), c.file() + " (" + mix + "): " + differ);
        assertEquals(file.infos().stream().filter(i -> i.shape().rank() == 2).count(), matrices, c.file()
                + ": matrices");
    }

    /**
     * Each step is fed the reference's id (so every step is compared, not only those before a first difference);
     * where attn4j's greedy choice differs, the reference's top-1 margin there must be below twice the target's
     * logit tolerance scaled by the largest logit, the bound within which two logits cannot be ordered.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("acrossTargets")
    void greedyIdsAreTheFloat64ReferencesExceptAtNearTies(DecoderGoldens.Target t, Case c) throws IOException {
        List<String> ties = new ArrayList<>();
        try (CausalLM model = CausalLM.load(c.path(), t.backend(), t.dtype());
             KvCache cache = model.newCache(1, c.prompt().length + c.generated().length);
             Scope scope = t.backend().newScope()) {
            double[] logits = model.next(scope, new int[][] {c.prompt()}, cache).toDoubleArray();
            for (int i = 0; i < c.generated().length; i++) {
                int chosen = argmax(logits);
                if (chosen != c.generated()[i]) {
                    double bound = 2 * t.tolerance() * (1 + Math.abs(logits[chosen]));
                    String where = "step " + i + ": expected id " + c.generated()[i] + ", actual " + chosen
                            + ", reference margin " + c.margins()[i] + ", bound " + bound;
                    assertTrue(c.margins()[i] < bound, c.file() + " on " + t + ": " + where + " (not a near tie)");
                    ties.add(where);
                }
                logits = model.next(scope, new int[][] {{c.generated()[i]}}, cache).toDoubleArray();
            }
        }
        System.out.println(c.file() + " on " + t + ": " + (ties.isEmpty() ? "every id equal" : "near ties at "
                + ties));
    }

    private static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }
}
