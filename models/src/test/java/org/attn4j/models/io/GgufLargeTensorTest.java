package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.attn4j.api.Backends;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tensor of more bytes than one buffer holds: an F32 {@code token_embd} of 131,073 rows of 4096 (2,147,500,032
 * bytes) in a sparse GGUF file (and a safetensors one), of which the test writes the header and a few values only, so that it needs a few
 * kilobytes of disk and heap. The file is mapped in blocks of whole rows; values on either side of a block's end
 * read as written, the holes as zero.
 */
class GgufLargeTensorTest {
    private static final int COLUMNS = 4096;
    private static final int ROWS = 131_073;
    private static final long BYTES = 4L * COLUMNS * ROWS;
    /** The rows of one block: as many whole rows as 2^31 - 1 bytes hold. */
    private static final int BLOCK_ROWS = Integer.MAX_VALUE / (4 * COLUMNS);

    @TempDir
    Path dir;

    /** Writes the header of a GGUF file with one F32 tensor {@code [ROWS, COLUMNS]} and sizes the file, sparsely. */
    private Path sparseFile() throws IOException {
        ByteBuffer h = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        byte[] name = "token_embd.weight".getBytes(StandardCharsets.UTF_8);
        h.putInt(0x46554747).putInt(3).putLong(1).putLong(0);
        h.putLong(name.length).put(name).putInt(2).putLong(COLUMNS).putLong(ROWS).putInt(0).putLong(0);
        int dataStart = (h.position() + 31) / 32 * 32;
        Path file = dir.resolve("large.gguf");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.write(h.array(), 0, h.position());
            f.setLength(dataStart + BYTES);
            put(f, dataStart, 0, 0, 1.5f);
            put(f, dataStart, BLOCK_ROWS - 1, COLUMNS - 1, -2.25f);
            put(f, dataStart, BLOCK_ROWS, 0, 3.0f);
            put(f, dataStart, ROWS - 1, COLUMNS - 1, 7.0f);
        }
        return file;
    }

    private static void put(RandomAccessFile f, int dataStart, long row, int column, float v) throws IOException {
        f.seek(dataStart + 4 * (row * COLUMNS + column));
        f.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array());
    }

    private static void assertValue(float expected, double actual, String where) {
        assertEquals(expected, actual, 0.0, where + ": expected " + expected + ", actual " + actual + ", abs err "
                + Math.abs(expected - actual));
    }

    @Test
    void aTensorOverTwoGibibytesIsMappedInBlocksOfWholeRowsAndReadsAsWritten() throws IOException {
        assertTrue(BYTES > Integer.MAX_VALUE);
        Gguf.Contents g = Gguf.read(sparseFile());
        HostTensor t = g.tensors().get("token_embd.weight");
        assertEquals(Shape.of(ROWS, COLUMNS), t.shape());
        assertEquals(BYTES, t.byteSize());
        assertEquals(BYTES, g.infos().get(0).byteSize());
        assertValue(1.5f, t.get(0), "[0, 0]");
        assertValue(-2.25f, t.get(BLOCK_ROWS * COLUMNS - 1), "the first block's last value");
        assertValue(3.0f, t.get(BLOCK_ROWS * COLUMNS), "the second block's first value");
        assertValue(7.0f, t.get((int) ((long) ROWS * COLUMNS - 1)), "the last value");
        assertValue(0f, t.get(12345), "a hole");

        float[] across = t.rows(BLOCK_ROWS - 1, BLOCK_ROWS + 1).toFloatArray();
        assertEquals(2 * COLUMNS, across.length);
        assertValue(-2.25f, across[COLUMNS - 1], "rows across the blocks, [0, 4095]");
        assertValue(3.0f, across[COLUMNS], "rows across the blocks, [1, 0]");
        HostTensor last = t.rows(ROWS - 1, ROWS);
        assertValue(7.0f, last.get(COLUMNS - 1), "the last row");
        assertEquals(-1, t.rows(ROWS - 2, ROWS).indexOfNonFinite());
        t.release();
        assertTrue(t.isReleased());
    }

    @Test
    void aSafetensorsFileMapsSuchATensorInBlocksToo() throws IOException {
        byte[] header = ("{\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[" + ROWS + "," + COLUMNS
                + "],\"data_offsets\":[0," + BYTES + "]}}").getBytes(StandardCharsets.UTF_8);
        Path file = dir.resolve("large.safetensors");
        int dataStart = 8 + header.length;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length).array());
            f.write(header);
            f.setLength(dataStart + BYTES);
            put(f, dataStart, BLOCK_ROWS, 0, 3.0f);
            put(f, dataStart, ROWS - 1, COLUMNS - 1, 7.0f);
        }
        HostTensor t = SafeTensors.read(file).tensors().get("model.embed_tokens.weight");
        assertEquals(Shape.of(ROWS, COLUMNS), t.shape());
        assertValue(3.0f, t.get(BLOCK_ROWS * COLUMNS), "the second block's first value");
        assertValue(7.0f, t.rows(ROWS - 1, ROWS).get(COLUMNS - 1), "the last value");
        t.release();
    }

    @Test
    void itsBytesInOneBufferAndItsOwnTypeOnABackendAreRefusedByName() throws IOException {
        HostTensor t = Gguf.read(sparseFile()).tensors().get("token_embd.weight");
        IllegalStateException e = assertThrows(IllegalStateException.class, t::bytes);
        assertTrue(e.getMessage().contains("HostTensor.bytes") && e.getMessage().contains(String.valueOf(BYTES)),
                e.getMessage());
        try (Scope scope = Backends.load("ejml").newScope()) {
            IllegalArgumentException w = assertThrows(IllegalArgumentException.class,
                    () -> t.toWeight(scope, WeightType.F32));
            assertTrue(w.getMessage().contains("F32") && w.getMessage().contains(String.valueOf(BYTES)),
                    w.getMessage());
        }
        t.release();
    }
}
