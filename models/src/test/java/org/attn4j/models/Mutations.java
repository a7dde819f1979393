package org.attn4j.models;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.SplittableRandom;

/**
 * Byte-level mutations of a valid input, one to four per mutant, as a coverage-free fuzzer would make them, and the
 * rule every reader's fuzz test holds a mutant to.
 */
public final class Mutations {
    private static final byte[] INTERESTING = {0, 1, 2, 0x7F, (byte) 0x80, (byte) 0xFF, 0x08, 0x0A, 0x12, 0x3A};

    private Mutations() {
    }

    /**
     * @param seed a valid input; not modified
     * @param random the seeded source of every choice
     * @return a mutant
     */
    /** Reads a mutant and uses what it read. */
    public interface Reader {
        /**
         * @param mutant the bytes to read
         * @throws IOException if they are refused
         */
        void read(byte[] mutant) throws IOException;
    }

    /**
     * @param c the case number, for the failure message
     * @param mutant the bytes
     * @param reader reads and uses them
     * @return whether they were read; {@code false} if refused with an {@link IOException} or
     *     {@link IllegalArgumentException} that has a message
     * @throws AssertionError if anything else escapes, with the case number and the mutant in Base64
     */
    public static boolean readOrRefused(int c, byte[] mutant, Reader reader) {
        try {
            reader.read(mutant);
            return true;
        } catch (IOException | IllegalArgumentException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "case " + c + ": no message in " + e);
            return false;
        } catch (RuntimeException | Error e) {
            fail("case " + c + ": " + e + " for " + Base64.getEncoder().encodeToString(mutant), e);
            return false;
        }
    }

    public static byte[] mutate(byte[] seed, SplittableRandom random) {
        byte[] b = seed.clone();
        int rounds = 1 + random.nextInt(4);
        for (int r = 0; r < rounds && b.length > 0; r++) {
            int at = random.nextInt(b.length);
            switch (random.nextInt(7)) {
                case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> b[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                case 2 -> b[at] = (byte) random.nextInt(256);
                case 3 -> b = Arrays.copyOf(b, at);
                case 4 -> {
                    int len = Math.min(b.length - at, 1 + random.nextInt(8));
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(b, at + len, out, at, b.length - at - len);
                    b = out;
                }
                case 5 -> {
                    int len = Math.min(b.length - at, 1 + random.nextInt(16));
                    byte[] out = new byte[b.length + len];
                    System.arraycopy(b, 0, out, 0, at + len);
                    System.arraycopy(b, at, out, at + len, b.length - at);
                    b = out;
                }
                default -> {
                    byte[] varint = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
                    int len = 1 + random.nextInt(varint.length);
                    byte[] out = new byte[b.length + len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(varint, varint.length - len, out, at, len);
                    System.arraycopy(b, at, out, at + len, b.length - at);
                    b = out;
                }
            }
        }
        return b;
    }
}
