package org.attn4j.models.parameters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.attn4j.api.WeightType;
import org.junit.jupiter.api.Test;

/**
 * The type each mix gives each tensor of two real shapes, against tables written from llama.cpp's rules
 * ({@code llama_tensor_get_type}): SmolLM2-135M (30 layers, hidden 576 whose rows no K-type block divides,
 * intermediate 1536, tied embedding) and TinyLlama-1.1B (22 layers, hidden 2048, intermediate 5632, an
 * {@code output.weight}). The Q4_K_M totals are those llama.cpp's loader prints for the published files.
 */
class QuantMixTest {
    /** use_more_bits(i, 30): i &lt; 3, i &gt;= 26, and (i - 3) % 3 == 2. */
    private static final Set<Integer> SMOL_MORE_BITS = Set.of(0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 26, 27, 28, 29);
    /** use_more_bits(i, 22): i &lt; 2, i &gt;= 19, and (i - 2) % 3 == 2. */
    private static final Set<Integer> TINY_MORE_BITS = Set.of(0, 1, 4, 7, 10, 13, 16, 19, 20, 21);

    private record Tensor(String name, QuantMix.Role role, int layer, int columns) {
    }

    private static List<Tensor> llama(int layers, int hidden, int intermediate, boolean tied) {
        List<Tensor> t = new ArrayList<>();
        t.add(new Tensor("token_embd.weight", QuantMix.Role.TOKEN_EMBD, 0, hidden));
        if (!tied) {
            t.add(new Tensor("output.weight", QuantMix.Role.OUTPUT, 0, hidden));
        }
        for (int i = 0; i < layers; i++) {
            String p = "blk." + i + ".";
            t.add(new Tensor(p + "attn_q.weight", QuantMix.Role.ATTN_Q, i, hidden));
            t.add(new Tensor(p + "attn_k.weight", QuantMix.Role.ATTN_K, i, hidden));
            t.add(new Tensor(p + "attn_v.weight", QuantMix.Role.ATTN_V, i, hidden));
            t.add(new Tensor(p + "attn_output.weight", QuantMix.Role.ATTN_OUTPUT, i, hidden));
            t.add(new Tensor(p + "ffn_gate.weight", QuantMix.Role.FFN_GATE, i, hidden));
            t.add(new Tensor(p + "ffn_up.weight", QuantMix.Role.FFN_UP, i, hidden));
            t.add(new Tensor(p + "ffn_down.weight", QuantMix.Role.FFN_DOWN, i, intermediate));
        }
        return t;
    }

    private static Map<String, WeightType> chosen(QuantMix mix, List<Tensor> tensors, int layers, boolean tied) {
        Map<String, WeightType> out = new LinkedHashMap<>();
        for (Tensor t : tensors) {
            out.put(t.name(), mix.typeOf(t.role(), t.layer(), layers, t.columns(), tied));
        }
        return out;
    }

    /** The expected table: one line per role, the types written out for more-bits layers and the rest. */
    private static Map<String, WeightType> table(List<Tensor> tensors, Set<Integer> more, Set<Integer> first,
                                                 Set<Integer> firstV, WeightType embd, WeightType output,
                                                 WeightType narrow, WeightType vMore, WeightType vFirst,
                                                 WeightType vRest, WeightType downMore, WeightType downFirst,
                                                 WeightType downRest) {
        Map<String, WeightType> out = new LinkedHashMap<>();
        for (Tensor t : tensors) {
            WeightType w = switch (t.role()) {
                case TOKEN_EMBD -> embd;
                case OUTPUT -> output;
                case ATTN_V -> more.contains(t.layer()) && vMore != null ? vMore
                        : firstV.contains(t.layer()) && vFirst != null ? vFirst : vRest;
                case FFN_DOWN -> more.contains(t.layer()) && downMore != null ? downMore
                        : first.contains(t.layer()) && downFirst != null ? downFirst : downRest;
                default -> narrow;
            };
            out.put(t.name(), w);
        }
        return out;
    }

    private static void assertTable(String what, Map<String, WeightType> expected, Map<String, WeightType> actual) {
        for (String name : expected.keySet()) {
            assertEquals(expected.get(name), actual.get(name), what + ": tensor " + name);
        }
        assertEquals(expected.size(), actual.size(), what + ": tensors");
    }

    private static Map<WeightType, Integer> counts(Map<String, WeightType> types) {
        Map<WeightType, Integer> c = new EnumMap<>(WeightType.class);
        types.values().forEach(t -> c.merge(t, 1, Integer::sum));
        return c;
    }

    @Test
    void smolLm2sRowsOf576FallBackAsLlamaCppDoesInEveryMix() {
        List<Tensor> smol = llama(30, 576, 1536, true);
        Set<Integer> none = Set.of();
        Set<Integer> firstEighth = Set.of(0, 1, 2);
        Set<Integer> firstFour = Set.of(0, 1, 2, 3);
        WeightType q80 = WeightType.Q8_0;
        assertTable("Q4_K_M", table(smol, SMOL_MORE_BITS, none, none, q80, null, WeightType.Q5_0, q80, null,
                WeightType.Q5_0, WeightType.Q6_K, null, WeightType.Q4_K), chosen(QuantMix.Q4_K_M, smol, 30, true));
        assertTable("Q5_K_M", table(smol, SMOL_MORE_BITS, none, none, q80, null, WeightType.Q5_1, q80, null,
                WeightType.Q5_1, WeightType.Q6_K, null, WeightType.Q5_K), chosen(QuantMix.Q5_K_M, smol, 30, true));
        assertTable("Q4_K_S", table(smol, none, firstEighth, firstFour, q80, null, WeightType.Q5_0, null,
                WeightType.Q5_1, WeightType.Q5_0, null, WeightType.Q5_K, WeightType.Q4_K),
                chosen(QuantMix.Q4_K_S, smol, 30, true));
        assertTable("Q6_K", table(smol, none, none, none, q80, null, q80, null, null, q80, null, null,
                WeightType.Q6_K), chosen(QuantMix.Q6_K, smol, 30, true));
        assertTable("Q8_0", table(smol, none, none, none, q80, null, q80, null, null, q80, null, null, q80),
                chosen(QuantMix.Q8_0, smol, 30, true));
    }

    @Test
    void smolLm2sQ4KmCountsAreThoseOfThePublishedFile() {
        Map<WeightType, Integer> c = counts(chosen(QuantMix.Q4_K_M, llama(30, 576, 1536, true), 30, true));
        assertEquals(Map.of(WeightType.Q4_K, 16, WeightType.Q6_K, 14, WeightType.Q5_0, 166, WeightType.Q8_0, 15), c);
    }

    @Test
    void tinyLlamasWholeBlocksTakeEachMixsOwnTypes() {
        List<Tensor> tiny = llama(22, 2048, 5632, false);
        Set<Integer> none = Set.of();
        Set<Integer> firstEighth = Set.of(0, 1);
        Set<Integer> firstFour = Set.of(0, 1, 2, 3);
        WeightType q6 = WeightType.Q6_K;
        assertTable("Q4_K_M", table(tiny, TINY_MORE_BITS, none, none, WeightType.Q4_K, q6, WeightType.Q4_K, q6,
                null, WeightType.Q4_K, q6, null, WeightType.Q4_K), chosen(QuantMix.Q4_K_M, tiny, 22, false));
        assertTable("Q5_K_M", table(tiny, TINY_MORE_BITS, none, none, WeightType.Q5_K, q6, WeightType.Q5_K, q6,
                null, WeightType.Q5_K, q6, null, WeightType.Q5_K), chosen(QuantMix.Q5_K_M, tiny, 22, false));
        assertTable("Q4_K_S", table(tiny, none, firstEighth, firstFour, WeightType.Q4_K, q6, WeightType.Q4_K, null,
                WeightType.Q5_K, WeightType.Q4_K, null, WeightType.Q5_K, WeightType.Q4_K),
                chosen(QuantMix.Q4_K_S, tiny, 22, false));
        assertTable("Q6_K", table(tiny, none, none, none, q6, q6, q6, null, null, q6, null, null, q6),
                chosen(QuantMix.Q6_K, tiny, 22, false));
        WeightType q80 = WeightType.Q8_0;
        assertTable("Q8_0", table(tiny, none, none, none, q80, q80, q80, null, null, q80, null, null, q80),
                chosen(QuantMix.Q8_0, tiny, 22, false));
    }

    @Test
    void tinyLlamasQ4KmCountsAreThoseOfThePublishedFile() {
        Map<WeightType, Integer> c = counts(chosen(QuantMix.Q4_K_M, llama(22, 2048, 5632, false), 22, false));
        assertEquals(Map.of(WeightType.Q4_K, 135, WeightType.Q6_K, 21), c);
    }

    @Test
    void moreBitsIsTheFirstAndLastEighthAndEveryThirdLayerBetween() {
        assertEquals(SMOL_MORE_BITS, IntStream.range(0, 30).filter(i -> QuantMix.moreBits(i, 30)).boxed()
                .collect(Collectors.toSet()));
        assertEquals(TINY_MORE_BITS, IntStream.range(0, 22).filter(i -> QuantMix.moreBits(i, 22)).boxed()
                .collect(Collectors.toSet()));
        assertEquals(Set.of(0, 3, 6, 7), IntStream.range(0, 8).filter(i -> QuantMix.moreBits(i, 8)).boxed()
                .collect(Collectors.toSet()));
    }

    @Test
    void rowsThatNoFallbackDividesAreHeldInF16() {
        assertEquals(WeightType.F16, QuantMix.Q4_K_M.typeOf(QuantMix.Role.ATTN_Q, 0, 4, 48, false));
        assertEquals(WeightType.Q8_0, QuantMix.Q4_K_M.typeOf(QuantMix.Role.OUTPUT, 0, 4, 96, false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QuantMix.Q8_0.typeOf(QuantMix.Role.ATTN_Q, 0, 4, 48, false));
        assertTrue(e.getMessage().contains("Q8_0") && e.getMessage().contains("48"), e.getMessage());
    }

    @Test
    void fileTypesAreNamedAsLlamaQuantizeNamesThem() {
        assertEquals("Q4_K_M", QuantMix.nameOf(15));
        assertEquals("Q5_K_M", QuantMix.nameOf(17));
        assertEquals("Q4_K_S", QuantMix.nameOf(14));
        assertEquals("Q6_K", QuantMix.nameOf(18));
        assertEquals("Q8_0", QuantMix.nameOf(7));
        assertEquals("BF16", QuantMix.nameOf(32));
        assertEquals("F16", QuantMix.nameOf(1));
        assertEquals("F32", QuantMix.nameOf(0));
        assertEquals("file type 4", QuantMix.nameOf(4));
        for (QuantMix m : QuantMix.values()) {
            assertEquals(m, QuantMix.ofFileType(m.fileType()).orElseThrow());
        }
    }

    @Test
    void onlyTheMixesAttn4jQuantizesToAreProducible() {
        assertEquals("q8_0, q4_k_s, q4_k_m, q5_k_m, q6_k", QuantMix.producibleNames());
        assertEquals(QuantMix.Q4_K_M, QuantMix.producible(" q4_K_m ").orElseThrow());
        assertFalse(QuantMix.producible("q3_k_m").isPresent());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QuantMix.Q3_K_M.typeOf(QuantMix.Role.ATTN_Q, 0, 4, 256, false));
        assertTrue(e.getMessage().contains("Q3_K_M") && e.getMessage().contains("q4_k_m"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> QuantMix.Q4_K_M.typeOf(QuantMix.Role.POSITION_EMBD, 0, 4, 256, false));
        assertTrue(e.getMessage().contains("POSITION_EMBD"), e.getMessage());
    }
}
