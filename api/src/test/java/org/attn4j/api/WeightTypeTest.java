package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WeightTypeTest {

    private static float[] gaussian(int n, long seed, double scale) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * scale);
        }
        return v;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @ParameterizedTest
    @EnumSource(WeightType.class)
    void encodingDecodedValuesGivesTheSameBytes(WeightType type) {
        Shape shape = Shape.of(3, 256);
        ByteBuffer once = type.encode(gaussian(768, 7, 0.05), shape);
        ByteBuffer twice = type.encode(type.decode(once, shape), shape);
        assertArrayEquals(bytes(once), bytes(twice), type.name());
    }

    @ParameterizedTest
    @EnumSource(WeightType.class)
    void decodedValuesStayWithinTheTypesRoundingOfTheOriginals(WeightType type) {
        Shape shape = Shape.of(4, 512);
        float[] x = gaussian(2048, 11, 1.0);
        float[] y = type.decode(type.encode(x, shape), shape);
        int n = Math.max(32, type.blockSize());
        float[] rowAmax = new float[4];
        for (int i = 0; i < x.length; i++) {
            rowAmax[i / 512] = Math.max(rowAmax[i / 512], Math.abs(x[i]));
        }
        for (int block = 0; block < x.length / n; block++) {
            float amax = 0;
            for (int i = 0; i < n; i++) {
                amax = Math.max(amax, Math.abs(x[block * n + i]));
            }
            for (int i = block * n; i < block * n + n; i++) {
                double bound = switch (type) {
                    case F32, F64 -> 0;
                    case F16 -> Math.abs(x[i]) * 0x1p-11 + 0x1p-25;
                    case BF16 -> Math.abs(x[i]) * 0x1p-8;
                    case Q8_0 -> amax / 127.0 * 0.5 * (1 + 0x1p-10) + amax * 0x1p-11;
                    case Q4_0 -> amax / 8.0 * (1 + 0x1p-10) + amax * 0x1p-11;
                    case Q5_0 -> amax / 16.0 * (1 + 0x1p-10) + amax * 0x1p-11;
                    case Q4_1 -> amax / 15.0 * (1 + 0x1p-10) + amax * 0x1p-10;
                    case Q5_1 -> amax / 31.0 * (1 + 0x1p-10) + amax * 0x1p-10;
                    case I8 -> rowAmax[i / 512] / 127.0 * 0.5 + rowAmax[i / 512] * 0x1p-22;
                    default -> oneStepBound(type) * amax;
                };
                double err = Math.abs(y[i] - x[i]);
                if (err > bound) {
                    fail(type + " index " + i + ": expected " + x[i] + ", actual " + y[i] + ", abs err " + err
                            + " > bound " + bound + ", rel err " + err / Math.abs(x[i]));
                }
            }
        }
    }

    /**
     * The one-pass quantizers' error, as a fraction of the block's largest |x|: half a level step, plus the levels
     * that the rounded sub-scale or the clamp to the level range (the lowest level is one further from zero than
     * the highest, and the IQ4 table ends at -127 and 113) moves away.
     */
    private static double oneStepBound(WeightType type) {
        return switch (type) {
            case Q2_K -> 0.45;
            case Q3_K -> 0.3;
            case Q4_K -> 0.11;
            case Q5_K -> 0.06;
            case Q6_K -> 0.04;
            case IQ4_NL -> 0.12;
            case IQ4_XS -> 0.14;
            default -> throw new AssertionError(type);
        };
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, mode = EnumSource.Mode.EXCLUDE, names = {"F32", "F64", "F16", "BF16", "I8"})
    void levelsScalesAndOffsetsRecomposeTheDecodedValuesBitForBit(WeightType type) {
        Shape shape = Shape.of(3, 512);
        ByteBuffer bytes = type.encode(gaussian(1536, 5, 0.3), shape);
        float[] values = type.decode(bytes, shape);
        byte[] level = new byte[1536];
        float[] scale = new float[1536 / type.groupSize()];
        float[] offset = new float[scale.length];
        type.decodeLevels(bytes, shape, level, scale, offset);
        for (int i = 0; i < values.length; i++) {
            float v = level[i] * scale[i / type.groupSize()] + offset[i / type.groupSize()];
            if (Float.floatToIntBits(v) != Float.floatToIntBits(values[i])) {
                fail(type + " index " + i + ": expected " + values[i] + ", actual " + v);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, names = {"Q4_1", "Q5_1", "Q2_K", "Q4_K", "Q5_K"})
    void aNonFiniteMinimumIsRefusedAsWellAsAScale(WeightType type) {
        Shape shape = Shape.of(1, 256);
        ByteBuffer b = type.encode(gaussian(256, 3, 1.0), shape).order(ByteOrder.LITTLE_ENDIAN);
        int minimum = type == WeightType.Q2_K ? 82 : 2;
        b.putShort(type.blockSize() == 32 ? type.blockBytes() + minimum : minimum, (short) 0xfc00);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> type.checkData("weight", b, shape));
        assertTrue(e.getMessage().contains(type + " weight") && e.getMessage().contains("-Infinity"),
                e.getMessage());
    }

    @Test
    void q8ZeroStoresTheScaleAsHalfAndRoundsHalvesAwayFromZero() {
        float[] x = new float[32];
        x[0] = 127f;
        x[1] = 2.5f;
        x[2] = -2.5f;
        x[3] = -127f;
        x[4] = 0.49999997f;
        ByteBuffer b = WeightType.Q8_0.encode(x, Shape.of(1, 32));
        assertEquals(34, b.remaining());
        assertEquals(0x3c00, b.getShort(0) & 0xffff, "scale 1.0 as binary16");
        assertEquals(127, b.get(2));
        assertEquals(3, b.get(3));
        assertEquals(-3, b.get(4));
        assertEquals(-127, b.get(5));
        assertEquals(0, b.get(6));
    }

    @Test
    void i8HoldsPerRowScaleAndZeroPointThenTheNumbersAndRoundsHalvesToEven() {
        float[] x = {127f, 2.5f, -3.5f, 0.5f, 0f, 0f, 0f, 0f};
        ByteBuffer b = WeightType.I8.encode(x, Shape.of(2, 4));
        assertEquals(2 * (4 + 8), b.remaining());
        assertEquals(1f, b.getFloat(0), 0f, "row 0: scale max|x| / 127");
        assertEquals(0, b.getInt(4), "row 0: zero point 0");
        assertEquals(127, b.get(8));
        assertEquals(2, b.get(9), "2.5 rounds to even 2");
        assertEquals(-4, b.get(10), "-3.5 rounds to even -4");
        assertEquals(0, b.get(11), "0.5 rounds to even 0");
        assertEquals(1f, b.getFloat(12), 0f, "an all-zero row has scale 1");
        ByteBuffer shifted = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putFloat(0.5f).putInt(-3)
                .put(new byte[] {-3, 0, 127, -128}).flip();
        assertArrayEquals(new float[] {0f, 1.5f, 65f, -62.5f}, WeightType.I8.decode(shifted, Shape.of(1, 4)));
    }

    @Test
    void i8RefusesAZeroPointOutsideInt8AndANonFiniteScaleNamingTheRow() {
        ByteBuffer b = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putFloat(1f).putInt(0).put(new byte[2])
                .putFloat(1f).putInt(128).put(new byte[2]).flip();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WeightType.I8.checkData("weight", b, Shape.of(2, 2)));
        assertTrue(e.getMessage().contains("row 1 has scale 1.0 and zero point 128"), e.getMessage());
        ByteBuffer nan = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).putFloat(Float.NaN).putInt(0)
                .put(new byte[2]).flip();
        assertThrows(IllegalArgumentException.class, () -> WeightType.I8.checkData("weight", nan, Shape.of(1, 2)));
    }

    @Test
    void q4ZeroTakesTheScaleFromTheSignedExtremeAndPacksLowHalfFirst() {
        float[] x = new float[32];
        x[0] = 8f;
        x[16] = -4f;
        x[1] = 8f;
        ByteBuffer b = WeightType.Q4_0.encode(x, Shape.of(1, 32));
        assertEquals(18, b.remaining());
        float[] y = WeightType.Q4_0.decode(b, Shape.of(1, 32));
        assertEquals(8f, y[0], 0f);
        assertEquals(8f, y[1], 0f);
        assertEquals(-4f, y[16], 0f);
        assertEquals(0f, y[2], 0f);
        assertEquals(0x00, b.get(2) & 0x0f, "x[0] = 8 is the extreme: d = -1, nibble 0");
        assertEquals(12, (b.get(2) & 0xf0) >>> 4, "x[16] = -4 / -1 + 8 = 12 in the high nibble of byte 0");
    }

    @Test
    void everyHalfValueSurvivesTheRoundTripAndTiesRoundToEven() {
        for (int h = 0; h < 0x10000; h++) {
            float f = Half.toFloat((short) h);
            if (Float.isNaN(f)) {
                assertTrue(Float.isNaN(Half.toFloat(Half.fromFloat(f))));
                continue;
            }
            assertEquals(h, Half.fromFloat(f) & 0xffff, "half 0x" + Integer.toHexString(h));
        }
        assertEquals(0x3c00, Half.fromFloat(1f + 0x1p-11f) & 0xffff, "1 + half an ulp rounds to even 1");
        assertEquals(0x3c02, Half.fromFloat(1f + 3 * 0x1p-11f) & 0xffff, "1 + 1.5 ulp rounds to even");
        assertEquals(0x7c00, Half.fromFloat(65520f) & 0xffff, "past the largest half: infinity");
        assertEquals(0x0001, Half.fromFloat(0x1p-24f) & 0xffff, "the smallest subnormal");
        assertEquals(0x0000, Half.fromFloat(0x1p-25f) & 0xffff, "half of it ties to even zero");
    }

    @Test
    void bf16RoundsToNearestEven() {
        ByteBuffer b = WeightType.BF16.encode(new float[] {1f + 0x1p-8f, 1f + 3 * 0x1p-8f}, Shape.of(1, 2));
        assertEquals(0x3f80, b.getShort(0) & 0xffff);
        assertEquals(0x3f82, b.getShort(2) & 0xffff);
    }

    @Test
    void aNonFiniteScaleIsRefusedNamingItsRowAndBlock() {
        ByteBuffer b = WeightType.Q8_0.encode(new float[128], Shape.of(2, 64)).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(3 * 34, (short) 0x7e00);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WeightType.Q8_0.checkData("weight", b, Shape.of(2, 64)));
        assertTrue(e.getMessage().contains("block 1 of row 1") && e.getMessage().contains("NaN"), e.getMessage());
    }

    @Test
    void aNonFiniteNumberCannotBeQuantized() {
        float[] x = new float[64];
        x[40] = Float.POSITIVE_INFINITY;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WeightType.Q4_0.encode(x, Shape.of(1, 64)));
        assertTrue(e.getMessage().contains("block 1 of row 0"), e.getMessage());
    }

    @Test
    void wrongLengthsAndShapesAreRefusedWithTheShape() {
        IllegalArgumentException partial = assertThrows(IllegalArgumentException.class,
                () -> WeightType.Q8_0.byteSize(Shape.of(4, 48)));
        assertTrue(partial.getMessage().contains("[4, 48]"), partial.getMessage());
        IllegalArgumentException bytes = assertThrows(IllegalArgumentException.class,
                () -> WeightType.BF16.checkData("weight", ByteBuffer.allocate(10), Shape.of(2, 3)));
        assertTrue(bytes.getMessage().contains("12 bytes") && bytes.getMessage().contains("has 10"),
                bytes.getMessage());
        IllegalArgumentException superBlock = assertThrows(IllegalArgumentException.class,
                () -> WeightType.Q4_K.byteSize(Shape.of(2, 96)));
        assertTrue(superBlock.getMessage().contains("256") && superBlock.getMessage().contains("[2, 96]"),
                superBlock.getMessage());
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> WeightType.F32.byteSize(Shape.of(2, 3, 4)));
        assertTrue(rank.getMessage().contains("[2, 3, 4]"), rank.getMessage());
    }
}
