package org.attn4j.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * Embeds the text column of one partition: the rows come in a window of {@value #WINDOW_BATCHES} batches at a
 * time, the window's texts go to the embedder in one call (which sorts them by token count and runs them
 * {@code batchSize} at a time, so a batch pads little), and the rows leave in their original order, each with the
 * vector appended. A null text gives a null vector and
 * is never sent to the model. The model is taken from {@link ExecutorModels} by the first non-empty window, so an
 * empty partition loads nothing. Only the key, the column index and the Hadoop configuration travel with the task.
 */
final class PartitionEmbedder implements MapPartitionsFunction<Row, Row> {

    /** How many batches a sorting window holds. */
    static final int WINDOW_BATCHES = 8;

    private static final long serialVersionUID = 1L;

    private final ModelKey key;
    private final int inputIndex;
    private final boolean vectorOutput;
    private final byte[] hadoopConf;

    PartitionEmbedder(ModelKey key, int inputIndex, boolean vectorOutput, byte[] hadoopConf) {
        this.key = key;
        this.inputIndex = inputIndex;
        this.vectorOutput = vectorOutput;
        this.hadoopConf = hadoopConf;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        int window = key.batchSize() * WINDOW_BATCHES;
        return new Iterator<>() {
            private final List<Row> out = new ArrayList<>(window);
            private int next;

            @Override
            public boolean hasNext() {
                if (next < out.size()) {
                    return true;
                }
                out.clear();
                next = 0;
                List<Row> in = new ArrayList<>(window);
                while (in.size() < window && rows.hasNext()) {
                    in.add(rows.next());
                }
                if (!in.isEmpty()) {
                    out.addAll(embed(in));
                }
                return !out.isEmpty();
            }

            @Override
            public Row next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return out.get(next++);
            }
        };
    }

    private List<Row> embed(List<Row> in) {
        Object[] vectors = new Object[in.size()];
        List<Integer> rows = new ArrayList<>(in.size());
        List<String> texts = new ArrayList<>(in.size());
        for (int r = 0; r < in.size(); r++) {
            if (!in.get(r).isNullAt(inputIndex)) {
                rows.add(r);
                texts.add(in.get(r).getString(inputIndex));
            }
        }
        if (!texts.isEmpty()) {
            List<SentenceEmbedding> embeddings = ExecutorModels.get(key, hadoopConf).embed(texts);
            for (int i = 0; i < rows.size(); i++) {
                float[] v = embeddings.get(i).vector();
                vectors[rows.get(i)] = vectorOutput ? Vectors.dense(widen(v)) : v;
            }
        }
        List<Row> out = new ArrayList<>(in.size());
        for (int r = 0; r < in.size(); r++) {
            Row row = in.get(r);
            Object[] values = new Object[row.size() + 1];
            for (int c = 0; c < row.size(); c++) {
                values[c] = row.get(c);
            }
            values[row.size()] = vectors[r];
            out.add(RowFactory.create(values));
        }
        return out;
    }

    private static double[] widen(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }
}
