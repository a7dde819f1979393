package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "demo", "embed", "rerank", "backends", "tck"})
    void everyCommandPrintsItsHelpAndExitsZero(String command) {
        Cli r = command.isEmpty() ? Cli.run("--help") : Cli.run(command, "--help");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().startsWith("Usage: attn4j" + (command.isEmpty() ? "" : " " + command)), r.transcript());
        assertTrue(r.out().contains("-h, --help"), r.transcript());
        assertEquals("", r.err(), r.transcript());
    }

    @Test
    void noCommandIsAOneLineUsageError() {
        Cli r = Cli.run();
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j: a command is required: demo, embed, rerank, backends, tck, generate, chat, serve (see"
                + " 'attn4j --help')",
                r.err().strip(), r.transcript());
    }

    @Test
    void anUnknownOptionIsAOneLineUsageError() {
        Cli r = Cli.run("backends", "--colour");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertTrue(r.err().startsWith("attn4j backends: Unknown option: '--colour'"), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }

    @Test
    void anUnknownCommandIsAOneLineUsageError() {
        Cli r = Cli.run("train");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertTrue(r.err().contains("'train'"), r.transcript());
    }

    @Test
    void versionNamesTheProjectVersion() {
        Cli r = Cli.run("--version");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().startsWith("attn4j 0."), r.transcript());
    }
}
