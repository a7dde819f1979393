package org.attn4j.bench.decode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;

/**
 * The files of one {@link PeerModel}, written on demand into {@code <models>/<name>/} and reused after:
 * <pre>
 *   hf-f32/ hf-bf16/       config.json + model.safetensors: attn4j, Jlama and the PyTorch reference read these
 *   jlama-f32/ jlama-bf16/ the same files linked, plus the tokenizer.json Jlama needs
 *   NAME-f32.gguf NAME-bf16.gguf NAME-q8_0.gguf   as llama.cpp's converter writes them, with a SentencePiece
 *                          vocabulary: &lt;unk&gt;, &lt;s&gt;, &lt;/s&gt;, the 256 byte tokens, then
 *                          "▁t&lt;id&gt;" for every other id, so that the text llama.cpp streams names the ids it chose
 *   NAME-q4_k_m.gguf NAME-q6_k.gguf   the F32 file as llama-quantize quantizes it, made when first asked
 *                          for ({@link #mix})
 * </pre>
 * Each tensor is made and written alone, so a model larger than the heap is written in the heap of one tensor;
 * everything goes to a {@code .partial} folder that is renamed when complete, so an interrupted run leaves nothing
 * that looks whole. {@code bench.json} names the weights ({@link PeerModel#fingerprint()}) and holds the prompt, for
 * the PyTorch reference script ({@code bench/src/test/python/decode_reference_ids.py}).
 */
final class PeerFiles {
    /** The llama.cpp mixes made from the F32 GGUF on demand ({@link #mix}). */
    static final List<String> MIXES = List.of("q4_k_m", "q6_k");

    private final PeerModel model;
    private final Path dir;

    private PeerFiles(PeerModel model, Path dir) {
        this.model = model;
        this.dir = dir;
    }

    /**
     * @param model the shape
     * @param models the folder holding every model's files
     * @param log where progress goes
     * @return the files, written first if missing or made by another generator
     * @throws IOException if they cannot be written
     */
    static PeerFiles ensure(PeerModel model, Path models, java.io.PrintStream log) throws IOException {
        Path dir = models.resolve(model.name());
        Path marker = dir.resolve("bench.json");
        if (Files.isRegularFile(marker) && Files.readString(marker).equals(model.benchJson())) {
            return new PeerFiles(model, dir);
        }
        Path partial = models.resolve(model.name() + ".partial");
        delete(partial);
        Files.createDirectories(partial);
        log.println("decode bench: writing " + model.name() + " (" + model.parameters() / 1_000_000
                + "M parameters) to " + dir);
        writeFolders(model, partial);
        PeerFiles p = new PeerFiles(model, partial);
        for (WeightType t : List.of(WeightType.F32, WeightType.BF16, WeightType.Q8_0)) {
            p.writeGguf(t);
        }
        p.writeJlamaFolder("f32");
        p.writeJlamaFolder("bf16");
        Files.writeString(partial.resolve("bench.json"), model.benchJson());
        delete(dir);
        Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
        return new PeerFiles(model, dir);
    }

    /** @return the Hugging Face folder in F32 or BF16 ({@code "f32"}, {@code "bf16"}) */
    Path hf(String dtype) {
        return dir.resolve("hf-" + dtype);
    }

    /** @return Jlama's folder in F32 or BF16 */
    Path jlama(String dtype) {
        return dir.resolve("jlama-" + dtype);
    }

    /** @return the GGUF file whose matrices have this type */
    Path gguf(WeightType type) {
        return gguf(type.name().toLowerCase(java.util.Locale.ROOT));
    }

    /** @return the GGUF file of these weights: {@code f32}, {@code bf16}, {@code q8_0} or a mix of {@link #MIXES} */
    Path gguf(String weights) {
        return dir.resolve(model.name() + "-" + weights + ".gguf");
    }

    /**
     * The file of a llama.cpp mix, made on first use from the F32 GGUF as {@code llama-quantize} makes it, by
     * {@code bench/src/quantize}'s {@code QuantizeGguf} under a Java 22+ JVM (every tensor's type chosen by llama.cpp's
     * rules, its rows quantized by ggml's own code from {@code de.kherud:llama}'s library); written to a
     * {@code .partial} file renamed when complete.
     *
     * @param mix one of {@link #MIXES}
     * @param java a Java 22+ {@code java}
     * @param module the bench module's folder, for {@code src/quantize}
     * @param log where progress goes
     * @return the file
     * @throws IOException if it cannot be written
     * @throws InterruptedException if interrupted while the quantizer runs
     */
    Path mix(String mix, String java, Path module, java.io.PrintStream log) throws IOException,
            InterruptedException {
        if (!MIXES.contains(mix)) {
            throw new IllegalArgumentException("decode bench: no mix " + mix + "; known: " + MIXES);
        }
        Path file = gguf(mix);
        if (Files.isRegularFile(file)) {
            return file;
        }
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        log.println("decode bench: quantizing " + gguf(WeightType.F32).getFileName() + " to " + mix);
        Process p = new ProcessBuilder(java, "-Xmx3g", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), module.resolve(
                        "src/quantize/org/attn4j/bench/quantize/QuantizeGguf.java").toString(),
                gguf(WeightType.F32).toString(), partial.toString(), mix).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("decode bench: QuantizeGguf exited with " + p.exitValue() + " for " + file);
        }
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /**
     * @param weights a GGUF file's weights ({@link #gguf(String)})
     * @return the bytes of the matrices one decoding step reads from that file: every matrix of every block and
     *     the LM head ({@code output.weight}, else the tied {@code token_embd.weight}), each in its own type
     * @throws IOException if the file cannot be read
     */
    long bytesPerToken(String weights) throws IOException {
        Gguf.Contents file = Gguf.read(gguf(weights));
        boolean tied = file.infos().stream().noneMatch(t -> t.name().equals("output.weight"));
        return file.infos().stream().filter(t -> t.shape().rank() == 2 && (t.name().startsWith("blk.")
                || t.name().equals("output.weight") || tied && t.name().equals("token_embd.weight")))
                .mapToLong(Gguf.TensorInfo::byteSize).sum();
    }

    /** Both Hugging Face folders in one pass over the tensors. */
    private static void writeFolders(PeerModel model, Path dir) throws IOException {
        Path f32 = Files.createDirectories(dir.resolve("hf-f32"));
        Path bf16 = Files.createDirectories(dir.resolve("hf-bf16"));
        Files.writeString(f32.resolve("config.json"), model.configJson("float32"));
        Files.writeString(bf16.resolve("config.json"), model.configJson("bfloat16"));
        try (FileChannel a = create(f32.resolve("model.safetensors"));
             FileChannel b = create(bf16.resolve("model.safetensors"))) {
            write(a, header(model, "F32", 4));
            write(b, header(model, "BF16", 2));
            for (PeerModel.Tensor t : model.tensors()) {
                float[] v = model.values(t);
                ByteBuffer wide = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
                wide.asFloatBuffer().put(v);
                write(a, wide);
                ByteBuffer narrow = ByteBuffer.allocate(2 * v.length).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < v.length; i++) {
                    narrow.putShort(2 * i, (short) (Float.floatToRawIntBits(v[i]) >>> 16));
                }
                write(b, narrow);
            }
        }
    }

    /** A safetensors header of every tensor in one dtype, padded to 8 bytes, with its length first. */
    private static ByteBuffer header(PeerModel model, String dtype, int bytes) {
        StringBuilder h = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
        long offset = 0;
        for (PeerModel.Tensor t : model.tensors()) {
            long size = t.size() * bytes;
            String shape = t.matrix() ? t.rows() + "," + t.columns() : String.valueOf(t.columns());
            h.append(",\"").append(t.name()).append("\":{\"dtype\":\"").append(dtype).append("\",\"shape\":[")
                    .append(shape).append("],\"data_offsets\":[").append(offset).append(',').append(offset + size)
                    .append("]}");
            offset += size;
        }
        h.append('}');
        while ((h.length() + 8) % 8 != 0) {
            h.append(' ');
        }
        byte[] json = h.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(8 + json.length).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(json.length).put(json).flip();
        return out;
    }

    /** The GGUF of one type, converted from the F32 folder (the BF16 one for BF16), one tensor at a time. */
    private void writeGguf(WeightType type) throws IOException {
        Path source = hf(type == WeightType.BF16 ? "bf16" : "f32");
        GgufWriter w = GgufCheckpoints.fromFolder(source, type);
        vocabulary(w);
        w.write(gguf(type));
    }

    /** The SentencePiece vocabulary of the GGUF files, as llama.cpp's converter writes Llama's. */
    private void vocabulary(GgufWriter w) {
        List<String> tokens = tokens(model);
        int[] types = new int[tokens.size()];
        float[] scores = new float[tokens.size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = i == 0 ? 2 : i < 3 ? 3 : i < PeerModel.SPECIAL_TOKENS ? 6 : 1;
            scores[i] = i < PeerModel.SPECIAL_TOKENS ? 0f : -i;
        }
        w.string("tokenizer.ggml.model", "llama").strings("tokenizer.ggml.tokens", tokens)
                .floats("tokenizer.ggml.scores", scores).int32s("tokenizer.ggml.token_type", types)
                .uint32("tokenizer.ggml.bos_token_id", 1).uint32("tokenizer.ggml.eos_token_id", 2)
                .uint32("tokenizer.ggml.unknown_token_id", 0).bool("tokenizer.ggml.add_bos_token", false)
                .bool("tokenizer.ggml.add_eos_token", false);
    }

    /** @return every token's piece by id */
    static List<String> tokens(PeerModel model) {
        List<String> tokens = new ArrayList<>(List.of("<unk>", "<s>", "</s>"));
        for (int b = 0; b < 256; b++) {
            tokens.add(String.format("<0x%02X>", b));
        }
        for (int id = PeerModel.SPECIAL_TOKENS; id < model.vocab(); id++) {
            tokens.add("\u2581t" + id);
        }
        return tokens;
    }

    /**
     * Jlama's folder: the Hugging Face folder's files linked, and a {@code tokenizer.json} of the same vocabulary
     * (BPE with byte fallback and no merges; the bench hands Jlama token ids, so it only decodes).
     */
    private void writeJlamaFolder(String dtype) throws IOException {
        Path target = Files.createDirectories(jlama(dtype));
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.createSymbolicLink(target.resolve(f), target.relativize(hf(dtype).resolve(f)));
        }
        Files.writeString(target.resolve("tokenizer.json"), tokenizerJson(model));
    }

    /**
     * @param model the shape
     * @return a {@code tokenizer.json} of its vocabulary ({@link #tokens}): BPE with byte fallback and no merges, so
     *     every ordinary id decodes to a piece of its own
     */
    static String tokenizerJson(PeerModel model) {
        List<String> tokens = tokens(model);
        StringBuilder vocab = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            vocab.append(i > 0 ? "," : "").append('"').append(tokens.get(i)).append("\":").append(i);
        }
        String added = "{\"id\":%d,\"content\":\"%s\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
                + "\"normalized\":false,\"special\":true}";
        return "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":["
                + String.format(added, 0, "<unk>") + "," + String.format(added, 1, "<s>") + ","
                + String.format(added, 2, "</s>") + "],\"normalizer\":null,\"pre_tokenizer\":null,"
                + "\"post_processor\":null,\"decoder\":null,\"model\":{\"type\":\"BPE\",\"dropout\":null,"
                + "\"unk_token\":\"<unk>\",\"continuing_subword_prefix\":null,\"end_of_word_suffix\":null,"
                + "\"fuse_unk\":true,\"byte_fallback\":true,\"vocab\":{" + vocab + "},\"merges\":[]}}";
    }

    private static FileChannel create(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    private static void write(FileChannel out, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }

    /** Deletes a folder and what it holds, links not followed. */
    private static void delete(Path path) throws IOException {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

}
