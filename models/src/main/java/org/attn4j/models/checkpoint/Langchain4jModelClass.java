package org.attn4j.models.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The pooling a langchain4j model jar states for its ONNX model. Each {@code langchain4j-embeddings-*} jar holds a
 * class that loads its model with {@code loadFromJar("<name>.onnx", "<name>-tokenizer.json", PoolingMode.CLS)} (or
 * {@code MEAN}); its bytecode keeps the file name as a string constant and the pooling as a reference to the
 * {@code PoolingMode} field. This reads the constant pools of the jar's classes (the Java class file format,
 * JVMS §4.4) and finds the class that names the ONNX file and exactly one pooling mode; langchain4j always
 * normalises the pooled vector. Nothing is loaded or run.
 *
 * @param pooling the pooling the class passes
 * @param className the class that states it, for messages
 */
record Langchain4jModelClass(Pooling pooling, String className) {
    private static final String POOLING_MODE = "/PoolingMode";

    /**
     * @param root the jar's root
     * @param onnxFile the ONNX file's name inside the jar
     * @return the statement of the one class that loads {@code onnxFile} with a pooling mode, if there is one
     * @throws IOException if a class file cannot be read
     */
    static Optional<Langchain4jModelClass> find(Path root, String onnxFile) throws IOException {
        List<Langchain4jModelClass> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                Constants c = constants(Files.readAllBytes(f));
                if (c != null && c.strings.contains(onnxFile) && c.poolings.size() == 1) {
                    Pooling p = c.poolings.iterator().next();
                    found.add(new Langchain4jModelClass(p, root.relativize(f).toString()));
                }
            }
        }
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }

    /** The string constants and the {@code PoolingMode} fields a class refers to. */
    private record Constants(Set<String> strings, Set<Pooling> poolings) {
    }

    /** @return the class's constants, or null if the bytes are not a class file this reads */
    private static Constants constants(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readInt() != 0xCAFEBABE) {
                return null;
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNames = new int[count];
            int[] stringValues = new int[count];
            int[][] refs = new int[count][];
            int[][] namesAndTypes = new int[count][];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 3, 4 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++;
                    }
                    case 7 -> classNames[i] = in.readUnsignedShort();
                    case 8 -> stringValues[i] = in.readUnsignedShort();
                    case 9 -> refs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                    case 10, 11, 17, 18 -> {
                        in.readUnsignedShort();
                        in.readUnsignedShort();
                    }
                    case 12 -> namesAndTypes[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    case 16, 19, 20 -> in.readUnsignedShort();
                    default -> {
                        return null;
                    }
                }
            }
            Set<String> strings = new HashSet<>();
            Set<Pooling> poolings = new HashSet<>();
            for (int i = 1; i < count; i++) {
                if (stringValues[i] > 0 && utf8[stringValues[i]] != null) {
                    strings.add(utf8[stringValues[i]]);
                }
                if (refs[i] != null) {
                    String owner = at(utf8, classNames, refs[i][0]);
                    int[] nt = refs[i][1] < count ? namesAndTypes[refs[i][1]] : null;
                    String field = nt == null || nt[0] >= count ? null : utf8[nt[0]];
                    if (owner != null && owner.endsWith(POOLING_MODE) && field != null) {
                        switch (field) {
                            case "CLS" -> poolings.add(Pooling.CLS);
                            case "MEAN" -> poolings.add(Pooling.MEAN);
                            default -> {
                            }
                        }
                    }
                }
            }
            return new Constants(strings, poolings);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String at(String[] utf8, int[] classNames, int index) {
        if (index <= 0 || index >= classNames.length || classNames[index] <= 0 || classNames[index] >= utf8.length) {
            return null;
        }
        return utf8[classNames[index]];
    }
}
