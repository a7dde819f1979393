package org.attn4j.bench.decode;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The decode bench's llama.cpp run ({@code de.kherud:llama}, which bundles llama.cpp's natives), started by
 * {@link DecodePeersMain} in its own JVM: loads a GGUF file on the given threads, sends the prompt as token ids,
 * decodes greedily (temperature 0) and prints the ids on standard output and, on standard error, the load time,
 * prefill and decode rates and the peak resident memory in the format of {@code attn4j generate --stats}, timed
 * here as for the other engines (the prompt until the first token streams back, then the rest); llama.cpp also
 * prints its own {@code prompt eval time} and {@code eval time} there, when its asynchronous log gets to it.
 *
 * <p>The text llama.cpp streams names the ids: the bench's vocabulary spells token {@code id} as {@code ▁t<id>}
 * ({@link PeerFiles}). The binding takes a prompt as text only; llama.cpp's server, under it, also takes a JSON array
 * of token ids, which this class puts into the request's parameters directly.
 *
 * <pre>java -cp CLASSPATH org.attn4j.bench.decode.LlamaCppRun FILE.gguf IDS TOKENS THREADS</pre>
 */
public final class LlamaCppRun {
    private static final Pattern TOKEN = Pattern.compile("t(\\d+)");

    private LlamaCppRun() {
    }

    /**
     * @param args the GGUF file, the prompt's ids separated by commas, the tokens to decode, the threads
     * @throws ReflectiveOperationException if the binding's parameters cannot take token ids
     */
    public static void main(String[] args) throws ReflectiveOperationException {
        String file = args[0];
        String ids = args[1];
        int tokens = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> {
        });
        long start = System.nanoTime();
        long loaded;
        long first = 0;
        long end;
        List<Integer> out = new ArrayList<>();
        try (LlamaModel model = new LlamaModel(new ModelParameters().setModel(file).setThreads(threads)
                .setThreadsBatch(threads).setCtxSize(PeerModel.PROMPT + tokens + 16))) {
            loaded = System.nanoTime();
            InferenceParameters request = new InferenceParameters("").setTemperature(0f).setNPredict(tokens)
                    .setIgnoreEos(true);
            promptIds(request, "[" + ids + "]");
            for (LlamaOutput o : model.generate(request)) {
                Matcher m = TOKEN.matcher(o.text);
                while (m.find()) {
                    out.add(Integer.parseInt(m.group(1)));
                    if (out.size() == 1) {
                        first = System.nanoTime();
                    }
                }
            }
            end = System.nanoTime();
        }
        StringBuilder line = new StringBuilder();
        for (int id : out) {
            line.append(line.length() > 0 ? " " : "").append(id);
        }
        System.out.println(line);
        System.out.flush();
        System.err.println(String.format(Locale.ROOT, "load: %.2f s (llama.cpp, %d threads)", (loaded - start) / 1e9,
                threads));
        System.err.println(rate("prefill", PeerModel.PROMPT, first - loaded));
        System.err.println(rate("decode", out.size() - 1, end - first));
        System.err.println(PeakMemory.line());
        System.exit(out.size() == tokens ? 0 : 3);
    }

    private static String rate(String what, int count, long nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, "%s: %d tokens in %.1f ms (%.2f ms per token, %.2f tokens/s)", what, count,
                ms, ms / count, count / (ms / 1e3));
    }

    @SuppressWarnings("unchecked")
    private static void promptIds(InferenceParameters request, String json) throws ReflectiveOperationException {
        Field parameters = Class.forName("de.kherud.llama.JsonParameters").getDeclaredField("parameters");
        parameters.setAccessible(true);
        ((Map<String, String>) parameters.get(request)).put("prompt", json);
    }
}
