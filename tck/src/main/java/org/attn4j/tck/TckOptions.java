package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What a kit run uses besides the backend under test, each part replaceable without forking the kit:
 * <ul>
 *   <li>{@link #fixtures()}: the golden cases, by default {@link GoldenFixtures#classpath()} (the PyTorch float64
 *       files shipped in this jar);</li>
 *   <li>{@link #toleranceOverrides()}: looser or tighter tolerances than {@link ToleranceTable#defaults()}, each
 *       printed in the report's notes; none by default;</li>
 *   <li>{@link #peers()}: the backends the differential checks compare with, by default
 *       {@link PeerBackends#discovered()} (every provider on the class path);</li>
 *   <li>{@link #settings()}: the seed and the kinds of checks, by default {@link TckSettings#defaults()}.</li>
 * </ul>
 * The same parts are the overridable hooks of {@link BackendTck}. A value: every {@code with…} method returns a copy.
 * <pre>{@code
 * TckReport report = TckRunner.run(myBackend, TckOptions.defaults()
 *         .withPeers(PeerBackends.none())
 *         .withToleranceOverride(new ToleranceOverride("gelu", DType.F64, ".*", 1e-9, 1e-9, "rational erf")));
 * }</pre>
 */
public final class TckOptions {
    private final FixtureSource fixtures;
    private final List<ToleranceOverride> toleranceOverrides;
    private final PeerBackends peers;
    private final TckSettings settings;

    private TckOptions(FixtureSource fixtures, List<ToleranceOverride> toleranceOverrides, PeerBackends peers,
                       TckSettings settings) {
        this.fixtures = require(fixtures, "fixtures");
        this.toleranceOverrides = List.copyOf(require(toleranceOverrides, "toleranceOverrides"));
        this.peers = require(peers, "peers");
        this.settings = require(settings, "settings");
    }

    /** @return the class path's golden files, no tolerance overrides, every provider as a peer, default settings */
    public static TckOptions defaults() {
        return new TckOptions(GoldenFixtures.classpath(), List.of(), PeerBackends.discovered(),
                TckSettings.defaults());
    }

    static TckOptions of(FixtureSource fixtures, List<ToleranceOverride> toleranceOverrides, PeerBackends peers,
                         TckSettings settings) {
        return new TckOptions(fixtures, toleranceOverrides, peers, settings);
    }

    /** @return where the golden cases come from */
    public FixtureSource fixtures() {
        return fixtures;
    }

    /** @return the tolerances that replace the table's, in order of precedence */
    public List<ToleranceOverride> toleranceOverrides() {
        return toleranceOverrides;
    }

    /** @return the backends of the differential checks */
    public PeerBackends peers() {
        return peers;
    }

    /** @return the seed and the kinds of checks */
    public TckSettings settings() {
        return settings;
    }

    /**
     * @param source where the golden cases come from, for example {@link GoldenFixtures#directory}
     * @return a copy with these fixtures
     */
    public TckOptions withFixtures(FixtureSource source) {
        return new TckOptions(source, toleranceOverrides, peers, settings);
    }

    /**
     * @param overrides the tolerance overrides, replacing any set before
     * @return a copy with these overrides
     */
    public TckOptions withToleranceOverrides(Collection<ToleranceOverride> overrides) {
        return new TckOptions(fixtures, List.copyOf(require(overrides, "toleranceOverrides")), peers, settings);
    }

    /**
     * @param override one more tolerance override
     * @return a copy with it added
     */
    public TckOptions withToleranceOverride(ToleranceOverride override) {
        List<ToleranceOverride> more = new ArrayList<>(toleranceOverrides);
        more.add(require(override, "override"));
        return new TckOptions(fixtures, more, peers, settings);
    }

    /**
     * @param backends the peers of the differential checks, {@link PeerBackends#none()} for none
     * @return a copy with these peers
     */
    public TckOptions withPeers(PeerBackends backends) {
        return new TckOptions(fixtures, toleranceOverrides, backends, settings);
    }

    /**
     * @param tckSettings the seed and kinds of checks
     * @return a copy with these settings
     */
    public TckOptions withSettings(TckSettings tckSettings) {
        return new TckOptions(fixtures, toleranceOverrides, peers, tckSettings);
    }

    ToleranceTable tolerances() {
        return ToleranceTable.defaults().withOverrides(toleranceOverrides);
    }

    private static <T> T require(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException("TckOptions: argument " + name + " is null");
        }
        return value;
    }
}
