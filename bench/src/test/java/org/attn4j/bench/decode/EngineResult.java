package org.attn4j.bench.decode;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one engine's run printed: the generated ids (standard output) and the lines of {@code attn4j generate
 * --stats}'s format (standard error), read back; {@code error} says why a run gave no figures.
 *
 * @param ids the generated ids, or null
 * @param prefill prompt tokens per second, or NaN
 * @param decode generated tokens per second after the first, or NaN
 * @param peakMiB peak resident memory in MiB, or NaN
 * @param loadSeconds the load time, or NaN
 * @param error null, or why the run failed (its exit code and last lines)
 */
record EngineResult(int[] ids, double prefill, double decode, double peakMiB, double loadSeconds, String error) {
    private static final Pattern RATE = Pattern.compile("^%s: (\\d+) tokens in [0-9.]+ ms \\([0-9.]+ ms per token, "
            + "([0-9.]+) tokens/s\\)", Pattern.MULTILINE);
    private static final Pattern PEAK = Pattern.compile("^peak memory: ([0-9.]+) MiB resident", Pattern.MULTILINE);
    private static final Pattern LOAD = Pattern.compile("^load: ([0-9.]+) s", Pattern.MULTILINE);


    /**
     * @param exit the process's exit code
     * @param out its standard output: the ids are its last line of numbers (a native library may print first)
     * @param err its standard error
     * @return the figures, or a failed result naming the exit code and the end of standard error
     */
    static EngineResult parse(int exit, String out, String err) {
        double prefill = number(Pattern.compile(String.format(RATE.pattern(), "prefill"), Pattern.MULTILINE), err, 2);
        double decode = number(Pattern.compile(String.format(RATE.pattern(), "decode"), Pattern.MULTILINE), err, 2);
        double peak = number(PEAK, err, 1);
        double load = number(LOAD, err, 1);
        String idsLine = out.lines().map(String::trim).filter(l -> l.matches("[0-9]+( [0-9]+)*"))
                .reduce((a, b) -> b).orElse(null);
        int[] ids = idsLine == null ? null : Arrays.stream(idsLine.split(" ")).mapToInt(Integer::parseInt).toArray();
        String error = null;
        if (exit != 0 || ids == null || Double.isNaN(decode)) {
            String[] lines = err.strip().split("\n");
            error = "exit " + exit + ": " + String.join(" | ",
                    Arrays.copyOfRange(lines, Math.max(0, lines.length - 3), lines.length));
        }
        return new EngineResult(ids, prefill, decode, peak, load, error);
    }

    /** @return a failed result */
    static EngineResult failed(String why) {
        return new EngineResult(null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, why);
    }

    private static double number(Pattern p, String text, int group) {
        Matcher m = p.matcher(text);
        return m.find() ? Double.parseDouble(m.group(group)) : Double.NaN;
    }
}
