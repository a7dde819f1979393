package org.attn4j.models;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The decoder golden cases (op {@code CausalLM} of the TCK's models group) for the tests of package
 * {@code decoder}, with the backends and tolerances of {@link Numerics}.
 */
public final class DecoderGoldens {

    private DecoderGoldens() {
    }

    /**
     * One decoder case.
     *
     * @param name the case name
     * @param config its {@code config.json} keys
     * @param prompt the prompt ids
     * @param logits the prompt's logits {@code [1, L, V]}
     * @param generated the greedy continuation
     * @param stepLogits {@code [steps, V]}: row {@code i} the logits after generated token {@code i} was fed
     * @param margins the top-1 margin (largest minus second largest logit) of each greedy choice
     * @param parameters the state_dict under Hugging Face names
     */
    public record Decoder(String name, Map<String, Object> config, int[] prompt, HostTensor logits, int[] generated,
                          HostTensor stepLogits, double[] margins, StateDict parameters) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A backend and dtype with their tolerances. */
    public static final class Target {
        private final Numerics.Target target;

        Target(Numerics.Target target) {
            this.target = target;
        }

        /** @return the backend */
        public Backend backend() {
            return target.backend();
        }

        /** @return the dtype */
        public DType dtype() {
            return target.dtype();
        }

        /**
         * Compares logits within {@code 1e-10} (F64) or {@code 2e-4} (F32) absolute plus relative: two blocks of
         * F32 products of length up to 48 and norms, whose 1e-6 relative errors the residual stream carries into
         * logits of magnitude up to about 10.
         *
         * @param what what is compared
         * @param expected the golden values
         * @param actual the computed values
         */
        public void assertClose(String what, double[] expected, double[] actual) {
            double tolerance = tolerance();
            if (expected.length != actual.length) {
                throw new AssertionError(what + " on " + target + ": " + actual.length + " values, expected "
                        + expected.length);
            }
            for (int i = 0; i < expected.length; i++) {
                double abs = Math.abs(actual[i] - expected[i]);
                if (!(abs <= tolerance + tolerance * Math.abs(expected[i]))) {
                    throw new AssertionError(what + " on " + target + ": index " + i + " expected " + expected[i]
                            + " actual " + actual[i] + " abs error " + abs + " rel error "
                            + abs / Math.abs(expected[i]));
                }
            }
        }

        /** @return the absolute and relative tolerance of {@link #assertClose} */
        public double tolerance() {
            return target.dtype() == DType.F64 ? 1e-10 : 2e-4;
        }

        @Override
        public String toString() {
            return target.toString();
        }
    }

    /** @return every decoder case */
    @SuppressWarnings("unchecked")
    public static List<Decoder> all() {
        return Goldens.of("CausalLM").stream().map(c -> new Decoder(c.name(),
                (Map<String, Object>) c.params().get("config"), ints(c.input("ids")), c.output("logits"),
                ints(c.output("generated")), c.output("stepLogits"), c.output("margins").data(), c.parameters()))
                .toList();
    }

    /**
     * One set of rotary parameters of a checkpoint's config, as transformers computes them.
     *
     * @param name the case name
     * @param config the {@code config.json} keys
     * @param sequenceLength the forward's sequence length
     * @param layerType the layer type whose parameters these are
     * @param inverseFrequencies the expected frequencies
     * @param attentionScaling the expected scaling
     */
    public record Rope(String name, Map<String, Object> config, int sequenceLength, String layerType,
                       double[] inverseFrequencies, double attentionScaling) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** @return every rotary parameter case */
    @SuppressWarnings("unchecked")
    public static List<Rope> rope() {
        return Goldens.of("RopeParameters").stream().map(c -> new Rope(c.name(),
                (Map<String, Object>) c.params().get("config"), ((Number) c.params().get("seqLen")).intValue(),
                (String) c.params().get("layerType"), c.output("inverseFrequencies").data(),
                c.output("attentionScaling").get(0))).toList();
    }

    /** @return every backend and dtype of the test class path, with its tolerances */
    public static List<Target> targets() {
        return Numerics.targets().stream().map(Target::new).toList();
    }

    /** @return every (target, case) pair */
    public static Stream<Arguments> across() {
        List<Decoder> cases = all();
        return Numerics.targets().stream().flatMap(t -> cases.stream().map(c -> Arguments.of(new Target(t), c)));
    }

    private static int[] ints(HostTensor t) {
        int[] out = new int[(int) t.shape().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) t.get(i);
        }
        return out;
    }
}
