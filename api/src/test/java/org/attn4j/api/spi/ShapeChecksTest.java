package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ShapeChecksTest {

    private static String rejected(Executable call) {
        return assertThrows(IllegalArgumentException.class, call).getMessage();
    }

    private static void assertMentions(String message, String... parts) {
        for (String p : parts) {
            assertTrue(message.contains(p), () -> "'" + message + "' lacks '" + p + "'");
        }
    }

    @Test
    void broadcastFollowsNumpyRules() {
        assertEquals(Shape.of(2, 3, 4), ShapeChecks.broadcast("add", Shape.of(2, 1, 4), Shape.of(3, 1)));
        assertEquals(Shape.of(5), ShapeChecks.broadcast("add", Shape.scalar(), Shape.of(5)));
    }

    @Test
    void broadcastMismatchNamesOpArgumentAndBothShapes() {
        assertMentions(rejected(() -> ShapeChecks.broadcast("mul", Shape.of(2, 3), Shape.of(4))),
                "mul:", "argument b", "[4]", "[2, 3]");
    }

    @Test
    void matmulBroadcastsBatchDimsAndHonoursTransposes() {
        assertEquals(Shape.of(2, 3, 5, 7),
                ShapeChecks.matmul(Shape.of(2, 1, 5, 4), Shape.of(3, 4, 7), false, false));
        assertEquals(Shape.of(5, 7), ShapeChecks.matmul(Shape.of(4, 5), Shape.of(7, 4), true, true));
    }

    @Test
    void matmulInnerMismatchNamesBothShapes() {
        assertMentions(rejected(() -> ShapeChecks.matmul(Shape.of(2, 5), Shape.of(3, 4), false, false)),
                "matmul:", "argument b", "[3, 4]", "[2, 5]", "inner dimension 3", "has 5");
        assertMentions(rejected(() -> ShapeChecks.matmul(Shape.of(5), Shape.of(5, 4), false, false)),
                "rank at least 2");
    }

    @Test
    void reduceDropsOrKeepsTheAxis() {
        assertEquals(Shape.of(2, 4), ShapeChecks.reduce("sum", Shape.of(2, 3, 4), 1, false));
        assertEquals(Shape.of(2, 3, 1), ShapeChecks.reduce("sum", Shape.of(2, 3, 4), -1, true));
        assertEquals(Shape.scalar(), ShapeChecks.reduce("max", Shape.of(6), 0, false));
        assertMentions(rejected(() -> ShapeChecks.reduce("mean", Shape.of(2, 3), 2, false)),
                "mean:", "axis is 2", "[2, 3]");
    }

    @Test
    void reshapeInfersOneDimensionAndRejectsWrongSizes() {
        assertEquals(Shape.of(3, 8), ShapeChecks.reshape(Shape.of(2, 3, 4), new int[] {3, -1}));
        assertMentions(rejected(() -> ShapeChecks.reshape(Shape.of(2, 3), new int[] {4, 2})),
                "reshape:", "[2, 3]", "[4, 2]");
        assertMentions(rejected(() -> ShapeChecks.reshape(Shape.of(2, 3), new int[] {-1, -1})), "reshape:");
        assertMentions(rejected(() -> ShapeChecks.reshape(Shape.of(2, 3), new int[] {4, -1})), "reshape:");
    }

    @Test
    void permuteRequiresAPermutation() {
        assertEquals(Shape.of(4, 2, 3), ShapeChecks.permute(Shape.of(2, 3, 4), new int[] {2, 0, 1}));
        assertMentions(rejected(() -> ShapeChecks.permute(Shape.of(2, 3), new int[] {0, 0})),
                "permute:", "not a permutation");
        assertMentions(rejected(() -> ShapeChecks.permute(Shape.of(2, 3), new int[] {0})), "rank 2");
    }

    @Test
    void concatAndSplitAgreeOnShapes() {
        assertEquals(Shape.of(2, 7), ShapeChecks.concat(List.of(Shape.of(2, 3), Shape.of(2, 4)), 1));
        assertMentions(rejected(() -> ShapeChecks.concat(List.of(Shape.of(2, 3), Shape.of(3, 3)), 1)),
                "concat:", "parts[1]", "[3, 3]", "[2, 3]");
        assertEquals(List.of(Shape.of(2, 3), Shape.of(2, 4)), ShapeChecks.split(Shape.of(2, 7), new int[] {3, 4}, 1));
        assertMentions(rejected(() -> ShapeChecks.split(Shape.of(2, 7), new int[] {3, 3}, 1)),
                "split:", "sums to 6", "[2, 7]");
    }

    @Test
    void linearChecksWeightAndBias() {
        assertEquals(Shape.of(2, 5, 8), ShapeChecks.linear(Shape.of(2, 5, 3), Shape.of(8, 3), Shape.of(8)));
        assertMentions(rejected(() -> ShapeChecks.linear(Shape.of(2, 3), Shape.of(3, 8), null)),
                "linear:", "argument weight", "[3, 8]", "[2, 3]");
        assertMentions(rejected(() -> ShapeChecks.linear(Shape.of(2, 3), Shape.of(8, 3), Shape.of(3))),
                "linear:", "argument bias", "[3]");
    }

    @Test
    void embeddingRejectsIdsOutsideTheVocabulary() {
        assertEquals(Shape.of(2, 3, 4), ShapeChecks.embedding(Shape.of(10, 4), new int[6], Shape.of(2, 3)));
        assertMentions(rejected(() -> ShapeChecks.embedding(Shape.of(10, 4), new int[] {1, 10}, Shape.of(2))),
                "embedding:", "ids[1] is 10", "[10, 4]");
    }

    @Test
    void layerNormChecksParameterShapesAndEps() {
        assertMentions(rejected(() -> ShapeChecks.layerNorm(Shape.of(2, 4), Shape.of(3), null, 1e-5)),
                "layerNorm:", "argument gamma", "[3]", "[2, 4]");
        assertMentions(rejected(() -> ShapeChecks.layerNorm(Shape.of(2, 4), null, null, -1)), "eps");
    }

    @Test
    void maskMustBroadcastToTheLogits() {
        ShapeChecks.broadcastsTo("attention", "mask", Shape.of(2, 1, 1, 5), Shape.of(2, 4, 3, 5));
        assertMentions(rejected(() -> ShapeChecks.broadcastsTo("attention", "mask", Shape.of(3, 4),
                Shape.of(2, 4, 3, 5))), "attention:", "argument mask", "[3, 4]", "[2, 4, 3, 5]");
        assertMentions(rejected(() -> ShapeChecks.broadcastsTo("attention", "mask", Shape.of(1, 2, 4, 3, 5),
                Shape.of(2, 4, 3, 5))), "argument mask");
    }

    @Test
    void decoderOpsNameOpArgumentAndShapes() {
        RotaryEmbedding six = RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 1e4, 6);
        assertMentions(rejected(() -> ShapeChecks.rope(Shape.of(2, 3, 4), six, 0)), "rope:", "argument rotary",
                "6 features", "[2, 3, 4]");
        assertMentions(rejected(() -> ShapeChecks.rope(Shape.of(8), six, 0)), "rope:", "argument x", "[8]");
        assertMentions(rejected(() -> ShapeChecks.rope(Shape.of(3, 6), six, -1)), "rope:", "argument offset", "-1");
        assertMentions(rejected(() -> ShapeChecks.rope(Shape.of(3, 6), null, 0)), "rope:", "argument rotary", "null");
        ShapeChecks.rope(Shape.of(2, 3, 7), six, 5);
        assertMentions(rejected(() -> ShapeChecks.softcap(0)), "softcap:", "argument cap", "0");
        assertMentions(rejected(() -> ShapeChecks.softcap(Double.POSITIVE_INFINITY)), "softcap:", "Infinity");
        assertMentions(rejected(() -> ShapeChecks.softcap(Double.NaN)), "softcap:", "NaN");
        assertMentions(rejected(() -> ShapeChecks.rmsNorm(Shape.of(3, 4), Shape.of(5), 1e-6)), "rmsNorm:",
                "argument weight", "[5]", "[3, 4]");
        assertMentions(rejected(() -> ShapeChecks.writeSlice(Shape.of(1, 2, 8, 4), Shape.of(1, 3, 1, 4), 2, 0)),
                "writeSlice:", "argument source", "[1, 3, 1, 4]", "[1, 2, 8, 4]");
        assertMentions(rejected(() -> ShapeChecks.writeSlice(Shape.of(1, 2, 8, 4), Shape.of(1, 2, 2, 4), 2, 7)),
                "writeSlice:", "argument offset", "7", "[1, 2, 8, 4]");
        assertEquals(2, ShapeChecks.writeSlice(Shape.of(1, 2, 8, 4), Shape.of(1, 2, 2, 4), -2, 6));
    }
}
