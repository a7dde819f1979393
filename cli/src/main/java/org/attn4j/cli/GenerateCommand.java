package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.attn4j.api.DType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.GenerationOptions;
import org.attn4j.models.decoder.Generator;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j generate}: decodes with a key/value cache from a Hugging Face folder ({@code config.json} with
 * {@code model_type} gpt2 or llama, safetensors) and prints each new token id as soon as it exists, separated by
 * spaces, then a newline.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate tokens with a GPT-2 or Llama-style model from a Hugging Face folder, streaming each "
                + "new token id as it is produced. Temperature 0 (the default) is greedy decoding."},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input."})
final class GenerateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "DIR", required = true,
            description = "a folder with config.json and *.safetensors")
    private Path model;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Prompt prompt;

    /** The prompt: text (which needs a tokenizer) or token ids. */
    static final class Prompt {
        @Option(names = "--prompt", paramLabel = "TEXT", required = true,
                description = "the prompt as text; needs a tokenizer in the model folder")
        private String text;

        @Option(names = "--ids", paramLabel = "N,N,...", split = ",", required = true,
                description = "the prompt as token ids")
        private int[] ids;
    }

    @Option(names = "--max-new", paramLabel = "N", defaultValue = "32",
            description = "the most tokens to generate (default: ${DEFAULT-VALUE})")
    private int maxNew;

    @Option(names = "--temperature", paramLabel = "T", defaultValue = "0",
            description = "0 for greedy decoding, else the sampling temperature (default: ${DEFAULT-VALUE})")
    private double temperature;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "0",
            description = "sample from the K most likely tokens; 0 for all (default: ${DEFAULT-VALUE})")
    private int topK;

    @Option(names = "--top-p", paramLabel = "P", defaultValue = "1",
            description = "sample from the most likely tokens whose probability reaches P (default: ${DEFAULT-VALUE})")
    private double topP;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0",
            description = "the sampler's seed (default: ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--backend", paramLabel = "NAME", description = "the backend to run on (default: the selected one)")
    private String backend;

    @Override
    public Integer call() throws IOException {
        GenerationOptions options;
        try {
            options = GenerationOptions.defaults().withMaxNewTokens(maxNew).withTemperature(temperature)
                    .withTopK(topK).withTopP(topP).withSeed(seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!Files.isDirectory(model)) {
            throw new ParameterException(spec.commandLine(), "--model " + model + " is not a folder");
        }
        if (prompt.text != null) {
            throw new ParameterException(spec.commandLine(), "--prompt needs a tokenizer, and this build reads"
                    + " none for decoder models; give the prompt as --ids");
        }
        if (prompt.ids.length == 0) {
            throw new ParameterException(spec.commandLine(), "--ids is empty; give at least one token id");
        }
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        CausalLM lm;
        try {
            lm = CausalLM.load(model, choice.backend(), DType.F32);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        try (lm) {
            for (int id : prompt.ids) {
                if (id < 0 || id >= lm.config().vocabSize()) {
                    throw new ParameterException(spec.commandLine(), "--ids holds " + id + ", outside the vocabulary"
                            + " [0, " + lm.config().vocabSize() + ")");
                }
            }
            int[] count = {0};
            Generator.generate(lm, prompt.ids, options, id -> {
                out.print((count[0]++ == 0 ? "" : " ") + id);
                out.flush();
            });
            out.println();
            out.flush();
        }
        return 0;
    }
}
