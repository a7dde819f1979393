package org.attn4j.cli;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.tokenize.Tokenizer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Opens a command's {@code --model} with {@link Checkpoint#open(Path, Checkpoint.Kind, Path)}: a path attn4j cannot
 * read, a model of the other kind, a configuration it refuses, a file not as its format says, or an encoder's missing
 * or unreadable file is bad input (exit code 2, one line naming {@code --model}); a decoder's file that cannot be read
 * at all stays an I/O failure.
 */
final class CheckpointOption {

    private CheckpointOption() {
    }

    /**
     * @param model the {@code --model} path
     * @param kind what the command runs
     * @param tokenizer an encoder's {@code --tokenizer}, or null
     * @param spec the command, for the message
     * @return the checkpoint, of that kind
     * @throws IOException if a decoder's file cannot be read
     */
    static Checkpoint open(Path model, Checkpoint.Kind kind, Path tokenizer, CommandSpec spec) throws IOException {
        try {
            return Checkpoint.open(model, kind, tokenizer);
        } catch (Checkpoint.UnreadablePathException | Gguf.FormatException | Tokenizer.FormatException
                 | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--model " + EmbedCommand.oneLine(e.getMessage()));
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "--model " + model + ": " + missing(e));
        } catch (IOException e) {
            if (kind != Checkpoint.Kind.ENCODER) {
                throw e;
            }
            throw new ParameterException(spec.commandLine(), "--model " + model + ": "
                    + EmbedCommand.oneLine(e.getMessage()));
        }
    }

    /**
     * @param e a missing file
     * @return the file and why it is needed, on one line
     */
    static String missing(NoSuchFileException e) {
        return EmbedCommand.oneLine(e.getFile() + (e.getReason() == null ? " is missing" : " " + e.getReason()));
    }
}
