package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kernels of the weights narrower than F32 ({@link VectorNarrowPanels}) compile to vector instructions without
 * class speculation, as {@link IntrinsificationTest} holds every other kernel: the build runs both in JVMs started
 * with {@code -XX:PerMethodTrapLimit=0}, on the CPU's widest vectors and on 256-bit ones. A product of one row over
 * six whole panels and a part of a seventh runs the decoding kernels ({@code dot4Panels…} and {@code dot2…} where the
 * type has them, and {@code dot…}), one of {@link NarrowPanels#TILE_ROWS} rows widens the panel ({@code unpack…})
 * and runs the SGEMM tile over it. Never a timing.
 */
class NarrowPanelsIntrinsificationTest {

    @BeforeAll
    static void needsTheVectorApi() {
        assumeTrue(Simd.enabled(), "the SIMD kernels are off in this run");
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, mode = EnumSource.Mode.EXCLUDE, names = {"F32", "F64", "I8"})
    void bothProductsRunOnVectors(WeightType type) {
        Random random = new Random(type.ordinal());
        int rows = 6 * NarrowPanels.NR + 5;
        int columns = type.blockSize() == 256 ? 256 : 64;
        float[] w = new float[rows * columns];
        for (int i = 0; i < w.length; i++) {
            w[i] = random.nextFloat() * 4 - 2;
        }
        Shape shape = Shape.of(rows, columns);
        WeightStorage weight = WeightStorage.bind(type.encode(w, shape), type, shape, new Parallel(1));
        int n = NarrowPanels.TILE_ROWS + 3;
        float[] x = new float[n * columns];
        for (int i = 0; i < x.length; i++) {
            x[i] = random.nextFloat() * 4 - 2;
        }
        float[] y = new float[n * rows];
        IntrinsificationTest.assertCompiledToVectors(type + " decoding product", 0,
                () -> weight.product(x, 0, columns, 1, 0, rows, y, 0, rows));
        IntrinsificationTest.assertCompiledToVectors(type + " prefill product", 0,
                () -> weight.product(x, 0, columns, n, 0, rows, y, 0, rows));
    }
}
