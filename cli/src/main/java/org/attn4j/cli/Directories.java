package org.attn4j.cli;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Checks, before any work, that an output location given on the command line can be written. */
final class Directories {

    private Directories() {
    }

    /**
     * Creates {@code dir} and its parents if missing and checks that it is writable.
     *
     * @param dir the directory
     * @param what how the error names it, for example {@code "--out build/demo"}
     * @param spec the command, for the usage error
     * @throws ParameterException (exit code 2) if it cannot be created or written, saying why
     */
    static void requireWritable(Path dir, String what, CommandSpec spec) {
        try {
            Files.createDirectories(dir);
        } catch (FileSystemException e) {
            throw new ParameterException(spec.commandLine(), what + " cannot be created: " + (e.getReason() != null
                    ? e.getReason() : e.getClass().getSimpleName()) + " (" + e.getFile() + ")");
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), what + " cannot be created: " + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw new ParameterException(spec.commandLine(), what + " is not writable");
        }
    }
}
