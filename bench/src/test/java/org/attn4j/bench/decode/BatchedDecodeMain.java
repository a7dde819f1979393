package org.attn4j.bench.decode;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.generate.BatchDecoder;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Aggregate decoding throughput of continuous batching: {@code S} greedy streams (S = 1, 4, 8, 16) decoded together
 * by one {@link BatchDecoder} on a random-weight Llama in the shape of SmolLM2-135M ({@link PeerModel}), each stream
 * with a prompt of its own ({@link PeerModel#PROMPT} tokens). The prompts are read first (chunked prefill, not
 * timed); then the steps until every stream has its tokens are timed, and tokens/s is the tokens those steps made,
 * all streams together, over their time. Each stream's tokens are checked against the same prompt decoded alone:
 * batch invariance says they are equal, and the report says whether they were.
 *
 * <p>Arguments: the output folder (writes {@code batched-decode.md}); system properties {@code bench.backend}
 * (default {@code ejml}), {@code bench.model} ({@code smollm2-135m}), {@code bench.weights} ({@code f32}; also
 * {@code bf16}, {@code q8_0}), {@code bench.streams} ({@code 1,4,8,16}), {@code bench.tokens} (new tokens per stream,
 * default {@value PeerModel#GENERATED}).
 */
public final class BatchedDecodeMain {

    private BatchedDecodeMain() {
    }

    /**
     * @param args the output folder
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "results");
        String backend = System.getProperty("bench.backend", "ejml");
        PeerModel shape = PeerModel.named(System.getProperty("bench.model", PeerModel.SMOLLM2_135M.name()));
        WeightType weights = WeightType.valueOf(System.getProperty("bench.weights", "f32").toUpperCase(Locale.ROOT));
        int[] streams = Arrays.stream(System.getProperty("bench.streams", "1,4,8,16").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        int tokens = Integer.getInteger("bench.tokens", PeerModel.GENERATED);
        String loadBefore = load();
        List<String> lines = new ArrayList<>();
        lines.add("# Batched decoding: aggregate tokens/s of concurrent greedy streams");
        lines.add("");
        lines.add(String.format(Locale.ROOT, "%s shape (%d layers, hidden %d, %d heads over %d kv heads, vocabulary"
                + " %d), random weights in %s, on %s; %d-token prompts read first (not timed), then %d new tokens"
                + " per stream timed; tokens/s counts every stream's tokens.", shape.source(), shape.layers(),
                shape.hidden(), shape.heads(), shape.kvHeads(), shape.vocab(), weights, backend, PeerModel.PROMPT,
                tokens));
        lines.add("");
        lines.add("| streams | decode steps | tokens | seconds | tokens/s | per stream | × one stream"
                + " | ids as alone |");
        lines.add("|---|---|---|---|---|---|---|---|");
        try (CausalLM model = CausalLM.of(config(shape), state(shape), Backends.load(backend), DType.F32,
                weights == WeightType.F32 ? null : weights)) {
            GenerationOptions options = GenerationOptions.defaults().withMaxNewTokens(tokens);
            int most = Arrays.stream(streams).max().orElse(1);
            int[][] alone = new int[most][];
            run(model, prompts(shape, 1), options, new int[1][]);
            double first = 0;
            for (int s : streams) {
                int[][] prompts = prompts(shape, s);
                int[][] got = new int[s][];
                double[] timed = run(model, prompts, options, got);
                boolean same = true;
                for (int i = 0; i < s; i++) {
                    if (alone[i] == null) {
                        int[][] one = new int[1][];
                        run(model, new int[][] {prompts[i]}, options, one);
                        alone[i] = one[0];
                    }
                    same &= Arrays.equals(alone[i], got[i]);
                }
                double rate = timed[1] / timed[2];
                if (first == 0) {
                    first = rate;
                }
                lines.add(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.3f | %.1f | %.1f | %.2f | %s |", s,
                        timed[0], timed[1], timed[2], rate, rate / s, rate / first, same ? "yes" : "NO"));
                System.out.println(lines.get(lines.size() - 1));
            }
        }
        lines.add("");
        lines.add("Load average before the run: " + loadBefore + "; after: " + load() + ".");
        Files.createDirectories(out);
        Files.write(out.resolve("batched-decode.md"), lines);
        lines.forEach(System.out::println);
    }

    /**
     * Decodes every prompt together.
     *
     * @param got receives each stream's tokens
     * @return {decode steps, tokens they made, their seconds}
     */
    private static double[] run(CausalLM model, int[][] prompts, GenerationOptions options, int[][] got) {
        long[] made = new long[1];
        boolean[] decoding = new boolean[1];
        try (BatchDecoder batch = new BatchDecoder(model, PeerModel.PROMPT)) {
            List<BatchDecoder.Sequence> all = new ArrayList<>();
            for (int[] p : prompts) {
                all.add(batch.join(p, options, id -> {
                    if (decoding[0]) {
                        made[0]++;
                    }
                    return true;
                }));
            }
            while (batch.active() > 0 && all.stream().anyMatch(BatchDecoder.Sequence::prefilling)) {
                batch.step();
            }
            decoding[0] = true;
            long steps = 0;
            long start = System.nanoTime();
            while (batch.active() > 0) {
                batch.step();
                steps++;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            for (int i = 0; i < prompts.length; i++) {
                got[i] = all.get(i).generation().tokens();
            }
            return new double[] {steps, made[0], seconds};
        }
    }

    /** @return {@code count} prompts: the shape's own, then the same tokens rotated by one more place each */
    static int[][] prompts(PeerModel shape, int count) {
        int[] base = shape.prompt();
        int[][] out = new int[count][base.length];
        for (int s = 0; s < count; s++) {
            for (int i = 0; i < base.length; i++) {
                out[s][i] = base[(i + s) % base.length];
            }
        }
        return out;
    }

    /** @return the shape's config, as a Hugging Face {@code config.json} of it reads */
    @SuppressWarnings("unchecked")
    static DecoderConfig config(PeerModel shape) throws IOException {
        return DecoderConfig.of(new ObjectMapper().readValue(shape.configJson("float32"), Map.class), shape.name());
    }

    /** @return the shape's random weights, under Hugging Face names */
    static StateDict state(PeerModel shape) {
        Map<String, HostTensor> w = new HashMap<>();
        for (PeerModel.Tensor t : shape.tensors()) {
            float[] v = shape.values(t);
            w.put(t.name(), t.matrix() ? HostTensor.of(v, t.rows(), t.columns()) : HostTensor.of(v, t.columns()));
        }
        return StateDict.of(w);
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
