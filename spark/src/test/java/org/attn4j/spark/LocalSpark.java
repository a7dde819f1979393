package org.attn4j.spark;

import org.apache.spark.sql.SparkSession;

/**
 * The tests' one SparkSession: {@code local[2]}, no UI, bound to the loopback address, with the test file system
 * {@link OtherSchemeFileSystem} in its Hadoop configuration; Spark stops it at exit.
 */
final class LocalSpark {

    private static SparkSession session;

    private LocalSpark() {
    }

    static synchronized SparkSession session() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[2]")
                    .appName("attn4j-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.sql.shuffle.partitions", "4")
                    .config("spark.hadoop.fs." + OtherSchemeFileSystem.SCHEME + ".impl",
                            OtherSchemeFileSystem.class.getName())
                    .getOrCreate();
        }
        return session;
    }
}
