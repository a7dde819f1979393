package org.attn4j.spark;

import java.net.URI;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The local disk under the scheme {@code attn4jtest:}, so the tests can name a model folder that is not
 * {@code file:} and see it copied to the executor as an {@code hdfs:} or {@code s3a:} folder would be. Registered
 * with {@code spark.hadoop.fs.attn4jtest.impl}.
 */
public final class OtherSchemeFileSystem extends RawLocalFileSystem {

    static final String SCHEME = "attn4jtest";

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }
}
