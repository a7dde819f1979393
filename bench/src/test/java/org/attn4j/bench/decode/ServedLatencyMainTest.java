package org.attn4j.bench.decode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.server.ServedModels;
import org.junit.jupiter.api.Test;

class ServedLatencyMainTest {
    /** A two-block Llama with the bench's vocabulary scheme: 259 special and byte tokens, then 253 ordinary ones. */
    private static final PeerModel TINY = new PeerModel("tiny", "a test shape", 512, 64, 128, 2, 4, 2, 256, 10000,
            1e-5, true, 37);
    private static final int TOKENS = 5;

    @Test
    void everyStreamOverTheSocketGetsItsTokensAsAloneWithOneFirstTokenPerStreamAndAGapBetweenEachTwo()
            throws Exception {
        List<ServedLevel> levels;
        try (ServedModels served = new ServedModels()) {
            served.addDecoder(ServedLatencyMain.MODEL, CausalLM.of(BatchedDecodeMain.config(TINY),
                    BatchedDecodeMain.state(TINY), Backends.load("ejml"), DType.F32, null),
                    ServedLatencyMain.tokenizer(TINY), GenerationOptions.defaults());
            levels = ServedLatencyMain.measure(served, TINY, new int[] {1, 2}, TOKENS);
        }
        assertEquals(2, levels.size());
        for (int i = 0; i < 2; i++) {
            ServedLevel level = levels.get(i);
            int streams = i + 1;
            assertEquals(streams, level.streams());
            assertTrue(level.complete(), "every stream ran to max_tokens");
            assertTrue(level.asAlone(), "each stream's text is its prompt's text alone");
            assertEquals(streams * TOKENS, level.made());
            assertEquals(streams, level.firstTokenMillis().length);
            assertEquals(streams * (TOKENS - 1), level.gapsMillis().length);
            assertTrue(level.seconds() > 0);
        }
        List<String> table = ServedLatencyMain.table(levels);
        assertEquals(4, table.size());
        assertTrue(table.get(3).startsWith("| 2 | 10 | "), table.get(3));
        assertTrue(table.get(3).endsWith("| yes | yes |"), table.get(3));
    }

    @Test
    void percentilesAreByNearestRank() {
        double[] values = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        assertEquals(5, ServedLevel.percentile(values, 0.5));
        assertEquals(10, ServedLevel.percentile(values, 0.99));
        assertEquals(1, ServedLevel.percentile(values, 0.1));
        assertArrayEquals(new double[] {5, 1, 4, 2, 3, 10, 9, 8, 7, 6}, values, "the sample is left as it was");
    }

    @Test
    void anEmptySampleOrAFractionOutOfRangeIsRefusedNamingBoth() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> ServedLevel.percentile(new double[0], 0.5));
        assertTrue(empty.getMessage().contains("percentile 0.5 of 0 values"), empty.getMessage());
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
                () -> ServedLevel.percentile(new double[] {1}, 0));
        assertTrue(p.getMessage().contains("p in (0, 1]"), p.getMessage());
    }
}
