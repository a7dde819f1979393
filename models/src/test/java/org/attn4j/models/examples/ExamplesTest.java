package org.attn4j.models.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.ProviderReport;
import org.attn4j.api.Scope;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ExamplesTest {

    static Stream<Arguments> targets() {
        List<Arguments> out = new ArrayList<>();
        for (ProviderReport r : Backends.describe()) {
            if (r.availability().available()) {
                Backend b = Backends.load(r.name());
                out.add(Arguments.of(b, DType.F32));
                if (r.capabilities().supports(DType.F64)) {
                    out.add(Arguments.of(b, DType.F64));
                }
            }
        }
        return out.stream();
    }

    static Stream<Backend> backends() {
        return targets().map(a -> (Backend) a.get()[0]).distinct();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void journeyContextVectorMatchesRaschkaToFourDecimals(Backend backend, DType dtype) {
        double[] book = {0.4419, 0.6515, 0.5683};
        try (Scope s = backend.newScope()) {
            double[] z = RaschkaChapter3.journeyContext(s, dtype).toDoubleArray();
            assertEquals(3, z.length);
            for (int i = 0; i < 3; i++) {
                assertEquals(book[i], Math.round(z[i] * 1e4) / 1e4, 0.0,
                        "index " + i + " expected " + book[i] + " actual " + z[i]);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void examplesRunAndPrintTheBooksAttentionWeightsForJourney(Backend backend) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TransformerExamples.run(backend, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("context vector z(2):       [0.4419, 0.6515, 0.5683]"), out);
        assertTrue(out.contains("[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"), out);
        assertTrue(out.contains("post-norm ReLU block then pre-norm GELU block, output [2, 6, 8]"), out);
    }
}
