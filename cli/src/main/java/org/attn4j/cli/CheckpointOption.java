package org.attn4j.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.attn4j.models.Checkpoint;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.tokenize.Tokenizer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Opens a command's {@code --model} with {@link Checkpoint#open(Path, Checkpoint.Kind)}: a path attn4j cannot read, a
 * model of the other kind, a configuration it refuses or a file not as its format says is bad input (exit code 2,
 * one line naming {@code --model}); a file that cannot be read at all stays an I/O failure.
 */
final class CheckpointOption {

    private CheckpointOption() {
    }

    /**
     * @param model the {@code --model} path
     * @param kind what the command runs
     * @param spec the command, for the message
     * @return the checkpoint, of that kind
     * @throws IOException if a file cannot be read
     */
    static Checkpoint open(Path model, Checkpoint.Kind kind, CommandSpec spec) throws IOException {
        try {
            return Checkpoint.open(model, kind);
        } catch (Checkpoint.UnreadablePathException | Gguf.FormatException | Tokenizer.FormatException
                 | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--model " + EmbedCommand.oneLine(e.getMessage()));
        }
    }
}
