package org.attn4j.bench.quantize;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * llama.cpp's own quantizer, {@code llama_model_quantize}, called through the foreign function API in a
 * {@code libllama} built with it (node-llama-cpp's prebuilt {@code libllama.*.so}, for one; de.kherud's bundled
 * library lacks it): the reference the files of {@link LlamaCppQuantization} are compared with. The parameters are
 * {@code llama_model_quantize_default_params()} with {@code nthread} 1 and {@code ftype} the mix's number; they
 * stay in memory this class allocates and passes by pointer, so only the offsets of those two leading fields
 * ({@code int32_t nthread; enum llama_ftype ftype;}) are assumed.
 */
final class LlamaModelQuantize implements AutoCloseable {
    /** Room for {@code llama_model_quantize_params}, larger than any version of it (about 64 bytes). */
    private static final MemoryLayout PARAMS = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, ValueLayout.JAVA_LONG));

    private final Arena arena = Arena.ofShared();
    private final MethodHandle defaults;
    private final MethodHandle quantize;

    /** @param library a {@code libllama} shared library exporting {@code llama_model_quantize} */
    LlamaModelQuantize(Path library) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.libraryLookup(library, arena);
        defaults = linker.downcallHandle(lib.findOrThrow("llama_model_quantize_default_params"),
                FunctionDescriptor.of(PARAMS));
        quantize = linker.downcallHandle(lib.findOrThrow("llama_model_quantize"), FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try {
            linker.downcallHandle(lib.findOrThrow("llama_backend_init"), FunctionDescriptor.ofVoid()).invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("llama_backend_init failed", e);
        }
    }

    /**
     * @param in an F32 GGUF file
     * @param out the file llama.cpp writes
     * @param mix the file type
     * @throws IllegalStateException if llama.cpp reports a failure
     */
    void quantize(Path in, Path out, LlamaCppMix mix) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment params = (MemorySegment) defaults.invokeExact((SegmentAllocator) call);
            params.set(ValueLayout.JAVA_INT, 0, 1);
            params.set(ValueLayout.JAVA_INT, 4, mix.fileType());
            int rc = (int) quantize.invokeExact(call.allocateFrom(in.toString()), call.allocateFrom(out.toString()),
                    params);
            if (rc != 0) {
                throw new IllegalStateException("llama_model_quantize returned " + rc + " for " + in + " to " + mix);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
