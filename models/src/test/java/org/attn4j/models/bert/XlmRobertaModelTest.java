package org.attn4j.models.bert;

import static org.attn4j.models.bert.BertModelTest.assertClose;
import static org.attn4j.models.bert.BertModelTest.folder;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.StateDictException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * XLM-RoBERTa against the float64 PyTorch forward of {@code generate_encoder_families.py} (the same weights, inputs
 * padded with {@code pad_token_id} as Hugging Face pads them), on every backend and dtype: F64 within 1e-10, F32
 * within 1e-4 absolute, as {@link BertModelTest}.
 */
class XlmRobertaModelTest {
    static StateDict reference() throws IOException {
        return SafeTensors.read(folder("families.safetensors")).tensors();
    }

    static BertInput input(StateDict reference, String name) {
        HostTensor ids = reference.get(name + ".input_ids");
        int batch = ids.shape().dim(0);
        int length = ids.shape().dim(1);
        return new BertInput(batch, length, ints(ids), new int[batch * length],
                ints(reference.get(name + ".attention_mask")));
    }

    private static int[] ints(HostTensor t) {
        return Arrays.stream(t.data()).mapToInt(v -> (int) v).toArray();
    }

    static XlmRobertaConfig config(String name) throws IOException {
        return (XlmRobertaConfig) EncoderConfig.of(new ObjectMapper().readTree(folder(name).resolve("config.json")
                .toFile()), name);
    }

    private static double tolerance(DType dtype) {
        return dtype == DType.F64 ? 1e-10 : 1e-4;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.attn4j.models.bert.BertModelTest#targets")
    void hiddenStatesPoolerAndAttentionsMatchPyTorch(Backend backend, DType dtype) throws IOException {
        StateDict ref = reference();
        BertInput in = input(ref, "xlmr");
        XlmRobertaModel host = config("xlmr").loadEncoder(SafeTensors.readCheckpoint(folder("xlmr")).tensors());
        String on = " on " + backend.name() + "/" + dtype;
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            XlmRobertaModel model = host.bind(p);
            Tensor hidden = model.forward(s, in, dtype);
            assertClose("last_hidden_state" + on, tolerance(dtype), ref.get("xlmr.last_hidden_state").data(),
                    hidden.toDoubleArray(), in.attentionMask(), 16);
            assertClose("pooler_output" + on, tolerance(dtype), ref.get("xlmr.pooler_output").data(),
                    model.pool(s, hidden).toDoubleArray(), null, 16);
            assertClose("attentions[1]" + on, tolerance(dtype), ref.get("xlmr.attentions.1").data(),
                    model.attentionWeights(s, in, dtype, 1).toDoubleArray(), null, in.length());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.attn4j.models.bert.BertModelTest#targets")
    void theRerankerHeadMatchesPyTorch(Backend backend, DType dtype) throws IOException {
        StateDict ref = reference();
        BertInput in = input(ref, "xlmr-reranker");
        XlmRobertaForSequenceClassification host = config("xlmr-reranker").loadClassifier(
                SafeTensors.readCheckpoint(folder("xlmr-reranker")).tensors(), 1);
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            assertClose("logits on " + backend.name() + "/" + dtype, tolerance(dtype),
                    ref.get("xlmr-reranker.logits").data(), host.bind(p).logits(s, in, dtype).toDoubleArray(),
                    null, 1);
        }
    }

    @Test
    void positionsCountRealTokensFromPadPlusOneAndPaddingSitsAtPad() {
        BertInput in = new BertInput(2, 5, new int[] {0, 7, 8, 2, 0, 0, 1, 9, 2, 0}, new int[10],
                new int[] {1, 1, 1, 1, 0, 1, 1, 1, 1, 0});
        assertArrayEquals(new int[] {2, 3, 4, 5, 1, 2, 1, 3, 4, 1}, XlmRobertaModel.positionIds(in, 1));
    }

    @Test
    void rightPaddingWithZerosOrWithThePadIdGivesTheSameRealRows() throws IOException {
        StateDict ref = reference();
        BertInput hf = input(ref, "xlmr");
        int[] zeros = hf.inputIds();
        int[] mask = hf.attentionMask();
        for (int i = 0; i < zeros.length; i++) {
            zeros[i] = mask[i] == 1 ? zeros[i] : 0;
        }
        BertInput ours = new BertInput(hf.batch(), hf.length(), zeros, new int[zeros.length], mask);
        XlmRobertaModel model = config("xlmr").loadEncoder(SafeTensors.readCheckpoint(folder("xlmr")).tensors());
        Backend backend = Backends.load("ejml");
        try (Scope s = backend.newScope()) {
            assertClose("padded with 0", 1e-12, model.forward(s, hf, DType.F64).toDoubleArray(),
                    model.forward(s, ours, DType.F64).toDoubleArray(), mask, 16);
        }
    }

    @Test
    void aLongerInputThanThePositionsAllowIsRefused() throws IOException {
        XlmRobertaModel model = config("xlmr").loadEncoder(SafeTensors.readCheckpoint(folder("xlmr")).tensors());
        assertEquals(64, model.config().maxLength());
        try (Scope s = Backends.load("ejml").newScope()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> model.forward(s, BertInput.pad(List.of(new int[65])), DType.F32));
            assertTrue(e.getMessage().contains("input length 65 exceeds 64 (max_position_embeddings 66 less"
                    + " pad_token_id 1 + 1)"), e.getMessage());
        }
    }

    @Test
    void theRobertaPrefixIsOptionalAndStrayNamesAreNamed() throws IOException {
        StateDict plain = SafeTensors.readCheckpoint(folder("xlmr")).tensors();
        XlmRobertaConfig config = config("xlmr");
        XlmRobertaModel prefixed = XlmRobertaModel.load(plain.prefixed("roberta.")
                .with("lm_head.bias", HostTensor.of(new float[3002], 3002)), config);
        assertTrue(prefixed.hasPooler());
        StateDictException e = assertThrows(StateDictException.class, () -> XlmRobertaModel.load(
                plain.with("encoder.layer.2.output.dense.bias", HostTensor.of(new float[16], 16)), config));
        assertEquals(List.of("encoder.layer.2.output.dense.bias"), e.unexpected());
    }

    @Test
    void everyConfigKeyIsHonouredIgnoredOrRefusedByName() throws IOException {
        ObjectMapper json = new ObjectMapper();
        Path file = folder("xlmr-reranker").resolve("config.json");
        XlmRobertaConfig read = config("xlmr-reranker");
        assertEquals(new XlmRobertaConfig(new BertConfig(3002, 16, 2, 4, 24, org.attn4j.api.Activation.GELU, 1e-5,
                66, 1), 1), read);
        for (String[] bad : new String[][] {
                {"position_embedding_type", "\"relative_key\"", "position_embedding_type is \"relative_key\""},
                {"is_decoder", "true", "is_decoder is true"},
                {"hidden_act", "\"swish\"", "hidden_act 'swish' is not supported"},
                {"layer_norm_type", "\"rms\"", "layer_norm_type (\"rms\") is not read by attn4j's xlm-roberta encoder"},
                {"pad_token_id", "66", "pad_token_id 66 leaves no position"},
                {"vocab_size", "\"many\"", "vocab_size is \"many\""}}) {
            ObjectNode root = (ObjectNode) json.readTree(file.toFile());
            root.set(bad[0], json.readTree(bad[1]));
            IOException e = assertThrows(IOException.class, () -> EncoderConfig.of(root, "config.json"));
            assertTrue(e.getMessage().contains(bad[2]), bad[0] + ": " + e.getMessage());
        }
        JsonNode other = json.readTree("{\"model_type\": \"deberta-v2\"}");
        IOException e = assertThrows(IOException.class, () -> EncoderConfig.of(other, "config.json"));
        assertTrue(e.getMessage().contains("model_type 'deberta-v2' is not supported"), e.getMessage());
    }
}
