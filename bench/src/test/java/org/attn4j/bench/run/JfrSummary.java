package org.attn4j.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The top frames of JFR recordings: the share of {@code jdk.ExecutionSample} events whose innermost frame is each
 * method, and how that frame ran (JIT-compiled, inlined, interpreted). A Vector API fallback
 * ({@code FloatVector.tOpTemplate}, {@code FloatSpecies.rvOp}, …) among them means a kernel that is not running
 * vector instructions.
 *
 * <pre>
 *   java -cp … org.attn4j.bench.run.JfrSummary FILE_OR_DIR… [top]
 * </pre>
 */
public final class JfrSummary {
    private JfrSummary() {
    }

    /**
     * @param args recordings or directories holding them, then optionally how many frames to print (25)
     * @throws IOException if a recording cannot be read
     */
    public static void main(String[] args) throws IOException {
        int top = 25;
        List<String> paths = List.of(args);
        if (!paths.isEmpty() && paths.get(paths.size() - 1).matches("\\d+")) {
            top = Integer.parseInt(paths.get(paths.size() - 1));
            paths = paths.subList(0, paths.size() - 1);
        }
        List<Path> files = paths.stream().map(Path::of).flatMap(p -> {
            try {
                return files(p).stream();
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }).toList();
        System.out.print(markdown(files, top));
    }

    /**
     * @param path a recording, or a directory searched for {@code *.jfr}
     * @return the recordings
     * @throws IOException if the directory cannot be listed
     */
    static List<Path> files(Path path) throws IOException {
        if (!Files.isDirectory(path)) {
            return List.of(path);
        }
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
        }
    }

    /**
     * @param files recordings
     * @param top how many frames
     * @return a Markdown table: share of samples, frame, how it ran
     * @throws IOException if a recording cannot be read
     */
    static String markdown(List<Path> files, int top) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        int total = 0;
        for (Path file : files) {
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace stack = e.getStackTrace();
                if (stack == null || stack.getFrames().isEmpty()) {
                    continue;
                }
                RecordedFrame f = stack.getFrames().get(0);
                String name = f.getMethod().getType().getName() + "." + f.getMethod().getName();
                counts.merge(name + " | " + f.getType(), 1, Integer::sum);
                total++;
            }
        }
        StringBuilder md = new StringBuilder("| share | frame | ran as |\n|---|---|---|\n");
        int all = total;
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(en -> md.append(String.format(Locale.ROOT, "| %.1f %% | %s |%n", 100.0 * en.getValue() / all,
                        en.getKey())));
        md.append(String.format(Locale.ROOT, "%n%d samples in %d recording(s)%n", total, files.size()));
        return md.toString();
    }
}
