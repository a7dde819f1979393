package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataArchiveTest {
    @TempDir
    Path dir;

    private Path jar(String name, int size) throws IOException {
        return Files.write(dir.resolve(name), new byte[size]);
    }

    @Test
    void theFirstRunWritesTheArchiveUnderItsOwnNameAndLaterRunsMapItOncePublished() throws IOException {
        Path jar = jar("attn4j.jar", 10);
        Path cache = dir.resolve("cache");
        ClassDataArchive first = ClassDataArchive.of(List.of("-Xmx1g"), 17, jar.toString(), cache).orElseThrow();
        List<String> options = first.options(17);
        assertTrue(options.get(0).startsWith("-XX:ArchiveClassesAtExit=" + cache), options.toString());
        assertTrue(options.get(0).endsWith(".tmp"), options.toString());
        assertEquals(List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off"), options.subList(1, 3));
        first.publish();
        assertFalse(Files.exists(first.path()), "nothing was written, so nothing is published");
        Files.write(Path.of(options.get(0).substring("-XX:ArchiveClassesAtExit=".length())), new byte[] {1});
        first.publish();
        assertTrue(Files.isRegularFile(first.path()));
        try (var files = Files.list(cache)) {
            assertEquals(List.of(first.path()), files.toList(), "the pending file was moved, not copied");
        }
        ClassDataArchive later = ClassDataArchive.of(List.of("-Xmx1g"), 17, jar.toString(), cache).orElseThrow();
        assertEquals(first.path(), later.path());
        assertEquals("-XX:SharedArchiveFile=" + first.path(), later.options(17).get(0));
        assertTrue(later.options(25).contains("-Xlog:aot=off"));
        assertFalse(later.options(21).contains("-Xlog:aot=off"));
    }

    @Test
    void anotherJarAnotherJdkOptionOrAnotherClassPathGetsAnotherArchive() throws IOException {
        Path jar = jar("attn4j.jar", 10);
        Path other = jar("other.jar", 11);
        Path cache = dir.resolve("cache");
        Path base = ClassDataArchive.of(List.of(), 17, jar.toString(), cache).orElseThrow().path();
        assertNotEquals(base, ClassDataArchive.of(List.of("-Xmx2g"), 17, jar.toString(), cache).orElseThrow().path());
        assertNotEquals(base, ClassDataArchive.of(List.of(), 17, jar + File.pathSeparator + other, cache)
                .orElseThrow().path());
        Files.write(jar, new byte[12]);
        assertNotEquals(base, ClassDataArchive.of(List.of(), 17, jar.toString(), cache).orElseThrow().path());
    }

    @Test
    void noArchiveWhereTheJvmCannotMakeOneOrTheOptionsChooseSharing() throws IOException {
        Path jar = jar("attn4j.jar", 10);
        Path cache = dir.resolve("cache");
        assertEquals(Optional.empty(), ClassDataArchive.of(List.of(), 11, jar.toString(), cache));
        for (String option : List.of("-Xshare:off", "-XX:SharedArchiveFile=x.jsa", "-XX:ArchiveClassesAtExit=y.jsa",
                "-XX:AOTCache=app.aot", "-XX:+AutoCreateSharedArchive")) {
            assertEquals(Optional.empty(), ClassDataArchive.of(List.of(option), 21, jar.toString(), cache), option);
        }
        assertEquals(Optional.empty(), ClassDataArchive.of(List.of(), 17, dir.toString(), cache), "a directory");
        assertEquals(Optional.empty(), ClassDataArchive.of(List.of(), 17, jar + File.pathSeparator
                + dir.resolve("missing.jar"), cache), "a missing jar");
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertEquals(Optional.empty(), ClassDataArchive.of(List.of(), 17, jar.toString(), file.resolve("cache")),
                "a cache folder that cannot be created");
    }

    @Test
    void theCacheFolderIsThePlatformsUserCache() {
        assertEquals(Optional.of(Path.of("/home/u/.cache/attn4j")),
                ClassDataArchive.cacheFolder(Map.of(), "Linux", "/home/u"));
        assertEquals(Optional.of(Path.of("/x/cache/attn4j")),
                ClassDataArchive.cacheFolder(Map.of("XDG_CACHE_HOME", "/x/cache"), "Linux", "/home/u"));
        assertEquals(Optional.of(Path.of("/home/u/.cache/attn4j")),
                ClassDataArchive.cacheFolder(Map.of("XDG_CACHE_HOME", "relative"), "Linux", "/home/u"));
        assertEquals(Optional.of(Path.of("/Users/u/Library/Caches/attn4j")),
                ClassDataArchive.cacheFolder(Map.of(), "Mac OS X", "/Users/u"));
        assertEquals(Optional.empty(), ClassDataArchive.cacheFolder(Map.of(), "Windows 11", "C:\\Users\\u"));
        assertEquals(Optional.empty(), ClassDataArchive.cacheFolder(Map.of(), "Linux", ""));
    }
}
