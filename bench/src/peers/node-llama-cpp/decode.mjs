// The decode bench's node-llama-cpp run: loads a GGUF file with node-llama-cpp's prebuilt CPU binaries (the build
// for this CPU that it picks at run time), feeds the prompt as token ids, decodes greedily (temperature 0, end of
// sequence not checked) and prints the ids on standard output and, on standard error, the load time, prefill and
// decode rates and the peak resident memory in the format of `attn4j generate --stats`, timed as for the other
// engines: the prompt until the first new token, then the rest.
//
//     node decode.mjs FILE.gguf IDS TOKENS THREADS        (IDS comma-separated)
import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, ids, tokens, threads] = process.argv.slice(2);
if (threads === undefined) {
    console.error("usage: node decode.mjs FILE.gguf IDS TOKENS THREADS");
    process.exit(2);
}
const prompt = ids.split(",").map(Number);
const count = Number(tokens);
const cores = Number(threads);

const start = performance.now();
const llama = await getLlama({gpu: false, build: "never", maxThreads: cores, logLevel: LlamaLogLevel.warn});
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const context = await model.createContext({contextSize: prompt.length + count + 16, batchSize: prompt.length,
    sequences: 1, threads: cores});
const sequence = context.getSequence();
const loaded = performance.now();
const out = [];
let first = 0;
for await (const token of sequence.evaluate(prompt, {temperature: 0})) {
    out.push(token);
    if (out.length === 1) {
        first = performance.now();
    }
    if (out.length === count) {
        break;
    }
}
const end = performance.now();

const rate = (what, n, ms) => `${what}: ${n} tokens in ${ms.toFixed(1)} ms (${(ms / n).toFixed(2)} ms per token,`
    + ` ${(n / (ms / 1e3)).toFixed(2)} tokens/s)`;
const hwm = readFileSync("/proc/self/status", "utf8").match(/^VmHWM:\s+(\d+) kB/m);
console.log(out.join(" "));
console.error(`load: ${((loaded - start) / 1e3).toFixed(2)} s (node-llama-cpp, llama.cpp`
    + ` ${llama.llamaCppRelease.release}, ${cores} threads)`);
console.error(rate("prefill", prompt.length, first - loaded));
console.error(rate("decode", out.length - 1, end - first));
console.error(hwm ? `peak memory: ${(Number(hwm[1]) / 1024).toFixed(1)} MiB resident (VmHWM)` : "peak memory: unknown");
await context.dispose();
await model.dispose();
await llama.dispose();
process.exit(out.length === count ? 0 : 3);
