package org.attn4j.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Seeded test texts: short and long sentences in several scripts, nulls, empty strings and very long texts. */
final class Corpus {

    static final StructType SCHEMA = new StructType()
            .add("id", DataTypes.IntegerType, false)
            .add("text", DataTypes.StringType, true);

    private static final String[] WORDS = {"the", "cat", "sat", "on", "a", "mat", "attention", "is", "all", "you",
        "need", "Spark", "executors", "embed", "sentences", "quickly", "café", "naïve", "résumé", "東京", "北京",
        "Москва", "привет", "😀", "🚀", "https://example.org/a?b=c", "3.14159", "42", "don't", "well-known", "(x)",
        "unbelievably", "transformers", "tokenization", "!", "?", ",", "."};

    private Corpus() {
    }

    /**
     * @param rows how many rows
     * @param seed the random seed
     * @return {@code rows} texts: about 2% null, 2% empty, one in 250 of 3,000 words, the rest 1 to 12 words
     */
    static List<String> texts(int rows, long seed) {
        Random random = new Random(seed);
        List<String> texts = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            int kind = random.nextInt(100);
            if (kind < 2) {
                texts.add(null);
            } else if (kind < 4) {
                texts.add("");
            } else if (i % 250 == 7) {
                texts.add(sentence(random, 3000));
            } else {
                texts.add(sentence(random, 1 + random.nextInt(12)));
            }
        }
        return texts;
    }

    /**
     * @param rows how many texts
     * @param seed the random seed
     * @return {@code rows} texts of {@link #texts} of 1 to 12 words: no null, empty or very long text
     */
    static List<String> shortTexts(int rows, long seed) {
        return texts(rows * 2, seed).stream().filter(t -> t != null && !t.isEmpty() && t.split(" ").length < 100)
                .limit(rows).toList();
    }

    private static String sentence(Random random, int words) {
        StringBuilder s = new StringBuilder();
        for (int w = 0; w < words; w++) {
            if (w > 0) {
                s.append(' ');
            }
            s.append(WORDS[random.nextInt(WORDS.length)]);
        }
        return s.toString();
    }

    /**
     * @param spark the session
     * @param texts the texts; row {@code i} gets id {@code i}
     * @param partitions how many partitions
     * @param empty the indices of partitions left empty
     * @return rows {@code (id, text)} spread in order over the non-empty partitions
     */
    static Dataset<Row> frame(SparkSession spark, List<String> texts, int partitions, List<Integer> empty) {
        List<List<Row>> slices = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            slices.add(new ArrayList<>());
        }
        int filled = partitions - empty.size();
        int perSlice = (texts.size() + filled - 1) / filled;
        int p = 0;
        for (int i = 0; i < texts.size(); i++) {
            while (empty.contains(p) || slices.get(p).size() >= perSlice) {
                p++;
            }
            slices.get(p).add(RowFactory.create(i, texts.get(i)));
        }
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        return spark.createDataFrame(jsc.parallelize(slices, partitions).flatMap(List::iterator), SCHEMA);
    }
}
