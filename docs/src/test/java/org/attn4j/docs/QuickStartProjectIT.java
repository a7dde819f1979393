package org.attn4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Follows the root README's "Quick start" as a new user would, with the README's own text: its install command in
 * a copy of this repository, its {@code pom.xml} and {@code QuickStart.java} in a fresh folder, its run command
 * there, and compares what that prints with the README's expected output ({@link ScratchBuild}: a private local
 * Maven repository).
 */
class QuickStartProjectIT {

    @Test
    void theQuickStartBuildsAndRunsWithTheCommandsTheReadmeGives() throws Exception {
        String section = Readmes.section(Readmes.read(Readmes.root().resolve("README.md")), "Quick start");
        List<Readmes.Block> blocks = Readmes.blocks(section);
        List<String> commands = blocks.stream().filter(b -> b.language().equals("shell"))
                .map(b -> b.text().strip()).toList();
        assertEquals(2, commands.size(), "an install command and a run command:\n" + section);
        String pom = Readmes.only(blocks, "xml");
        String quickStart = Readmes.only(blocks, "java");
        List<String> expected = Readmes.only(blocks, "text").lines().toList();

        ScratchBuild build = ScratchBuild.get();
        ScratchBuild.Run install = build.maven(build.repository(), commands.get(0));
        assertEquals(0, install.exit(), install.transcript());

        Path project = build.newFolder("quickstart");
        Files.writeString(project.resolve("pom.xml"), pom);
        Path source = project.resolve("src/main/java/QuickStart.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, quickStart);
        ScratchBuild.Run run = build.maven(project, commands.get(1));
        assertEquals(0, run.exit(), run.transcript());

        List<String> printed = run.lines();
        assertTrue(printed.size() >= expected.size(), run.transcript());
        for (int i = 0; i < expected.size(); i++) {
            String want = expected.get(i);
            if (want.endsWith("…]")) {
                String prefix = want.substring(0, want.length() - 2);
                assertTrue(printed.get(i).startsWith(prefix), "line " + i + ": expected " + want + "\n"
                        + run.transcript());
            } else {
                assertEquals(want, printed.get(i), run.transcript());
            }
        }
    }
}
