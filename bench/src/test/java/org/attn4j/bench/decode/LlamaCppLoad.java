package org.attn4j.bench.decode;

import de.kherud.llama.LlamaModel;
import de.kherud.llama.ModelParameters;

/**
 * Loads a GGUF file in llama.cpp ({@code de.kherud:llama}'s bundled build) on one thread and closes it, so that a
 * caller running this in a process of its own reads what llama.cpp's loader printed on standard error (the file
 * type it names, the tensors of each type), which the native code writes there rather than through the binding's
 * logger.
 *
 * <pre>java -cp CLASSPATH org.attn4j.bench.decode.LlamaCppLoad FILE.gguf</pre>
 */
final class LlamaCppLoad {
    private LlamaCppLoad() {
    }

    /**
     * Exits when done: the binding's server thread would otherwise keep the JVM alive.
     *
     * @param args the GGUF file
     */
    public static void main(String[] args) {
        try (LlamaModel model = new LlamaModel(new ModelParameters().setModel(args[0]).setThreads(1)
                .setCtxSize(64))) {
            System.out.println("loaded " + args[0]);
        }
        System.exit(0);
    }
}
