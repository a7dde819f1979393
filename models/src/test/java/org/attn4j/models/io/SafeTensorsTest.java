package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafeTensorsTest {

    private static StateDict sample() {
        Random r = new Random(7);
        Map<String, HostTensor> m = new LinkedHashMap<>();
        m.put("self_attn.in_proj_weight", HostTensor.of(r.doubles(12).toArray(), 6, 2));
        m.put("norm1.bias", HostTensor.of(new double[] {-0.5, Double.NaN, Double.NEGATIVE_INFINITY}, 3));
        m.put("scalar", new HostTensor(Shape.scalar(), new double[] {Math.PI}));
        return StateDict.of(m);
    }

    /** A file built from a raw header string and a data section of {@code dataBytes} zero bytes. */
    private static byte[] file(String header, int dataBytes) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(h.length).put(h).array();
    }

    private static String rejected(byte[] bytes) {
        return assertThrows(SafeTensors.FormatException.class, () -> SafeTensors.read(bytes)).getMessage();
    }

    @Test
    void f64RoundTripKeepsNamesOrderShapesAndBits() throws IOException {
        StateDict sd = sample();
        SafeTensors.Contents c = SafeTensors.read(SafeTensors.toBytes(sd, DType.F64, Map.of("format", "pt")));
        assertEquals(sd, c.tensors());
        assertEquals(sd.names(), c.tensors().names());
        assertEquals(Map.of("format", "pt"), c.metadata());
        assertEquals(WeightType.F64, c.dtypes().get("scalar"));
    }

    @Test
    void f32RoundTripRoundsToNearestFloat() throws IOException {
        StateDict sd = sample();
        SafeTensors.Contents c = SafeTensors.read(SafeTensors.toBytes(sd, DType.F32, Map.of()));
        double[] want = sd.get("self_attn.in_proj_weight").data();
        double[] have = c.tensors().get("self_attn.in_proj_weight").data();
        for (int i = 0; i < want.length; i++) {
            assertEquals((float) want[i], have[i], 0.0, "index " + i);
        }
        assertEquals(WeightType.F32, c.dtypes().get("norm1.bias"));
        assertTrue(c.metadata().isEmpty());
    }

    @Test
    void aMappedTensorGivesItsMapBackAndThenRefusesToBeRead(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("w.safetensors");
        SafeTensors.write(f, StateDict.of("w", HostTensor.of(new double[] {1, 2, 3, 4, 5, 6}, 3, 2)), DType.F32,
                Map.of());
        HostTensor w = SafeTensors.read(f).tensors().get("w");
        HostTensor view = w.rows(1, 3);
        assertEquals(List.of(3.0, 4.0), List.of(view.get(0), view.get(1)));
        assertTrue(w.release(), "a reader's tensor views a map of its own");
        assertTrue(w.isReleased() && view.isReleased());
        assertFalse(w.release(), "a second release does nothing");
        IllegalStateException e = assertThrows(IllegalStateException.class, w::toFloatArray);
        assertTrue(e.getMessage().contains("released"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> view.get(0));
        assertThrows(IllegalStateException.class, w::bytes);
        HostTensor heap = HostTensor.of(new double[] {1}, 1);
        assertFalse(heap.release(), "a tensor of heap bytes has no map to give back");
        assertEquals(1.0, heap.get(0));
    }

    @Test
    void writtenHeaderIsPaddedToEightBytesAndLittleEndian() {
        byte[] bytes = SafeTensors.toBytes(StateDict.of("w", HostTensor.of(new double[] {1.0}, 1)), DType.F32,
                Map.of());
        long n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, n % 8);
        String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
        assertEquals("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", header.strip());
        assertEquals(1.0f, ByteBuffer.wrap(bytes, 8 + (int) n, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat());
    }

    @Test
    void fileRoundTripAndNamesWithQuotesAreEscaped(@TempDir Path dir) throws IOException {
        StateDict sd = StateDict.of("we\"ird\\name\n", HostTensor.of(new double[] {1, 2, 3, 4}, 2, 2));
        Path f = dir.resolve("w.safetensors");
        SafeTensors.write(f, sd, DType.F64, Map.of("k", "v\"q"));
        SafeTensors.Contents c = SafeTensors.read(f);
        assertEquals(sd, c.tensors());
        assertEquals("v\"q", c.metadata().get("k"));
    }

    @Test
    void readsAFileWrittenByTheReferenceLayoutWithUnsortedOffsets() throws IOException {
        byte[] bytes = file("{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putFloat(bytes.length - 8, 2f)
                .putFloat(bytes.length - 4, 3f);
        StateDict sd = SafeTensors.read(bytes).tensors();
        assertEquals(List.of("a", "b"), sd.names());
        assertArrayEquals(new double[] {2.0}, sd.get("a").data());
        assertArrayEquals(new double[] {3.0}, sd.get("b").data());
    }

    @Test
    void rejectsAFileShorterThanTheLengthField() {
        assertTrue(rejected(new byte[5]).contains("fewer than the 8-byte header length"));
    }

    @Test
    void rejectsAHeaderLengthPastTheEndOfTheFileWithoutAllocatingIt() {
        byte[] bytes = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(Long.MAX_VALUE / 2).array();
        assertTrue(rejected(bytes).contains("declares a header of"));
        byte[] negative = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-8L).array();
        assertTrue(rejected(negative).contains("18446744073709551608"));
    }

    @Test
    void rejectsAHeaderAboveTheSizeLimit(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("big.safetensors");
        try (var ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.SPARSE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(SafeTensors.MAX_HEADER_BYTES + 8).flip());
            ch.write(ByteBuffer.allocate(1), SafeTensors.MAX_HEADER_BYTES + 64);
        }
        String m = assertThrows(SafeTensors.FormatException.class, () -> SafeTensors.read(f)).getMessage();
        assertTrue(m.contains("the limit is " + SafeTensors.MAX_HEADER_BYTES), m);
    }

    @Test
    void rejectsInvalidJsonAndInvalidUtf8() {
        assertTrue(rejected(file("{\"a\":", 0)).contains("not valid JSON"));
        assertTrue(rejected(file("[1,2]   ", 0)).contains("not a JSON object"));
        byte[] bad = file("{\"x\":1} ", 0);
        bad[10] = (byte) 0xC3;
        assertTrue(rejected(bad).contains("UTF-8"));
    }

    @Test
    void rejectsDuplicateTensorNames() {
        String e = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
        assertTrue(rejected(file("{\"a\":" + e + ",\"a\":" + e + "}", 4)).contains("duplicate key \"a\""));
    }

    @Test
    void rejectsOffsetsPastTheEndOfTheData() {
        String m = rejected(file("{\"a\":{\"dtype\":\"F64\",\"shape\":[1000000000],"
                + "\"data_offsets\":[0,8000000000]}}", 8));
        assertTrue(m.contains("more elements than the 8-byte data section"), m);
        m = rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 8));
        assertTrue(m.contains("outside the data section"), m);
    }

    @Test
    void rejectsAByteLengthThatDisagreesWithDtypeAndShape() {
        String m = rejected(file("{\"a\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,8]}}", 16));
        assertTrue(m.contains("(16 bytes) but data_offsets [0, 8] span 8 bytes"), m);
    }

    @Test
    void rejectsOverlappingTensorsAndGaps() {
        String overlap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}";
        assertTrue(rejected(file(overlap, 12)).contains("(overlap)"));
        String gap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
        assertTrue(rejected(file(gap, 12)).contains("(gap)"));
        String trailing = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        assertTrue(rejected(file(trailing, 12)).contains("cover 4 data bytes but the file holds 12"));
    }

    @Test
    void readsHalfPrecisionExactlyWithoutWideningTheStorage() throws IOException {
        String header = "{\"h\":{\"dtype\":\"F16\",\"shape\":[6],\"data_offsets\":[0,12]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[12,18]}}";
        byte[] bytes = file(header, 18);
        ByteBuffer data = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).position(bytes.length - 18);
        for (int bits : new int[] {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00, 0x8400, 0x3F80, 0xC2F7, 0x0001}) {
            data.putShort((short) bits);
        }
        SafeTensors.Contents c = SafeTensors.read(bytes);
        assertEquals(WeightType.F16, c.dtypes().get("h"));
        assertEquals(WeightType.BF16, c.tensors().get("b").type());
        assertArrayEquals(new double[] {1.0, -2.0, 65504.0, 0x1p-24, Double.POSITIVE_INFINITY, -0x1p-14},
                c.tensors().get("h").data());
        assertArrayEquals(new double[] {1.0, -123.5, Float.intBitsToFloat(0x00010000)}, c.tensors().get("b").data());
    }

    @Test
    void readsAFileThroughAMemoryMapInItsOwnDtype(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("w.safetensors");
        SafeTensors.write(f, StateDict.of("w", HostTensor.of(new double[] {0.5, -1.25, 3}, 3)), DType.F32, Map.of());
        HostTensor w = SafeTensors.read(f).tensors().get("w");
        assertEquals(WeightType.F32, w.type());
        assertArrayEquals(new float[] {0.5f, -1.25f, 3f}, w.toFloatArray());
    }

    @Test
    void refusesIntegerDtypesNamingTheSupportedOnes() {
        String m = rejected(file("{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8));
        assertTrue(m.contains("I64") && m.contains("only F16, BF16, F32 and F64"), m);
    }

    @Test
    void rejectsMalformedEntries() {
        assertTrue(rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0))
                .contains("dimension 0 at axis 0"));
        assertTrue(rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4))
                .contains("non-negative integer"));
        assertTrue(rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4))
                .contains("non-negative integer"));
        assertTrue(rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4)).contains("data_offsets"));
        assertTrue(rejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4))
                .contains("unknown key 'x'"));
        assertTrue(rejected(file("{\"a\":7}", 0)).contains("is not an object"));
        assertTrue(rejected(file("{\"__metadata__\":{\"k\":1}}", 0)).contains("is not a string"));
    }

    @Test
    void rejectsDeeplyNestedHeadersWithoutStackOverflow() {
        String deep = "{\"__metadata__\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertTrue(rejected(file(deep, 0)).contains("nesting deeper than"));
    }

    @Test
    void metadataOnlyFileIsAnEmptyStateDict() throws IOException {
        SafeTensors.Contents c = SafeTensors.read(file("{\"__metadata__\":{\"format\":\"pt\"}}", 0));
        assertEquals(0, c.tensors().size());
        assertEquals("pt", c.metadata().get("format"));
    }

    @Test
    void fileTruncatedAfterTheHeaderIsRejected(@TempDir Path dir) throws IOException {
        byte[] whole = SafeTensors.toBytes(sample(), DType.F64, Map.of());
        Path f = dir.resolve("cut.safetensors");
        Files.write(f, Arrays.copyOf(whole, whole.length - 3));
        String m = assertThrows(SafeTensors.FormatException.class, () -> SafeTensors.read(f)).getMessage();
        assertTrue(m.contains("outside the data section") || m.contains("cover"), m);
    }
}
