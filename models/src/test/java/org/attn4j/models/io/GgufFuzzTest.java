package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded mutation fuzzer for the GGUF reader: valid files (every metadata type, nested arrays, tensors of every
 * supported type, a custom alignment, no tensors) are mutated by bit flips, truncation, garbage tails, and hostile
 * 4- and 8-byte integers written over the header's counts, lengths, types, dims and offsets. Every mutant must
 * either load, with every tensor's values readable, or fail with {@link Gguf.FormatException}; anything else is a
 * bug. Both the in-memory and the memory-mapped reader are driven. A failure prints the seed, the case and the
 * input in base64.
 */
class GgufFuzzTest {
    private static final long SEED = 0x6605_F022L;
    private static final int CASES = 12_000;
    private static final int FILE_EVERY = 10;
    private static final long[] HOSTILE_LONGS = {0, 1, 2, 3, 7, 8, 31, 32, 33, 64, 255, 1L << 31, (1L << 32) - 1,
        1L << 32, 1L << 40, 1L << 62, Long.MAX_VALUE, Long.MIN_VALUE, -1, -8};
    private static final int[] HOSTILE_INTS = {0, 1, 2, 3, 4, 5, 8, 9, 10, 12, 13, 14, 28, 30, 31, 39, 40, 255,
        1 << 16, Integer.MAX_VALUE, Integer.MIN_VALUE, -1};

    @TempDir
    Path dir;

    @Test
    void everyMutatedFileLoadsCompletelyOrFailsWithAFormatException() throws IOException {
        List<byte[]> seeds = seeds();
        for (byte[] seed : seeds) {
            Gguf.read(seed);
        }
        Random random = new Random(SEED);
        int loaded = 0;
        int rejected = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
            boolean viaFile = i % FILE_EVERY == 0;
            try {
                Gguf.Contents c;
                if (viaFile) {
                    Path file = dir.resolve("case.gguf");
                    Files.write(file, input);
                    c = Gguf.read(file);
                } else {
                    c = Gguf.read(input);
                }
                for (String name : c.tensors().names()) {
                    HostTensor t = c.tensors().get(name);
                    assertEquals(t.shape().size(), t.toFloatArray().length, "case " + i + " tensor " + name);
                }
                c.metadata().values().forEach(String::valueOf);
                loaded++;
            } catch (Gguf.FormatException e) {
                if (e.getMessage() == null || e.getMessage().isBlank()) {
                    fail("case " + i + " was refused without a message");
                }
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

    static List<byte[]> seeds() {
        Random r = new Random(SEED + 1);
        List<byte[]> seeds = new ArrayList<>();
        GgufWriter all = new GgufWriter();
        for (Gguf.ValueType t : Gguf.ValueType.values()) {
            if (t != Gguf.ValueType.ARRAY) {
                all.put("scalar." + t, new Gguf.Value(t, null, sample(t, r)));
            }
        }
        all.put("array.u8", new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.UINT8, new long[] {1, 2, 255}));
        all.put("array.bool", new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.BOOL, new boolean[] {true, false}));
        all.put("array.f64", new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.FLOAT64, new double[] {0.5, -2}));
        all.floats("array.f32", new float[] {1.5f, -3f});
        all.strings("array.strings", List.of("a", "", "\u00e9\u4e2d"));
        all.put("array.nested", new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.ARRAY, List.of(
                new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.INT32, new long[] {-1, 7}),
                new Gguf.Value(Gguf.ValueType.ARRAY, Gguf.ValueType.STRING, List.of("x")))));
        all.tensor("f32", HostTensor.of(floats(r, 6), 2, 3));
        all.tensor("vector", HostTensor.of(floats(r, 5), 5));
        seeds.add(all.toBytes());
        GgufWriter typed = new GgufWriter().alignment(64).string("general.architecture", "llama");
        for (WeightType t : WeightType.values()) {
            if (t == WeightType.I8) {
                continue;
            }
            Shape s = Shape.of(2, Math.max(32, t.blockSize()));
            typed.tensor("w." + t, HostTensor.wrap(s, t, t.encode(floats(r, 2 * s.dim(1)), s)));
        }
        typed.tensor("cube", HostTensor.of(floats(r, 24), 2, 3, 4));
        seeds.add(typed.toBytes());
        seeds.add(new GgufWriter().string("general.name", "empty").toBytes());
        seeds.add(new GgufWriter().tensor("only", HostTensor.of(floats(r, 3), 3)).toBytes());
        return seeds;
    }

    private static Object sample(Gguf.ValueType t, Random r) {
        return switch (t) {
            case UINT8 -> (long) r.nextInt(256);
            case INT8 -> (long) (byte) r.nextInt();
            case UINT16 -> (long) r.nextInt(65536);
            case INT16 -> (long) (short) r.nextInt();
            case UINT32 -> r.nextInt() & 0xffffffffL;
            case INT32 -> (long) r.nextInt();
            case UINT64 -> r.nextLong() >>> 1;
            case INT64 -> r.nextLong();
            case FLOAT32 -> r.nextFloat();
            case FLOAT64 -> r.nextDouble();
            case BOOL -> r.nextBoolean();
            case STRING -> "value " + r.nextInt(100);
            case ARRAY -> throw new IllegalArgumentException();
        };
    }

    private static float[] floats(Random r, int n) {
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) r.nextGaussian();
        }
        return f;
    }

    private static byte[] mutate(byte[] seed, Random r) {
        byte[] b = seed.clone();
        int rounds = 1 + r.nextInt(3);
        for (int i = 0; i < rounds; i++) {
            b = switch (r.nextInt(6)) {
                case 0 -> flipBits(b, r);
                case 1 -> Arrays.copyOf(b, b.length == 0 ? 0 : r.nextInt(b.length));
                case 2 -> withTail(b, r);
                case 3 -> overwriteLong(b, r);
                default -> overwriteInt(b, r);
            };
        }
        return b;
    }

    /** A position in the first part of the file, where the header is, most of the time. */
    private static int position(byte[] b, Random r, int width) {
        int limit = b.length - width;
        if (limit <= 0) {
            return -1;
        }
        int headerish = Math.min(limit, 512);
        return r.nextInt(4) == 0 ? r.nextInt(limit) : r.nextInt(headerish);
    }

    private static byte[] flipBits(byte[] b, Random r) {
        if (b.length > 0) {
            for (int n = 1 + r.nextInt(4); n > 0; n--) {
                int at = r.nextInt(Math.min(b.length, 600));
                b[at] ^= (byte) (1 << r.nextInt(8));
            }
        }
        return b;
    }

    private static byte[] withTail(byte[] b, Random r) {
        byte[] out = Arrays.copyOf(b, b.length + 1 + r.nextInt(64));
        for (int i = b.length; i < out.length; i++) {
            out[i] = (byte) r.nextInt(256);
        }
        return out;
    }

    private static byte[] overwriteLong(byte[] b, Random r) {
        int at = position(b, r, 8);
        if (at >= 0) {
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(at, HOSTILE_LONGS[r.nextInt(HOSTILE_LONGS.length)]);
        }
        return b;
    }

    private static byte[] overwriteInt(byte[] b, Random r) {
        int at = position(b, r, 4);
        if (at >= 0) {
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(at, HOSTILE_INTS[r.nextInt(HOSTILE_INTS.length)]);
        }
        return b;
    }
}
