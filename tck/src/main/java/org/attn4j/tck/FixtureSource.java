package org.attn4j.tck;

import java.util.List;
import org.attn4j.models.parameters.HostTensor;

/**
 * Where the golden cases come from. The kit binds {@link GoldenFixtures#classpath()} (the files committed with
 * the kit); pass another source ({@link TckOptions#withFixtures}, {@link BackendTck#fixtures()}) to run freshly regenerated files or cases of your own.
 */
public interface FixtureSource {

    /** @return where the cases were read from, for the report */
    String description();

    /** @return every case, in manifest order */
    List<GoldenCase> cases();

    /**
     * @param golden a case of {@link #cases()}
     * @param tensorName one of its input or output names
     * @return the tensor's values, widened to double
     */
    HostTensor tensor(GoldenCase golden, String tensorName);
}
