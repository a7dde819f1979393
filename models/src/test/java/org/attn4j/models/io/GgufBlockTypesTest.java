package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class GgufBlockTypesTest {

    private static float[] gaussian(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 0.05);
        }
        return v;
    }

    @ParameterizedTest
    @EnumSource(value = WeightType.class, mode = EnumSource.Mode.EXCLUDE, names = "I8")
    void everyGgufWeightTypeIsReadInItsOwnBytesAndValues(WeightType type) throws Exception {
        Shape shape = Shape.of(3, 512);
        ByteBuffer bytes = type.encode(gaussian(1536, type.ordinal()), shape);
        byte[] file = new GgufWriter().tensor("blk.0.ffn_down.weight", HostTensor.wrap(shape, type, bytes.duplicate()))
                .toBytes();
        HostTensor t = Gguf.read(file).tensors().get("blk.0.ffn_down.weight");
        assertEquals(type, t.type());
        assertEquals(shape, t.shape());
        assertArrayEquals(type.decode(bytes, shape), t.toFloatArray(), type.name());
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 17, 18, 19, 21, 22, 29, 34, 35, 39})
    void aBlockTypeAttn4jDoesNotLoadIsRefusedNamingTheTypeAndTheTensor(int code) throws Exception {
        String name = "blk.3.attn_v.weight";
        byte[] file = new GgufWriter().tensor(name, HostTensor.wrap(Shape.of(2, 256), WeightType.Q4_K,
                WeightType.Q4_K.encode(gaussian(512, 1), Shape.of(2, 256)))).toBytes();
        int at = indexOf(file, name.getBytes(StandardCharsets.UTF_8)) + name.length();
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int dims = b.getInt(at);
        assertEquals(Gguf.ggmlType(WeightType.Q4_K), b.getInt(at + 4 + 8 * dims));
        b.putInt(at + 4 + 8 * dims, code);
        Gguf.FormatException e = assertThrows(Gguf.FormatException.class, () -> Gguf.read(file));
        String[] names = {"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ3_S", "IQ2_S", "IQ1_M", "TQ1_0", "TQ2_0",
            "MXFP4"};
        String expected = names[java.util.Arrays.binarySearch(new int[] {16, 17, 18, 19, 21, 22, 29, 34, 35, 39},
                code)];
        assertTrue(e.getMessage().contains(name) && e.getMessage().contains("ggml type " + expected + ",")
                && e.getMessage().contains("Q4_K"), e.getMessage());
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
