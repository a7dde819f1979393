package org.attn4j.models.bert;

import static org.attn4j.models.bert.BertModelTest.assertClose;
import static org.attn4j.models.bert.BertModelTest.folder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.attn4j.api.Activation;
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
 * MPNet against the float64 PyTorch forward of {@code generate_encoder_families.py} (written from
 * {@code modeling_mpnet.py}: the relative position bias on every layer's logits), on every backend and dtype: F64
 * within 1e-10, F32 within 1e-4 absolute.
 */
class MpnetModelTest {
    static MpnetConfig config() throws IOException {
        return (MpnetConfig) EncoderConfig.of(new ObjectMapper().readTree(folder("mpnet").resolve("config.json")
                .toFile()), "mpnet/config.json");
    }

    static MpnetModel model() throws IOException {
        return config().loadEncoder(SafeTensors.readCheckpoint(folder("mpnet")).tensors());
    }

    @Test
    void bucketsAreTransformersRelativePositionBuckets() throws IOException {
        double[] expected = XlmRobertaModelTest.reference().get("mpnet.buckets").data();
        for (int r = -600; r <= 600; r++) {
            assertEquals((int) expected[r + 600], MpnetModel.bucket(r), "bucket of relative position " + r);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.attn4j.models.bert.BertModelTest#targets")
    void hiddenStatesPoolerAndAttentionsMatchPyTorch(Backend backend, DType dtype) throws IOException {
        StateDict ref = XlmRobertaModelTest.reference();
        BertInput in = XlmRobertaModelTest.input(ref, "mpnet");
        double tolerance = dtype == DType.F64 ? 1e-10 : 1e-4;
        String on = " on " + backend.name() + "/" + dtype;
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            MpnetModel model = model().bind(p);
            Tensor hidden = model.forward(s, in, dtype);
            assertClose("last_hidden_state" + on, tolerance, ref.get("mpnet.last_hidden_state").data(),
                    hidden.toDoubleArray(), in.attentionMask(), 16);
            assertClose("pooler_output" + on, tolerance, ref.get("mpnet.pooler_output").data(),
                    model.pool(s, hidden).toDoubleArray(), null, 16);
            assertClose("attentions[1]" + on, tolerance, ref.get("mpnet.attentions.1").data(),
                    model.attentionWeights(s, in, dtype, 1).toDoubleArray(), null, in.length());
        }
    }

    @Test
    void theMpnetPrefixIsOptionalAndStrayNamesAreNamed() throws IOException {
        StateDict plain = SafeTensors.readCheckpoint(folder("mpnet")).tensors();
        MpnetConfig config = config();
        MpnetModel.load(plain.prefixed("mpnet.").with("lm_head.bias", HostTensor.of(new float[3002], 3002)), config);
        StateDictException e = assertThrows(StateDictException.class, () -> MpnetModel.load(
                plain.with("encoder.layer.0.attention.self.query.bias", HostTensor.of(new float[16], 16)), config));
        assertEquals(List.of("encoder.layer.0.attention.self.query.bias"), e.unexpected());
        IllegalArgumentException head = assertThrows(IllegalArgumentException.class,
                () -> config.loadClassifier(plain, 1));
        assertTrue(head.getMessage().contains("model_type mpnet: attn4j loads it as an encoder only"),
                head.getMessage());
    }

    @Test
    void everyConfigKeyIsHonouredIgnoredOrRefusedByName() throws IOException {
        assertEquals(new MpnetConfig(3002, 16, 2, 4, 24, Activation.GELU, 1e-5, 66, 1, 32), config());
        assertEquals(64, config().maxLength());
        ObjectMapper json = new ObjectMapper();
        Path file = folder("mpnet").resolve("config.json");
        for (String[] bad : new String[][] {
                {"relative_attention_num_buckets", "64", "relative_attention_num_buckets 64 is not supported"},
                {"type_vocab_size", "2", "type_vocab_size (2) is not read by attn4j's mpnet encoder"},
                {"hidden_act", "\"silu\"", "hidden_act 'silu' is not supported"},
                {"is_decoder", "true", "is_decoder is true"}}) {
            ObjectNode root = (ObjectNode) json.readTree(file.toFile());
            root.set(bad[0], json.readTree(bad[1]));
            IOException e = assertThrows(IOException.class, () -> EncoderConfig.of(root, "config.json"));
            assertTrue(e.getMessage().contains(bad[2]), bad[0] + ": " + e.getMessage());
        }
    }

    @Test
    void aLongerInputThanThePositionsAllowIsRefused() throws IOException {
        MpnetModel model = model();
        try (Scope s = Backends.load("ejml").newScope()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> model.forward(s, BertInput.pad(List.of(new int[65])), DType.F32));
            assertTrue(e.getMessage().contains("input length 65 exceeds 64"), e.getMessage());
        }
    }
}
