package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class VersionsTest {

    @Test
    void theKitRunsOnAnApiOfItsOwnMinorVersion() {
        assertEquals(Optional.empty(), new Versions("0.1.0", "0.1.7").problem());
        assertEquals(Optional.empty(), new Versions("1.4.0-SNAPSHOT", "1.4.2").problem());
        assertEquals(Optional.empty(), Versions.current().problem(), "the build's kit and api");
    }

    @Test
    void anApiOfAnotherMinorVersionIsRefusedNamingBothAndTheFix() {
        String problem = new Versions("0.1.0-SNAPSHOT", "0.2.0").problem().orElseThrow();

        assertTrue(problem.startsWith("attn4j-tck 0.1.0-SNAPSHOT checks attn4j-api 0.1.x, not 0.2.0 (the"
                + " attn4j-api on the class path, from "), problem);
        assertTrue(problem.endsWith("Use the attn4j-tck of your api's minor version, 0.2.x, or the api of this"
                + " kit's"), problem);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Versions("1.0.0", "2.0.0").requireCompatible());
        assertTrue(e.getMessage().contains("checks attn4j-api 1.0.x, not 2.0.0"), e.getMessage());
    }

    @Test
    void anApiWithoutAVersionIsRefused() {
        assertTrue(new Versions("0.1.0", null).problem().orElseThrow().contains("records no version"));
    }

    @Test
    void theReportNamesBothVersions() {
        TckReport report = TckRunner.run(TestBackends.minimal().provider(), TestBackends.only(Kind.WIRING));

        Versions v = Versions.current();
        assertTrue(report.toTable().startsWith("attn4j-tck " + v.kit() + " on attn4j-api " + v.api() + "\n"),
                report.toTable());
        assertTrue(report.toJson().contains("\"versions\" : {\n    \"kit\" : \"" + v.kit() + "\",\n    \"api\" : \""
                + v.api() + "\"\n  }"), report.toJson());
    }
}
