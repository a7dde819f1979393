package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded mutation fuzzer for the safetensors reader: valid files (F16, BF16, F32, F64, a scalar, metadata, an
 * empty file) are mutated by byte flips, truncation, garbage tails, hostile header lengths and edits of the JSON
 * header's numbers, dtypes and punctuation. Every mutant must either load, with every tensor's values readable, or
 * fail with {@link SafeTensors.FormatException}; any other exception, and any error, is a bug. Both the in-memory
 * reader and the memory-mapped file reader are driven. A failure prints the seed, the case and the input in
 * base64, so it can be replayed.
 */
class SafeTensorsFuzzTest {
    private static final long SEED = 0x5AFE_7E45L;
    private static final int CASES = 12_000;
    private static final int FILE_EVERY = 10;

    private static final String[] DTYPES = {"F16", "BF16", "F32", "F64", "I64", "BOOL", "U8", "", "f32", "F3"};
    private static final String[] NUMBERS = {"0", "1", "-1", "2", "7", "8", "255", "65536", "2147483647",
        "2147483648", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "1e400", "1.5", "-0", "00", "1e3"};
    private static final String[] TOKENS = {"{", "}", "[", "]", "\"", ",", ":", "\\", "\\u0000", "null", "true",
        " ", "\"__metadata__\"", "\"dtype\"", "\"shape\"", "\"data_offsets\""};

    @TempDir
    Path dir;

    @Test
    void everyMutatedFileLoadsCompletelyOrFailsWithAFormatException() throws IOException {
        List<byte[]> seeds = seeds();
        Random random = new Random(SEED);
        int loaded = 0;
        int rejected = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
            boolean viaFile = i % FILE_EVERY == 0;
            try {
                SafeTensors.Contents c;
                if (viaFile) {
                    Path file = dir.resolve("case.safetensors");
                    Files.write(file, input);
                    c = SafeTensors.read(file);
                } else {
                    c = SafeTensors.read(input);
                }
                for (String name : c.tensors().names()) {
                    HostTensor t = c.tensors().get(name);
                    assertEquals(t.shape().size(), t.data().length, "case " + i + " tensor " + name);
                }
                loaded++;
            } catch (SafeTensors.FormatException e) {
                rejected++;
            } catch (RuntimeException | Error e) {
                fail("case " + i + " (seed " + SEED + ", " + (viaFile ? "file" : "bytes") + ") threw " + e
                        + " instead of loading or throwing FormatException; input (base64): "
                        + Base64.getEncoder().encodeToString(input), e);
            }
        }
        assertEquals(CASES, loaded + rejected);
        if (loaded == 0 || rejected == 0) {
            fail("the mutations should both keep some files valid and break others: loaded " + loaded
                    + ", rejected " + rejected);
        }
    }

    private static List<byte[]> seeds() {
        Random r = new Random(SEED + 1);
        Map<String, HostTensor> m = new LinkedHashMap<>();
        m.put("encoder.layer.0.attention.self.query.weight", HostTensor.of(r.doubles(24).toArray(), 4, 6));
        m.put("encoder.layer.0.attention.self.query.bias", HostTensor.of(r.doubles(4).toArray(), 4));
        m.put("scalar", new HostTensor(Shape.scalar(), new double[] {Math.E}));
        StateDict sd = StateDict.of(m);
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(SafeTensors.toBytes(sd, DType.F32, Map.of("format", "pt")));
        seeds.add(SafeTensors.toBytes(sd, DType.F64, Map.of()));
        seeds.add(SafeTensors.toBytes(StateDict.of("x", HostTensor.of(new double[] {1, -2, 3}, 3)), DType.F32,
                Map.of()));
        seeds.add(SafeTensors.toBytes(StateDict.empty(), DType.F32, Map.of("note", "no tensors")));
        seeds.add(handWritten("F16", 2, 3));
        seeds.add(handWritten("BF16", 2, 3));
        return seeds;
    }

    /** A file of one tensor {@code w [rows, cols]} of a 2-byte dtype, with a second one after it. */
    private static byte[] handWritten(String dtype, int rows, int cols) {
        int bytes = rows * cols * 2;
        String header = "{\"w\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + rows + "," + cols + "],\"data_offsets\":[0,"
                + bytes + "]},\"b\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + cols + "],\"data_offsets\":[" + bytes
                + "," + (bytes + 2 * cols) + "]}}";
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(8 + json.length + bytes + 2 * cols).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(json.length).put(json);
        Random r = new Random(dtype.hashCode());
        while (out.hasRemaining()) {
            out.put((byte) r.nextInt(256));
        }
        return out.array();
    }

    private static byte[] mutate(byte[] seed, Random r) {
        byte[] b = seed.clone();
        int rounds = 1 + r.nextInt(3);
        for (int i = 0; i < rounds; i++) {
            b = switch (r.nextInt(8)) {
                case 0 -> flipBits(b, r);
                case 1 -> Arrays.copyOf(b, b.length == 0 ? 0 : r.nextInt(b.length));
                case 2 -> withTail(b, r);
                case 3 -> withHeaderLength(b, r);
                case 4 -> replaceInHeader(b, r, NUMBERS, "[0-9]+");
                case 5 -> replaceInHeader(b, r, DTYPES, "(?<=\"dtype\":\")[A-Z0-9]+");
                case 6 -> insertInHeader(b, r);
                default -> deleteInHeader(b, r);
            };
        }
        return b;
    }

    private static byte[] flipBits(byte[] b, Random r) {
        if (b.length > 0) {
            for (int n = 1 + r.nextInt(4); n > 0; n--) {
                int at = r.nextInt(b.length);
                b[at] ^= (byte) (1 << r.nextInt(8));
            }
        }
        return b;
    }

    private static byte[] withTail(byte[] b, Random r) {
        byte[] out = Arrays.copyOf(b, b.length + 1 + r.nextInt(16));
        for (int i = b.length; i < out.length; i++) {
            out[i] = (byte) r.nextInt(256);
        }
        return out;
    }

    private static byte[] withHeaderLength(byte[] b, Random r) {
        if (b.length < 8) {
            return b;
        }
        long current = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        long[] choices = {0, 1, 2, current - 1, current + 1, current + 8, b.length - 8, b.length, -1,
            Long.MIN_VALUE, Integer.MAX_VALUE, 1L << 32, SafeTensors.MAX_HEADER_BYTES + 1};
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(0, choices[r.nextInt(choices.length)]);
        return b;
    }

    /** Splits a file into its length field, its header text and its data, if the length field is sane. */
    private record Parts(String header, byte[] data) {
        static Parts of(byte[] b) {
            if (b.length < 8) {
                return null;
            }
            long len = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            if (len < 0 || len > b.length - 8) {
                return null;
            }
            return new Parts(new String(b, 8, (int) len, StandardCharsets.ISO_8859_1),
                    Arrays.copyOfRange(b, 8 + (int) len, b.length));
        }

        byte[] join() {
            byte[] h = header.getBytes(StandardCharsets.ISO_8859_1);
            ByteBuffer out = ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
            return out.putLong(h.length).put(h).put(data).array();
        }
    }

    private static byte[] replaceInHeader(byte[] b, Random r, String[] choices, String pattern) {
        Parts p = Parts.of(b);
        if (p == null) {
            return b;
        }
        Matcher m = Pattern.compile(pattern).matcher(p.header());
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty()) {
            return b;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        String header = p.header().substring(0, s[0]) + choices[r.nextInt(choices.length)]
                + p.header().substring(s[1]);
        return new Parts(header, p.data()).join();
    }

    private static byte[] insertInHeader(byte[] b, Random r) {
        Parts p = Parts.of(b);
        if (p == null) {
            return b;
        }
        int at = r.nextInt(p.header().length() + 1);
        String token = r.nextInt(8) == 0 ? String.valueOf((char) (0x80 + r.nextInt(0x80)))
                : TOKENS[r.nextInt(TOKENS.length)];
        return new Parts(p.header().substring(0, at) + token + p.header().substring(at), p.data()).join();
    }

    private static byte[] deleteInHeader(byte[] b, Random r) {
        Parts p = Parts.of(b);
        if (p == null || p.header().isEmpty()) {
            return b;
        }
        int from = r.nextInt(p.header().length());
        int to = Math.min(p.header().length(), from + 1 + r.nextInt(6));
        return new Parts(p.header().substring(0, from) + p.header().substring(to), p.data()).join();
    }
}
