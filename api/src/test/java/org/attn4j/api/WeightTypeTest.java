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
        Shape shape = Shape.of(3, 64);
        ByteBuffer once = type.encode(gaussian(192, 7, 0.05), shape);
        ByteBuffer twice = type.encode(type.decode(once, shape), shape);
        assertArrayEquals(bytes(once), bytes(twice), type.name());
    }

    @ParameterizedTest
    @EnumSource(WeightType.class)
    void decodedValuesStayWithinTheTypesRoundingOfTheOriginals(WeightType type) {
        Shape shape = Shape.of(4, 96);
        float[] x = gaussian(384, 11, 1.0);
        float[] y = type.decode(type.encode(x, shape), shape);
        for (int block = 0; block < x.length / 32; block++) {
            float amax = 0;
            for (int i = 0; i < 32; i++) {
                amax = Math.max(amax, Math.abs(x[block * 32 + i]));
            }
            for (int i = block * 32; i < block * 32 + 32; i++) {
                double bound = switch (type) {
                    case F32, F64 -> 0;
                    case F16 -> Math.abs(x[i]) * 0x1p-11 + 0x1p-25;
                    case BF16 -> Math.abs(x[i]) * 0x1p-8;
                    case Q8_0 -> amax / 127.0 * 0.5 * (1 + 0x1p-10) + amax * 0x1p-11;
                    case Q4_0 -> amax / 8.0 * (1 + 0x1p-10) + amax * 0x1p-11;
                };
                double err = Math.abs(y[i] - x[i]);
                if (err > bound) {
                    fail(type + " index " + i + ": expected " + x[i] + ", actual " + y[i] + ", abs err " + err
                            + " > bound " + bound + ", rel err " + err / Math.abs(x[i]));
                }
            }
        }
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
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> WeightType.F32.byteSize(Shape.of(2, 3, 4)));
        assertTrue(rank.getMessage().contains("[2, 3, 4]"), rank.getMessage());
    }
}
