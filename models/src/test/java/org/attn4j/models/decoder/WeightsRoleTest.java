package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.attn4j.models.parameters.QuantMix;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The role each family's Hugging Face names have for llama.cpp's quantizer, as its GGUF names would give it
 * ({@code token_embd}, {@code output}, {@code attn_q} …, {@code position_embd}).
 */
class WeightsRoleTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"model.embed_tokens.weight, TOKEN_EMBD", "wte.weight, TOKEN_EMBD", "lm_head.weight, OUTPUT",
        "wpe.weight, POSITION_EMBD", "model.layers.3.self_attn.q_proj.weight, ATTN_Q",
        "model.layers.3.self_attn.k_proj.weight, ATTN_K", "model.layers.3.self_attn.v_proj.weight, ATTN_V",
        "model.layers.3.self_attn.qkv_proj.weight, ATTN_QKV", "h.3.attn.c_attn.weight, ATTN_QKV",
        "model.layers.3.self_attn.o_proj.weight, ATTN_OUTPUT", "h.3.attn.c_proj.weight, ATTN_OUTPUT",
        "model.layers.3.mlp.gate_proj.weight+model.layers.3.mlp.up_proj.weight, FFN_GATE",
        "model.layers.3.mlp.gate_up_proj.weight, FFN_UP", "h.3.mlp.c_fc.weight, FFN_UP",
        "model.layers.3.mlp.down_proj.weight, FFN_DOWN", "h.3.mlp.c_proj.weight, FFN_DOWN",
        "model.layers.3.self_attn.rel_bias.weight, OTHER"})
    void aHuggingFaceNameHasTheRoleOfItsGgufName(String name, QuantMix.Role role) {
        assertEquals(role, Weights.role(name), name);
    }
}
