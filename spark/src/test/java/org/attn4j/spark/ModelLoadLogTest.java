package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * Each model load says what it loaded, where, on which backend with how many threads, in how long: once, at INFO,
 * through SLF4J to Spark's Log4j 2. (Spark's own transformer code logs the schemas of each job at DEBUG under the
 * stage's class name.)
 */
class ModelLoadLogTest {

    private static final String LOGGER = "org.attn4j.spark";

    @Test
    void aModelLoadLogsOneInfoLineThroughSparksLoggingAndRowsLogNothing() {
        List<String> shortTexts = Corpus.texts(60, 5).stream().filter(t -> t == null || t.length() < 200).toList();
        Dataset<Row> texts = Corpus.frame(LocalSpark.session(), shortTexts, 4, List.of());
        List<String> lines = new CopyOnWriteArrayList<>();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        AbstractAppender capture = new AbstractAppender("attn4j-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        capture.start();
        LoggerConfig logger = new LoggerConfig(LOGGER, Level.ALL, false);
        logger.addAppender(capture, Level.ALL, null);
        config.addLogger(LOGGER, logger);
        context.updateLoggers();
        try {
            SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("text").setBackend("ejml")
                    .setBatchSize(7);
            stage.transform(texts).collectAsList();
            stage.transform(texts).collectAsList();
        } finally {
            config.removeLogger(LOGGER);
            context.updateLoggers();
            capture.stop();
        }
        List<String> info = lines.stream().filter(l -> !l.startsWith("DEBUG") && !l.startsWith("TRACE")).toList();
        assertEquals(1, info.size(), "one line at INFO or above for one model load over two jobs: " + lines);
        assertTrue(lines.size() <= 6, "a line per job at most, none per row (" + 2 * shortTexts.size() + " rows): "
                + lines);
        String line = info.get(0);
        assertTrue(line.matches("INFO attn4j-spark on executor driver: loaded the embedded all-MiniLM-L6-v2 \\(384 "
                + "dimensions, mean pooling, normalized, at most 256 tokens, batches of 7\\) on ejml with 2 threads "
                + "\\(spark\\.master local\\[2]\\) in \\d+ ms"), line);
    }
}
