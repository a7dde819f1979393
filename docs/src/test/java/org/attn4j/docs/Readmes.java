package org.attn4j.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The repository's README files and their fenced code blocks. */
final class Readmes {
    private static final Pattern FENCE = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);

    /**
     * A fenced code block.
     *
     * @param language its language tag, empty if none
     * @param text its text
     */
    record Block(String language, String text) {
    }

    private Readmes() {
    }

    /** @return the repository's root folder, as the build passes it in {@code attn4j.repository.root} */
    static Path root() {
        String root = System.getProperty("attn4j.repository.root");
        if (root == null) {
            throw new IllegalStateException("system property attn4j.repository.root is not set; run through Maven");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    /** @return every README.md under the root, outside build output and hidden folders, in path order */
    static List<Path> all() {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> Stream.of(root().relativize(p).toString().split("/"))
                            .noneMatch(part -> part.equals("target") || part.startsWith(".")
                                    || part.equals("node_modules")))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param file a README
     * @return its text
     */
    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param markdown a README's text
     * @return its fenced code blocks, in order
     */
    static List<Block> blocks(String markdown) {
        List<Block> blocks = new ArrayList<>();
        Matcher m = FENCE.matcher(markdown);
        while (m.find()) {
            blocks.add(new Block(m.group(1), m.group(2)));
        }
        return blocks;
    }

    /**
     * @param blocks a section's blocks
     * @param language a language tag
     * @return the text of the one block of that language
     */
    static String only(List<Block> blocks, String language) {
        List<String> found = blocks.stream().filter(b -> b.language().equals(language)).map(Block::text).toList();
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " ```" + language + " blocks in the section, expected one");
        }
        return found.get(0);
    }

    /**
     * @param markdown a README's text
     * @param heading a level-2 heading, without the {@code ## }
     * @return the text of that section, up to the next level-2 heading
     * @throws IllegalArgumentException if there is no such section
     */
    static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n## " + heading + "\n");
        if (start < 0) {
            throw new IllegalArgumentException("no section '## " + heading + "'");
        }
        int end = markdown.indexOf("\n## ", start + 1);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }
}
