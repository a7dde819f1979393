package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.GenerationConfig;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.tokenize.DecodeStream;
import org.attn4j.models.tokenize.Tokenizer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j generate}: decodes with a key/value cache from a Hugging Face folder ({@code config.json} of a
 * family {@code CausalLM} loads: gpt2, llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text, gemma3, phi3;
 * safetensors; an optional tokenizer) or a GGUF file (architecture llama, qwen2, qwen3, gemma, gemma2, gemma3, phi3
 * or gpt2, its tokenizer in its metadata, weights kept in the file's types) and prints each new token as soon as it
 * exists, then a newline: as text when there is a tokenizer
 * ({@code tokenizer.json} with {@code tokenizer_config.json}, or GPT-2's {@code vocab.json} + {@code merges.txt}, or
 * the GGUF's) and no {@code --print-ids}, else as ids separated by spaces. {@code --prompt} needs the tokenizer,
 * which adds the BOS the checkpoint wants. A folder's {@code generation_config.json} (a GGUF file's metadata: its
 * end-of-generation ids and {@code general.sampling.*}) gives the stop ids and the sampling defaults; options given
 * win. {@code --weights} quantizes the matrices once at load, each to the type a llama.cpp mix chooses for it
 * ({@code q4_k_m}, {@code q5_k_m}, {@code q4_k_s}, {@code q6_k}, {@code q8_0}: {@link QuantMix}), or converts every
 * matrix to one storage type; {@code --stats} prints the mix the weights are held in (a GGUF file's named by its
 * {@code general.file_type}), counted by type, with their bytes, the prefill and decode rates and the peak memory
 * on standard error afterwards ({@link GenerationStats}). Like llama.cpp, it runs
 * the model once before the prompt (on the prompt's first tokens, into a cache it drops), so that the kernels are
 * compiled before the prompt's timing starts.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate tokens with a GPT-2, Llama, Mistral, Qwen2/3, Gemma/Gemma 2 or Phi-3 model from a "
                + "Hugging Face folder or a GGUF file, streaming each new token as it is produced: text with a "
                + "tokenizer, ids without one. A folder's generation_config.json (a GGUF file's metadata) gives the "
                + "stop ids and the sampling defaults (greedy without them); the options below override them."},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input."})
final class GenerateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "DIR|FILE.gguf", required = true,
            description = "a folder with config.json, *.safetensors and optionally tokenizer.json or vocab.json + "
                    + "merges.txt; or a .gguf file (llama, qwen2, qwen3, gemma, gemma2, gemma3, phi3 or gpt2)")
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

    @Mixin
    private SamplingOptions sampling;

    @Option(names = "--print-ids", description = "print token ids even when the folder has a tokenizer")
    private boolean printIds;

    @Option(names = "--backend", paramLabel = "NAME", description = "the backend to run on (default: the selected one)")
    private String backend;

    @Option(names = "--weights", paramLabel = "TYPE", defaultValue = "as-file",
            description = "how the model's matrices are held: as-file (each keeps its file's type); a llama.cpp mix, each "
                    + "matrix quantized once at load to the type llama-quantize chooses for it: q4_k_m, q5_k_m, q4_k_s, "
                    + "q6_k or q8_0; or one weight type for every matrix, converted once at load: f32, f16, bf16, q4_0, "
                    + "q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, iq4_nl or iq4_xs (default: ${DEFAULT-VALUE})")
    private String weights;

    @Option(names = "--stats", description = "print the load time, prefill and decode tokens/s and the peak memory on "
            + "standard error after the text")
    private boolean stats;

    @Override
    public Integer call() throws IOException {
        Checkpoint checkpoint = CheckpointOption.open(model, Checkpoint.Kind.DECODER, null, spec);
        GenerationConfig generation;
        try {
            generation = GenerationConfig.of(checkpoint);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--model " + EmbedCommand.oneLine(e.getMessage()));
        }
        sampling.apply(generation.options(), 32, generation.maxNewTokens().isPresent(), spec);
        Tokenizer tokenizer = checkpoint.tokenizer().orElse(null);
        int[] ids;
        if (prompt.text != null) {
            if (tokenizer == null) {
                throw new ParameterException(spec.commandLine(), "--prompt needs a tokenizer, and " + model
                        + (checkpoint.format() == Checkpoint.Format.GGUF ? " has no tokenizer.ggml.model"
                        : " has no tokenizer.json and no vocab.json + merges.txt") + "; give the prompt as --ids");
            }
            try {
                ids = tokenizer.encode(prompt.text).ids();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--prompt cannot be encoded: " + e.getMessage());
            }
            if (ids.length == 0) {
                throw new ParameterException(spec.commandLine(), "--prompt encodes to no tokens; give some text");
            }
        } else {
            ids = prompt.ids;
            if (ids.length == 0) {
                throw new ParameterException(spec.commandLine(), "--ids is empty; give at least one token id");
            }
        }
        QuantMix mix = QuantMix.producible(weights).orElse(null);
        WeightType storage = mix == null ? storage() : null;
        GenerationStats timing = new GenerationStats();
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        long start = System.nanoTime();
        CausalLM lm;
        try {
            lm = mix != null ? CausalLM.quantized(checkpoint, choice.backend(), DType.F32, mix)
                    : CausalLM.from(checkpoint, choice.backend(), DType.F32, storage);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        try (lm) {
            String source = prompt.text != null ? "--prompt encodes to" : "--ids holds";
            for (int id : ids) {
                if (id < 0 || id >= lm.config().vocabSize()) {
                    throw new ParameterException(spec.commandLine(), source + " " + id + ", outside the vocabulary"
                            + " [0, " + lm.config().vocabSize() + ")");
                }
            }
            if (!generation.unknownKeys().isEmpty()) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + generation.source()
                        + " has keys attn4j does not know, ignored: " + String.join(", ", generation.unknownKeys()));
            }
            GenerationOptions options = sampling.apply(generation.options(ids.length), 32,
                    generation.maxNewTokens().isPresent(), spec);
            lm.warmUp(ids, CausalLM.DEFAULT_WARM_UP);
            timing.loaded();
            CommandLog.loaded(spec.qualifiedName(), model.toString(), start);
            int[] generated;
            timing.promptStarts();
            long promptStart = System.nanoTime();
            int[] tokens = {0};
            Runnable first = () -> {
                if (tokens[0]++ == 0) {
                    CommandLog.firstCall(spec.qualifiedName(), "a prompt of " + ids.length + " tokens to its first new"
                            + " token", promptStart);
                }
            };
            if (tokenizer == null || printIds) {
                int[] count = {0};
                generated = Generator.generate(lm, ids, options, id -> {
                    first.run();
                    timing.token();
                    out.print((count[0]++ == 0 ? "" : " ") + id);
                    out.flush();
                });
            } else {
                // the prompt's last id is context, so that the first word keeps its space (SentencePiece drops a
                // text's first one); an id past the tokenizer (a row of a padded embedding) prints nothing, as
                // transformers' decode skips it
                int last = ids[ids.length - 1];
                DecodeStream text = new DecodeStream(tokenizer, true, tokenizer.token(last).isPresent()
                        ? new int[] {last} : new int[0]);
                generated = Generator.generate(lm, ids, options, id -> {
                    first.run();
                    timing.token();
                    out.print(tokenizer.token(id).isPresent() ? text.next(id) : "");
                    out.flush();
                });
                out.print(text.finish());
            }
            out.println();
            out.flush();
            if (stats) {
                timing.print(spec.commandLine().getErr(), ids.length, generated.length < options.maxNewTokens(),
                        "backend " + choice.backend().name() + ", weights " + lm.census());
            }
        }
        return 0;
    }

    /** @return the storage type {@code --weights} asks for, or null to keep each file's */
    private WeightType storage() {
        String w = weights.trim().toLowerCase(Locale.ROOT);
        if (w.equals("as-file")) {
            return null;
        }
        StringBuilder names = new StringBuilder("as-file, ").append(QuantMix.producibleNames());
        for (WeightType t : WeightType.values()) {
            if (t == WeightType.F64 || t == WeightType.I8 || QuantMix.producible(t.name()).isPresent()) {
                continue;
            }
            String name = t.name().toLowerCase(Locale.ROOT);
            if (name.equals(w)) {
                return t;
            }
            names.append(", ").append(name);
        }
        throw new ParameterException(spec.commandLine(), "--weights " + weights + " is not one of " + names);
    }
}
