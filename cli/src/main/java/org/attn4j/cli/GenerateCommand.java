package org.attn4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.attn4j.api.DType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.GenerationConfig;
import org.attn4j.models.decoder.GenerationOptions;
import org.attn4j.models.decoder.Generator;
import org.attn4j.models.io.Gguf;
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
/**
 * {@code attn4j generate}: decodes with a key/value cache from a Hugging Face folder ({@code config.json} of a
 * family {@code CausalLM} loads: gpt2, llama, mistral, qwen2, qwen3, gemma, gemma2, phi3; safetensors; an optional
 * tokenizer) or a GGUF file (architecture llama or gpt2, its tokenizer in its metadata, weights kept in the file's
 * types) and prints each new token as soon as it exists, then a newline: as text when there is a tokenizer
 * ({@code tokenizer.json} with {@code tokenizer_config.json}, or GPT-2's {@code vocab.json} + {@code merges.txt}, or
 * the GGUF's) and no {@code --print-ids}, else as ids separated by spaces. {@code --prompt} needs the tokenizer,
 * which adds the BOS the checkpoint wants. A folder's {@code generation_config.json} gives the stop ids and the
 * sampling defaults; options given win.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate tokens with a GPT-2, Llama, Mistral, Qwen2/3, Gemma/Gemma 2 or Phi-3 model from a "
                + "Hugging Face folder or a GGUF file, streaming each new token as it is produced: text with a "
                + "tokenizer, ids without one. A folder's generation_config.json gives the stop ids and the sampling "
                + "defaults (greedy without one); the options below override them."},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input."})
final class GenerateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", paramLabel = "DIR|FILE.gguf", required = true,
            description = "a folder with config.json, *.safetensors and optionally tokenizer.json or vocab.json + "
                    + "merges.txt; or a .gguf file (llama or gpt2)")
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

    @Override
    public Integer call() throws IOException {
        Gguf.Contents gguf = null;
        if (Files.isRegularFile(model) && model.getFileName().toString().endsWith(".gguf")) {
            try {
                gguf = Gguf.read(model);
            } catch (Gguf.FormatException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        } else if (!Files.isDirectory(model)) {
            throw new ParameterException(spec.commandLine(), "--model " + model + " is not a folder or a .gguf file");
        }
        GenerationConfig generation;
        try {
            generation = gguf != null ? GenerationConfig.empty() : GenerationConfig.read(model);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        sampling.apply(generation.options(), 32, generation.maxNewTokens().isPresent(), spec);
        Tokenizer tokenizer = gguf != null ? ggufTokenizer(gguf) : tokenizer();
        int[] ids;
        if (prompt.text != null) {
            if (tokenizer == null) {
                throw new ParameterException(spec.commandLine(), "--prompt needs a tokenizer, and " + model
                        + (gguf != null ? " has no tokenizer.ggml.model" : " has no tokenizer.json and no vocab.json"
                        + " + merges.txt") + "; give the prompt as --ids");
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
        BackendChoice choice = BackendChoice.resolve(backend, spec);
        CausalLM lm;
        try {
            lm = gguf != null ? CausalLM.load(gguf, choice.backend(), DType.F32, null)
                    : CausalLM.load(model, choice.backend(), DType.F32);
            gguf = null;
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
            if (tokenizer == null || printIds) {
                int[] count = {0};
                Generator.generate(lm, ids, options, id -> {
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
                Generator.generate(lm, ids, options, id -> {
                    out.print(tokenizer.token(id).isPresent() ? text.next(id) : "");
                    out.flush();
                });
                out.print(text.finish());
            }
            out.println();
            out.flush();
        }
        return 0;
    }

    /** @return the GGUF's tokenizer, or null if it has no {@code tokenizer.ggml.model} */
    private Tokenizer ggufTokenizer(Gguf.Contents gguf) {
        if (!gguf.has("tokenizer.ggml.model")) {
            return null;
        }
        try {
            return Tokenizer.fromGguf(gguf);
        } catch (Tokenizer.FormatException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Tokenizer tokenizer() throws IOException {
        boolean present = Files.isRegularFile(model.resolve("tokenizer.json"))
                || (Files.isRegularFile(model.resolve("vocab.json")) && Files.isRegularFile(model.resolve("merges.txt")));
        if (!present) {
            return null;
        }
        try {
            return Tokenizer.fromFolder(model);
        } catch (Tokenizer.FormatException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
