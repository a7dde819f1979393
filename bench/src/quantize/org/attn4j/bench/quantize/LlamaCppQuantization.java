package org.attn4j.bench.quantize;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.attn4j.api.WeightType;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.parameters.HostTensor;

/**
 * What {@code llama-quantize} does to an F32 GGUF file for one {@link LlamaCppMix}, without an importance matrix: the
 * metadata copied in order with {@code general.file_type} set to the mix's number, every tensor in the source's
 * order, its type chosen by {@link LlamaCppTypeChoice} and its rows quantized by ggml ({@link GgmlQuantizer}); tensors
 * that stay F32 are copied. Each tensor is quantized when the writer reaches it, so a file larger than the heap is
 * quantized in the memory of one tensor.
 */
final class LlamaCppQuantization {
    private LlamaCppQuantization() {
    }

    /**
     * @param source an F32 GGUF file's contents
     * @param mix the file type to make
     * @param ggml the quantizer
     * @param out the file to write
     * @return how many tensors each type holds in the written file
     * @throws IOException if it cannot be written
     * @throws IllegalArgumentException if a tensor of the source is not F32 or the source has no
     *     {@code general.file_type}
     */
    static Map<GgmlType, Integer> write(Gguf.Contents source, LlamaCppMix mix, GgmlQuantizer ggml, Path out)
            throws IOException {
        if (!source.has("general.file_type")) {
            throw new IllegalArgumentException("the source has no general.file_type to replace");
        }
        GgufWriter w = new GgufWriter();
        source.metadata().forEach((key, value) -> w.put(key, key.equals("general.file_type")
                ? new Gguf.Value(Gguf.ValueType.UINT32, null, (long) mix.fileType()) : value));
        List<LlamaCppTypeChoice.Tensor> tensors = new ArrayList<>();
        for (Gguf.TensorInfo t : source.infos()) {
            if (t.type() != WeightType.F32) {
                throw new IllegalArgumentException(t.name() + " is " + t.type() + "; the source must be all F32");
            }
            tensors.add(new LlamaCppTypeChoice.Tensor(t.name(), t.shape().rank(), t.shape().dim(-1), GgmlType.F32));
        }
        LlamaCppTypeChoice choice = new LlamaCppTypeChoice(mix, tensors);
        Map<GgmlType, Integer> counts = new TreeMap<>();
        for (int i = 0; i < tensors.size(); i++) {
            Gguf.TensorInfo info = source.infos().get(i);
            GgmlType type = choice.next(tensors.get(i));
            counts.merge(type, 1, Integer::sum);
            WeightType stored = WeightType.valueOf(type.name());
            w.tensor(info.name(), info.shape(), stored, () -> {
                HostTensor values = source.tensors().get(info.name());
                if (type == GgmlType.F32) {
                    return values;
                }
                byte[] bytes = ggml.quantize(type, values.toFloatArray(), info.shape().dim(-1));
                return HostTensor.wrap(info.shape(), stored, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
            });
        }
        w.write(out);
        return counts;
    }
}
