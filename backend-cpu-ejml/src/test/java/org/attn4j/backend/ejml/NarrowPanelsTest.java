package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.Test;

/**
 * The weights held in fewer bits than F32 ({@link NarrowPanels}) against the numbers {@link WeightType#decode} reads
 * from the same bytes: they read back bit for bit, and every product (one row, a few rows, many rows; column ranges
 * inside and across panels; offsets and strides into larger arrays) equals a double-precision loop over the decoded
 * numbers within F32 accumulation's bound. The build runs this class with the Vector API on the CPU's widest
 * vectors, on 256-bit vectors, and without the Vector API (the scalar path).
 */
class NarrowPanelsTest {
    private static final WeightType[] TYPES = {WeightType.BF16, WeightType.F16, WeightType.Q8_0, WeightType.Q4_0,
        WeightType.Q4_1, WeightType.Q5_0, WeightType.Q5_1, WeightType.Q2_K, WeightType.Q3_K, WeightType.Q4_K,
        WeightType.Q5_K, WeightType.Q6_K, WeightType.IQ4_NL, WeightType.IQ4_XS};
    /** {@link #TYPES} and F32, for the tests of {@code WeightStorage.bind}, which holds F32 in panels of its own. */
    private static final WeightType[] TYPES_AND_F32 = typesAndF32();

    private static WeightType[] typesAndF32() {
        WeightType[] types = Arrays.copyOf(TYPES, TYPES.length + 1);
        types[TYPES.length] = WeightType.F32;
        return types;
    }

    /** @return {@code c} columns, or for the types of 256-number super-blocks a multiple of 256 that grows with it */
    private static int columns(WeightType type, int c) {
        return type.blockSize() == 256 ? 256 * Math.max(1, c / 64) : c;
    }

    /** A pool of several threads, so that a weight of several panels is built in pieces. */
    private static final Parallel POOL = new Parallel(3);

    static NarrowPanels bind(ByteBuffer bytes, WeightType type, int rows, int columns) {
        ByteBuffer le = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (type) {
            case BF16 -> PanelsBF16.of(le, rows, columns, POOL);
            case F16 -> PanelsF16.of(le, rows, columns, POOL);
            case Q8_0 -> PanelsQ8_0.of(le, rows, columns, POOL);
            case Q4_0 -> PanelsQ4_0.of(le, rows, columns, POOL);
            default -> PanelsNibbles.TYPES.contains(type) ? PanelsNibbles.of(type, le, rows, columns, POOL)
                    : PanelsLevels.of(type, le, rows, columns, POOL);
        };
    }

    /** Normal numbers with a scale per row, so that blocks have different scales; some exact zeros. */
    private static float[] values(Random random, int rows, int columns) {
        float[] v = new float[rows * columns];
        for (int r = 0; r < rows; r++) {
            double scale = Math.pow(2, random.nextInt(9) - 6);
            for (int c = 0; c < columns; c++) {
                v[r * columns + c] = random.nextInt(17) == 0 ? 0f : (float) (scale * random.nextGaussian());
            }
        }
        return v;
    }

    @Test
    void readsBackExactlyTheNumbersItsBytesHold() {
        Random random = new Random(1);
        for (WeightType type : TYPES) {
            for (int[] given : new int[][] {{1, 32}, {NarrowPanels.NR + 3, 64}, {70, 96}, {2 * NarrowPanels.NR, 160}}) {
                int[] s = {given[0], columns(type, given[1])};
                Shape shape = Shape.of(s[0], s[1]);
                ByteBuffer bytes = type.encode(values(random, s[0], s[1]), shape);
                float[] expected = type.decode(bytes.duplicate(), shape);
                NarrowPanels w = bind(bytes, type, s[0], s[1]);
                float[] actual = w.values();
                for (int i = 0; i < expected.length; i++) {
                    if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                        fail(type + " " + shape + ": index " + i + " reads " + actual[i] + ", its bytes hold "
                                + expected[i]);
                    }
                }
                float[] row = new float[s[1] + 3];
                w.gather(s[0] - 1, row, 3);
                assertEquals(Arrays.toString(Arrays.copyOfRange(expected, (s[0] - 1) * s[1], s[0] * s[1])),
                        Arrays.toString(Arrays.copyOfRange(row, 3, s[1] + 3)), type + " gather of the last row");
            }
        }
    }

    @Test
    void aWeightBuiltInPiecesOnSeveralThreadsHoldsTheSameNumbersAsOneBuiltOnOne() {
        Random random = new Random(3);
        Parallel one = new Parallel(1);
        for (WeightType type : TYPES_AND_F32) {
            int rows = 6 * NarrowPanels.NR + 3;
            int columns = 1024;
            Shape shape = Shape.of(rows, columns);
            ByteBuffer bytes = type.encode(values(random, rows, columns), shape);
            float[] alone = WeightStorage.bind(bytes, type, shape, one).values();
            float[] pieces = WeightStorage.bind(bytes, type, shape, POOL).values();
            for (int i = 0; i < alone.length; i++) {
                if (Float.floatToIntBits(alone[i]) != Float.floatToIntBits(pieces[i])) {
                    fail(type + " " + shape + ": index " + i + " built on one thread " + alone[i]
                            + ", in pieces " + pieces[i]);
                }
            }
        }
    }

    @Test
    void aWeightBoundFromDirectMemoryHoldsTheNumbersItsBytesHold() {
        Random random = new Random(5);
        for (WeightType type : TYPES_AND_F32) {
            int rows = 2 * NarrowPanels.NR + 5;
            int columns = 512;
            Shape shape = Shape.of(rows, columns);
            ByteBuffer heap = type.encode(values(random, rows, columns), shape);
            ByteBuffer direct = ByteBuffer.allocateDirect(heap.remaining()).put(heap.duplicate()).flip();
            float[] expected = type.decode(heap.duplicate(), shape);
            float[] fromHeap = WeightStorage.bind(heap, type, shape, POOL).values();
            float[] fromDirect = WeightStorage.bind(direct, type, shape, POOL).values();
            for (int i = 0; i < expected.length; i++) {
                if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(fromHeap[i])
                        || Float.floatToIntBits(expected[i]) != Float.floatToIntBits(fromDirect[i])) {
                    fail(type + " " + shape + ": index " + i + " holds " + expected[i] + ", bound from the heap "
                            + fromHeap[i] + ", from direct memory " + fromDirect[i]);
                }
            }
        }
    }

    @Test
    void productsAgreeWithADoubleLoopForEveryRowCountAndColumnRange() {
        Random random = new Random(2);
        int nr = NarrowPanels.NR;
        int[] rowCounts = {1, 2, 3, NarrowPanels.TILE_ROWS, 5, 7, 13, 40};
        for (WeightType type : TYPES) {
            for (int[] s : new int[][] {{nr, 32}, {3 * nr + 5, 96}, {70, 256}, {2 * nr + 1, 64}}) {
                int rows = s[0];
                int columns = columns(type, s[1]);
                Shape shape = Shape.of(rows, columns);
                ByteBuffer bytes = type.encode(values(random, rows, columns), shape);
                float[] w = type.decode(bytes.duplicate(), shape);
                NarrowPanels panels = bind(bytes, type, rows, columns);
                for (int n : rowCounts) {
                    for (int[] range : new int[][] {{0, rows}, {1, rows - 2}, {nr - 1, Math.min(rows, nr + 2)},
                            {rows - 1, rows}}) {
                        check(random, type, panels, w, n, range[0], range[1]);
                    }
                }
            }
        }
    }

    @Test
    void eachRowGetsTheBitsOfItsProductAloneWhateverTheRowCount() {
        Random random = new Random(7);
        int nr = NarrowPanels.NR;
        for (WeightType type : TYPES) {
            int rows = 2 * nr + 3;
            int columns = columns(type, 96);
            Shape shape = Shape.of(rows, columns);
            NarrowPanels panels = bind(type.encode(values(random, rows, columns), shape), type, rows, columns);
            int most = NarrowPanels.DOT_ROWS_UP_TO + 2;
            float[] x = new float[most * columns];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) random.nextGaussian();
            }
            float[] alone = new float[most * rows];
            for (int i = 0; i < most; i++) {
                panels.product(x, i * columns, columns, 1, 0, rows, alone, i * rows, rows);
            }
            for (int n = 2; n <= most; n++) {
                float[] together = new float[n * rows];
                panels.product(x, 0, columns, n, 0, rows, together, 0, rows);
                for (int i = 0; i < n * rows; i++) {
                    if (Float.floatToRawIntBits(together[i]) != Float.floatToRawIntBits(alone[i])) {
                        fail(type + " n=" + n + ": row " + i / rows + " column " + i % rows + " alone " + alone[i]
                                + " together " + together[i] + " abs " + Math.abs(together[i] - alone[i]));
                    }
                }
            }
        }
    }

    @Test
    void bf16AndF16TakeAnyNumberOfColumns() {
        Random random = new Random(3);
        for (WeightType type : new WeightType[] {WeightType.BF16, WeightType.F16}) {
            for (int columns : new int[] {1, 2, 3, 7, 33, 101}) {
                int rows = NarrowPanels.NR + 7;
                Shape shape = Shape.of(rows, columns);
                ByteBuffer bytes = type.encode(values(random, rows, columns), shape);
                float[] w = type.decode(bytes.duplicate(), shape);
                NarrowPanels panels = bind(bytes, type, rows, columns);
                for (int n : new int[] {1, 3, 9}) {
                    check(random, type, panels, w, n, 0, rows);
                    check(random, type, panels, w, n, 2, rows - 1);
                }
            }
        }
    }

    @Test
    void f16WidensSubnormalsAndZerosExactlyAndKeepsInfinitiesAndNaN() {
        int rows = NarrowPanels.NR + 1;
        int columns = 8;
        short[] halves = new short[rows * columns];
        Random random = new Random(4);
        for (int i = 0; i < halves.length; i++) {
            halves[i] = (short) (random.nextBoolean() ? random.nextInt(0x400) | (random.nextBoolean() ? 0x8000 : 0)
                    : random.nextInt(0x7c00));
        }
        halves[3] = (short) 0x8000;
        ByteBuffer bytes = ByteBuffer.allocate(2 * halves.length).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asShortBuffer().put(halves);
        Shape shape = Shape.of(rows, columns);
        float[] w = WeightType.F16.decode(bytes.duplicate(), shape);
        NarrowPanels finite = bind(bytes, WeightType.F16, rows, columns);
        assertEquals(Arrays.toString(w), Arrays.toString(finite.values()));
        for (int n : new int[] {1, 6}) {
            check(random, WeightType.F16, finite, w, n, 0, rows);
        }
        halves[columns + 2] = (short) 0x7c00;
        halves[2 * columns + 5] = (short) 0xfe01;
        bytes.asShortBuffer().put(halves);
        float[] special = WeightType.F16.decode(bytes.duplicate(), shape);
        NarrowPanels withSpecial = bind(bytes, WeightType.F16, rows, columns);
        float[] x = new float[columns];
        Arrays.fill(x, 1f);
        for (int n : new int[] {1, 6}) {
            float[] xs = new float[n * columns];
            Arrays.fill(xs, 1f);
            float[] out = new float[n * rows];
            withSpecial.product(xs, 0, columns, n, 0, rows, out, 0, rows);
            assertEquals(Float.POSITIVE_INFINITY, out[1], "row 1 holds +inf");
            assertTrue(Float.isNaN(out[2]), "row 2 holds a NaN");
            assertTrue(Float.isFinite(out[0]) && Float.isFinite(out[3]), "the other rows stay finite");
        }
        assertEquals(Arrays.toString(special), Arrays.toString(withSpecial.values()));
    }

    @Test
    void aNonFiniteInputPoisonsOnlyItsOwnRowOfOutput() {
        Random random = new Random(5);
        int rows = 40;
        for (WeightType type : TYPES) {
            int columns = columns(type, 64);
            Shape shape = Shape.of(rows, columns);
            NarrowPanels w = bind(type.encode(values(random, rows, columns), shape), type, rows, columns);
            for (int n : new int[] {1, 3, 8}) {
                float[] x = new float[n * columns];
                for (int i = 0; i < x.length; i++) {
                    x[i] = (float) random.nextGaussian();
                }
                x[columns * (n - 1) + 5] = Float.NaN;
                float[] out = new float[n * rows];
                w.product(x, 0, columns, n, 0, rows, out, 0, rows);
                for (int i = 0; i < n * rows; i++) {
                    assertEquals(i / rows == n - 1, Float.isNaN(out[i]), type + " n=" + n + " output " + i);
                }
            }
        }
    }

    /**
     * The kernels widen each number to exactly the float GGUF's dequantization gives (for the types with offsets in
     * one multiply-add, {@code fma(level, a, c)}, which is exact only because {@code level · a} is), then add its
     * product into one F32 chain per output, column after column: a product is that chain bit for bit, on vectors
     * one multiply-add per column, without them a product and a sum.
     */
    @Test
    void aProductIsTheF32ChainOverTheDecodedNumbersBitForBit() {
        Random random = new Random(11);
        for (WeightType type : TYPES) {
            int rows = 6 * NarrowPanels.NR + 5;
            int columns = columns(type, 512);
            Shape shape = Shape.of(rows, columns);
            ByteBuffer bytes = type.encode(values(random, rows, columns), shape);
            float[] w = type.decode(bytes.duplicate(), shape);
            NarrowPanels panels = bind(bytes, type, rows, columns);
            for (int n : new int[] {1, NarrowPanels.TILE_ROWS + 1, NarrowPanels.DOT_ROWS_UP_TO + 1}) {
                float[] x = new float[n * columns];
                for (int i = 0; i < x.length; i++) {
                    x[i] = (float) random.nextGaussian();
                }
                float[] out = new float[n * rows];
                panels.product(x, 0, columns, n, 0, rows, out, 0, rows);
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < rows; j++) {
                        float chain = 0f;
                        for (int p = 0; p < columns; p++) {
                            float xp = x[i * columns + p];
                            float wp = w[j * columns + p];
                            chain = NarrowPanels.SIMD ? Math.fma(wp, xp, chain) : chain + xp * wp;
                        }
                        float actual = out[i * rows + j];
                        if (Float.floatToRawIntBits(actual) != Float.floatToRawIntBits(chain)) {
                            fail(type + " n=" + n + ": row " + i + " column " + j + " expected " + chain + " actual "
                                    + actual + " abs " + Math.abs(actual - chain) + " rel "
                                    + Math.abs(actual - chain) / Math.abs(chain));
                        }
                    }
                }
            }
        }
    }

    /**
     * A one-row product streams three panels at once, or two, or one, by how many whole panels its range holds: an
     * output is the same bits whichever kernel took its panel, odd inner sizes (BF16, F16) included.
     */
    @Test
    void aPanelGivesTheSameBitsWhicheverPanelsShareItsOneRowProduct() {
        Random random = new Random(13);
        int nr = NarrowPanels.NR;
        for (WeightType type : TYPES) {
            for (int columns : type.blockSize() == 1 ? new int[] {96, 97} : new int[] {columns(type, 128)}) {
                int rows = 7 * nr;
                Shape shape = Shape.of(rows, columns);
                NarrowPanels panels = bind(type.encode(values(random, rows, columns), shape), type, rows, columns);
                float[] x = new float[columns];
                for (int i = 0; i < columns; i++) {
                    x[i] = (float) random.nextGaussian();
                }
                float[] together = new float[rows];
                panels.product(x, 0, columns, 1, 0, rows, together, 0, rows);
                for (int q = 0; q < 7; q++) {
                    float[] alone = new float[nr];
                    panels.product(x, 0, columns, 1, q * nr, q * nr + nr, alone, 0, nr);
                    for (int j = 0; j < nr; j++) {
                        float expected = alone[j];
                        float actual = together[q * nr + j];
                        if (Float.floatToRawIntBits(expected) != Float.floatToRawIntBits(actual)) {
                            fail(type + " [" + rows + ", " + columns + "]: output " + (q * nr + j) + " alone "
                                    + expected + ", among seven panels " + actual + " abs "
                                    + Math.abs(expected - actual) + " rel "
                                    + Math.abs(expected - actual) / Math.abs(expected));
                        }
                    }
                }
            }
        }
    }

    @Test
    void theWarmUpCallsBothProductsOfEveryType() {
        for (WeightType type : TYPES) {
            assertEquals(5, NarrowPanels.warm(type, 5, Long.MAX_VALUE), type.toString());
        }
    }

    /** One product with offsets and strides into larger arrays, checked against doubles and for untouched cells. */
    private static void check(Random random, WeightType type, NarrowPanels panels, float[] w, int n, int from,
                              int to) {
        int columns = panels.columns;
        int ldx = columns + 3;
        int xOff = 5;
        float[] x = new float[xOff + n * ldx];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        int width = to - from;
        int ldo = width + 2;
        int outOff = 7;
        float[] out = new float[outOff + n * ldo + 4];
        Arrays.fill(out, -123f);
        panels.product(x, xOff, ldx, n, from, to, out, outOff, ldo);
        for (int i = 0; i < n; i++) {
            for (int j = from; j < to; j++) {
                double sum = 0;
                double magnitude = 0;
                for (int p = 0; p < columns; p++) {
                    double t = (double) x[xOff + i * ldx + p] * w[j * columns + p];
                    sum += t;
                    magnitude += Math.abs(t);
                }
                float actual = out[outOff + i * ldo + (j - from)];
                double bound = 2 * columns * 0x1p-24 * magnitude + 1e-30;
                if (!(Math.abs(actual - sum) <= bound)) {
                    fail(type + " [" + panels.rows + ", " + columns + "] n=" + n + " columns [" + from + ", " + to
                            + "): row " + i + " column " + j + " expected " + sum + " actual " + actual + " abs "
                            + Math.abs(actual - sum) + " rel " + Math.abs(actual - sum) / Math.abs(sum) + " bound "
                            + bound);
                }
            }
        }
        for (int i = 0; i < out.length; i++) {
            int rel = i - outOff;
            boolean inside = rel >= 0 && rel / ldo < n && rel % ldo < width;
            if (!inside && out[i] != -123f) {
                fail(type + " n=" + n + " wrote outside the block at " + i);
            }
        }
    }
}
