package org.attn4j.models.onnx;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The all-MiniLM-L6-v2 ONNX of the langchain4j jar on the test class path, read once. */
final class MiniLm {
    static final String RESOURCE = "/all-minilm-l6-v2.onnx";
    private static OnnxModel model;

    private MiniLm() {
    }

    static synchronized OnnxModel model() {
        if (model == null) {
            try (InputStream in = MiniLm.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(RESOURCE + " is not on the test class path");
                }
                model = OnnxModel.read(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return model;
    }
}
