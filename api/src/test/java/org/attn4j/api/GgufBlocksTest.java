package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class GgufBlocksTest {
    @ParameterizedTest
    @EnumSource(value = WeightType.class, names = {"Q4_K", "Q5_K", "Q6_K"})
    void aWrittenOutReaderGivesTheLevelsOfTheBitFieldTablesForEveryByte(WeightType type) {
        Random random = new Random(17);
        int blocks = 64;
        byte[] bytes = new byte[blocks * type.blockBytes()];
        random.nextBytes(bytes);
        int n = type.blockSize();
        byte[] expected = new byte[blocks * n];
        byte[] actual = new byte[blocks * n];
        for (int b = 0; b < blocks; b++) {
            int base = b * type.blockBytes();
            GgufBlocks.levels(type, bytes, base, expected, b * n);
            switch (type) {
                case Q4_K -> GgufBlocks.levelsQ4K(bytes, base, actual, b * n);
                case Q5_K -> GgufBlocks.levelsQ5K(bytes, base, actual, b * n);
                case Q6_K -> GgufBlocks.levelsQ6K(bytes, base, actual, b * n);
                default -> throw new AssertionError(type);
            }
        }
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                fail(type + " block " + i / n + " number " + i % n + ": expected level " + expected[i] + ", actual "
                        + actual[i]);
            }
        }
    }
}
