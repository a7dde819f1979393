package org.attn4j.cli;

import org.attn4j.models.generate.GenerationOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The generation options {@code generate} and {@code chat} share. Each one left out keeps the checkpoint's value
 * (its {@code generation_config.json}, read by {@link org.attn4j.models.generate.GenerationConfig}); given, it wins.
 */
final class SamplingOptions {

    @Option(names = "--max-new", paramLabel = "N",
            description = "the most tokens to generate (default: the checkpoint's max_new_tokens, else 32 for generate"
                    + " and 512 for chat)")
    Integer maxNew;

    @Option(names = "--temperature", paramLabel = "T",
            description = "0 for greedy decoding, else the sampling temperature (default: the checkpoint's, greedy"
                    + " unless its generation_config.json says do_sample)")
    Double temperature;

    @Option(names = "--top-k", paramLabel = "K",
            description = "sample from the K most likely tokens; 0 for all (default: the checkpoint's)")
    Integer topK;

    @Option(names = "--top-p", paramLabel = "P",
            description = "sample from the most likely tokens whose probability reaches P (default: the checkpoint's)")
    Double topP;

    @Option(names = "--min-p", paramLabel = "P",
            description = "sample only tokens at least P times as likely as the likeliest (default: the checkpoint's)")
    Double minP;

    @Option(names = "--repetition-penalty", paramLabel = "R",
            description = "divide the logits of tokens already present by R (default: the checkpoint's, 1 for none)")
    Double repetitionPenalty;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0",
            description = "the sampler's seed (default: ${DEFAULT-VALUE})")
    long seed;

    /**
     * @param base the checkpoint's options
     * @param defaultMaxNew the command's limit when neither the option nor the checkpoint sets one
     * @param checkpointSetsMaxNew whether the checkpoint's generation config sets {@code max_new_tokens}
     * @param spec the command, for errors
     * @return the options to generate with
     * @throws ParameterException if a value is out of range
     */
    GenerationOptions apply(GenerationOptions base, int defaultMaxNew, boolean checkpointSetsMaxNew,
                            CommandSpec spec) {
        try {
            GenerationOptions o = base.withSeed(seed);
            if (maxNew != null) {
                o = o.withMaxNewTokens(maxNew);
            } else if (!checkpointSetsMaxNew) {
                o = o.withMaxNewTokens(defaultMaxNew);
            }
            if (temperature != null) {
                o = o.withTemperature(temperature);
            }
            if (topK != null) {
                o = o.withTopK(topK);
            }
            if (topP != null) {
                o = o.withTopP(topP);
            }
            if (minP != null) {
                o = o.withMinP(minP);
            }
            if (repetitionPenalty != null) {
                o = o.withRepetitionPenalty(repetitionPenalty);
            }
            return o;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
