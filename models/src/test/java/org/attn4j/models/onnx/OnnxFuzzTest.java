package org.attn4j.models.onnx;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.attn4j.models.Mutations;
import org.junit.jupiter.api.Test;

/**
 * A seeded mutation loop over small valid models: every mutant either reads (and then maps and converts every
 * tensor without trouble) or is refused with an {@link IOException} or {@link IllegalArgumentException} that has a
 * message. Anything else (an unchecked exception of another kind, an error, a hang) fails with the case number and
 * the mutant in Base64. The time limit is there to catch a hang.
 */
class OnnxFuzzTest {
    private static final int CASES = 12_000;
    private static final long SEED = 0x0_AA_C0FFEEL;

    @Test
    void everyMutatedModelIsReadOrRefusedWithAMessage() {
        List<byte[]> seeds = List.of(bertLike(), typedTensors());
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            SplittableRandom random = new SplittableRandom(SEED);
            int read = 0;
            for (int c = 0; c < CASES; c++) {
                byte[] mutant = Mutations.mutate(seeds.get(c % seeds.size()), random);
                if (check(c, mutant)) {
                    read++;
                }
            }
            assertTrue(read > 0 && read < CASES, "mutants read: " + read + " of " + CASES);
        });
    }

    private static boolean check(int c, byte[] mutant) {
        return Mutations.readOrRefused(c, mutant, bytes -> {
            OnnxModel m = OnnxModel.read(bytes);
            for (OnnxTensor t : m.initializers().values()) {
                touch(t);
            }
            for (OnnxNode n : m.nodes()) {
                n.tensorAttribute("value").ifPresent(OnnxFuzzTest::touch);
            }
            OnnxStateDict.map(m).values().forEach(OnnxFuzzTest::touch);
        });
    }

    private static void touch(OnnxTensor t) {
        if (t.elementCount() > 1 << 20) {
            return;
        }
        if (t.dataType().isFloatingPoint()) {
            t.toFloatArray();
        } else if (t.dataType().isInteger()) {
            t.toLongArray();
        }
    }

    /** Two encoder-shaped layers: named biases, anonymous MatMul weights, an Add bias, a Gemm, a Constant. */
    private static byte[] bertLike() {
        float[] w = new float[12];
        Arrays.fill(w, 0.5f);
        return Proto.model(new Proto[] {
            Proto.node("/encoder/layer.0/attention/self/query/MatMul", "MatMul", "x", "onnx::MatMul_1"),
            Proto.node("/encoder/layer.0/attention/self/query/Add", "Add", "encoder.layer.0.attention.self.query.bias",
                    "q"),
            Proto.node("/encoder/layer.1/output/dense/MatMul", "MatMul", "x", "onnx::MatMul_2"),
            Proto.node("/encoder/layer.1/output/dense/Add", "Add", "onnx::Add_3", "y"),
            Proto.node("/pooler/dense/Gemm", "Gemm", "x", "pooler.dense.weight", "pooler.dense.bias")
                    .message(5, Proto.intAttribute("transB", 1)),
            Proto.node("/Constant", "Constant").message(5, new Proto().string(1, "value").varint(20, 4)
                    .message(5, new Proto().varint(2, 7).string(8, "c").packedVarints(7, 3))),
        },
                Proto.floatTensor("encoder.layer.0.attention.self.query.bias", new long[] {4}, 1, 2, 3, 4),
                Proto.floatTensor("onnx::MatMul_1", new long[] {3, 4}, w),
                Proto.floatTensor("onnx::MatMul_2", new long[] {4, 3}, w),
                Proto.floatTensor("onnx::Add_3", new long[] {3}, 1, 2, 3),
                Proto.floatTensor("pooler.dense.weight", new long[] {2, 2}, 1, 2, 3, 4),
                Proto.floatTensor("pooler.dense.bias", new long[] {2}, 1, 2));
    }

    /** Tensors in the typed fields: packed and unpacked floats, half, doubles, int64 and strings. */
    private static byte[] typedTensors() {
        return Proto.model(new Proto[] {Proto.node("/a/MatMul", "MatMul", "x", "w")},
                new Proto().packedVarints(1, 2, 1).varint(2, 1).string(8, "w").packedFloats(4, 1f, 2f),
                new Proto().varint(1, 2).varint(2, 1).string(8, "u").fixed32(4, 3f).fixed32(4, 4f),
                new Proto().varint(1, 2).varint(2, 10).string(8, "h").packedVarints(5, 0x3C00, 0x7C00),
                new Proto().varint(1, 1).varint(2, 11).string(8, "d").bytes(10, new byte[8]),
                new Proto().varint(1, 2).varint(2, 7).string(8, "i").packedVarints(7, -1, 1L << 50),
                new Proto().varint(1, 1).varint(2, 8).string(8, "s").bytes(6, new byte[] {65}));
    }
}
