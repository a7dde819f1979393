package org.attn4j.bench.quantize;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * ggml's own quantizer, called through the foreign function API in the llama.cpp library that {@code de.kherud:llama}
 * bundles ({@code de/kherud/llama/Linux/x86_64/libjllama.so} on the class path, copied to a temporary file and
 * opened there). {@code ggml_init} runs once first: it fills the half-precision tables that F16 conversion and the
 * K-quants' scales read. Then {@link #quantize} is {@code ggml_quantize_chunk(type, src, dst, 0, rows, columns,
 * NULL)}: every row of {@code columns} numbers quantized without an importance matrix, as {@code llama-quantize}
 * does without {@code --imatrix}.
 */
final class GgmlQuantizer implements AutoCloseable {
    private static final String LIBRARY = "de/kherud/llama/Linux/x86_64/libjllama.so";
    private static final MemoryLayout INIT_PARAMS = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("mem_size"), ValueLayout.ADDRESS.withName("mem_buffer"),
            ValueLayout.JAVA_BOOLEAN.withName("no_alloc"), MemoryLayout.paddingLayout(7));

    private final Arena arena = Arena.ofShared();
    private final MethodHandle quantizeChunk;
    private final MethodHandle rowSize;
    private final MethodHandle free;
    private final MemorySegment context;

    /**
     * @throws IOException if the library is not on the class path or cannot be copied out
     */
    GgmlQuantizer() throws IOException {
        Path copy = Files.createTempFile("ggml-quantizer", ".so");
        copy.toFile().deleteOnExit();
        try (InputStream in = GgmlQuantizer.class.getClassLoader().getResourceAsStream(LIBRARY)) {
            if (in == null) {
                throw new IOException("no " + LIBRARY + " on the class path (de.kherud:llama's jar)");
            }
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.libraryLookup(copy, arena);
        MethodHandle init = linker.downcallHandle(lib.findOrThrow("ggml_init"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, INIT_PARAMS));
        quantizeChunk = linker.downcallHandle(lib.findOrThrow("ggml_quantize_chunk"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        rowSize = linker.downcallHandle(lib.findOrThrow("ggml_row_size"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        free = linker.downcallHandle(lib.findOrThrow("ggml_free"), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        MemorySegment params = arena.allocate(INIT_PARAMS);
        params.set(ValueLayout.JAVA_LONG, 0, 1024);
        params.set(ValueLayout.ADDRESS, 8, MemorySegment.NULL);
        params.set(ValueLayout.JAVA_BOOLEAN, 16, true);
        try {
            context = (MemorySegment) init.invokeExact(params);
        } catch (Throwable e) {
            throw new IllegalStateException("ggml_init failed", e);
        }
        if (context.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("ggml_init returned no context");
        }
    }

    /**
     * @param type the type to store the rows in (not F32)
     * @param values the rows, row-major
     * @param columns the length of a row, a multiple of the type's block size
     * @return the rows in {@code type}'s blocks, as ggml lays them out
     */
    byte[] quantize(GgmlType type, float[] values, int columns) {
        if (columns % type.blockSize() != 0 || values.length % columns != 0) {
            throw new IllegalArgumentException("ggml_quantize_chunk: rows of " + columns + " numbers (of "
                    + values.length + ") are not whole " + type + " blocks of " + type.blockSize());
        }
        long rows = values.length / columns;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment src = call.allocateFrom(ValueLayout.JAVA_FLOAT, values);
            long bytes = (long) rowSize.invokeExact(type.code(), (long) columns) * rows;
            MemorySegment dst = call.allocate(bytes, 64);
            long written = (long) quantizeChunk.invokeExact(type.code(), src, dst, 0L, rows, (long) columns,
                    MemorySegment.NULL);
            if (written != bytes) {
                throw new IllegalStateException("ggml_quantize_chunk wrote " + written + " bytes of " + type
                        + ", expected " + bytes);
            }
            return dst.toArray(ValueLayout.JAVA_BYTE);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            free.invokeExact(context);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        } finally {
            arena.close();
        }
    }
}
