package org.attn4j.tck;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import java.util.Set;
import org.attn4j.api.BackendProvider;

/**
 * The kit's default wiring. Every binding can be replaced by a module passed to
 * {@link TckRunner#create(BackendProvider, com.google.inject.Module...)} or returned from
 * {@link BackendTck#overrides()}, without forking the kit:
 * <ul>
 *   <li>{@link BackendUnderTest}: the backend given to the constructor;</li>
 *   <li>{@link FixtureSource}: {@link GoldenFixtures#classpath()}, the PyTorch float64 files shipped in this jar;</li>
 *   <li>{@link ToleranceTable}: {@link ToleranceTable#defaults()} plus every {@link ToleranceOverride} contributed
 *       to the {@code Set<ToleranceOverride>} multibinder;</li>
 *   <li>{@link PeerBackends}: every provider on the class path, for the differential checks;</li>
 *   <li>{@link TckSettings}: {@link TckSettings#defaults()}.</li>
 * </ul>
 */
public final class TckModule extends AbstractModule {
    private final BackendUnderTest underTest;

    /** @param provider the provider of the backend under test */
    public TckModule(BackendProvider provider) {
        this(new BackendUnderTest(provider));
    }

    /** @param underTest the backend under test */
    public TckModule(BackendUnderTest underTest) {
        this.underTest = underTest;
    }

    @Override
    protected void configure() {
        bind(BackendUnderTest.class).toInstance(underTest);
        Multibinder.newSetBinder(binder(), ToleranceOverride.class);
    }

    @Provides
    @Singleton
    ToleranceTable tolerances(Set<ToleranceOverride> overrides) {
        return ToleranceTable.defaults().withOverrides(overrides);
    }

    @Provides
    @Singleton
    FixtureSource fixtures() {
        return GoldenFixtures.classpath();
    }

    @Provides
    @Singleton
    PeerBackends peers() {
        return PeerBackends.discovered();
    }

    @Provides
    TckSettings settings() {
        return TckSettings.defaults();
    }
}
