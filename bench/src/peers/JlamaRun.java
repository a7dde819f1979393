import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The decode bench's Jlama run, started by DecodePeersMain in its own JVM (Java 21 or later; Jlama's classes need
 * it): loads a Hugging Face folder with Jlama 0.8.4 (F32 activations, I8 for its quantized products; with a type
 * the weights are quantized to it at load), prefills the prompt's token ids in one batch and decodes greedily
 * token by token as Jlama's own generate loop does, then prints the ids on standard output and, on standard error,
 * the load time, prefill and decode rates and the peak resident memory in the format of attn4j generate --stats.
 *
 * <pre>java --add-modules jdk.incubator.vector -cp CLASSPATH JlamaRun.java FOLDER IDS TOKENS THREADS [Q4]</pre>
 */
public class JlamaRun {
    public static void main(String[] args) throws Exception {
        File folder = new File(args[0]);
        int[] prompt = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int tokens = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        Optional<DType> quantize = args.length > 4 ? Optional.of(DType.valueOf(args[4])) : Optional.empty();
        long start = System.nanoTime();
        AbstractModel model = ModelSupport.loadModel(folder, null, DType.F32, DType.I8, quantize, Optional.of(threads));
        long loaded = System.nanoTime();
        int[] out = new int[tokens];
        long firstToken;
        long end;
        try (KvBufferCache cache = new KvBufferCache(model);
             KvBufferCache.KvBuffer kv = cache.getKvBuffer(UUID.randomUUID());
             AbstractTensor logits = model.makeDenseTensor(model.getConfig().vocabularySize)) {
            AbstractTensor last = model.batchForward(prompt, 0, kv);
            out[0] = model.sample(last.slice(last.shape().first() - 1), 0f, 0f, logits);
            last.close();
            firstToken = System.nanoTime();
            for (int i = 1; i < tokens; i++) {
                AbstractTensor output = model.forward(out[i - 1], prompt.length + i - 1, kv, Optional.empty());
                out[i] = model.sample(output, 0f, 0f, logits);
                output.close();
                kv.incrementContextPosition();
            }
            end = System.nanoTime();
        }
        StringBuilder ids = new StringBuilder();
        for (int id : out) {
            ids.append(ids.length() > 0 ? " " : "").append(id);
        }
        System.out.println(ids);
        System.out.flush();
        System.err.println(String.format(Locale.ROOT, "load: %.2f s (Jlama 0.8.4, weights %s)", (loaded - start) / 1e9,
                quantize.map(Object::toString).orElse("as in the file")));
        System.err.println(rate("prefill", prompt.length, firstToken - loaded));
        System.err.println(rate("decode", tokens - 1, end - firstToken));
        System.err.println(peakMemory());
        System.exit(0);
    }

    private static String rate(String what, int count, long nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, "%s: %d tokens in %.1f ms (%.2f ms per token, %.2f tokens/s)", what, count,
                ms, ms / count, count / (ms / 1e3));
    }

    private static String peakMemory() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                long kb = Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                return String.format(Locale.ROOT, "peak memory: %.1f MiB resident (VmHWM)", kb / 1024.0);
            }
        }
        return "peak memory: unknown";
    }
}
