package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.attn4j.api.BackendProvider;

/**
 * The backends the differential checks compare the backend under test with, besides the kit's own host reference,
 * which every run compares with. The kit binds every provider on the class path ({@link #discovered()}); pass
 * {@link #none()} or your own list to
 * {@link TckOptions#withPeers} or return it from {@link BackendTck#peers()} to change that.
 *
 * @param backends the peers, in name order; the backend under test is skipped if listed
 */
public record PeerBackends(List<BackendUnderTest> backends) {

    /** Copies the list. */
    public PeerBackends {
        backends = List.copyOf(backends);
    }

    /** @return every {@link BackendProvider} the context class loader's {@link ServiceLoader} finds */
    public static PeerBackends discovered() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        List<BackendProvider> found = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class, loader != null ? loader : PeerBackends.class.getClassLoader())
                .forEach(found::add);
        found.sort(Comparator.comparing(BackendProvider::name));
        return new PeerBackends(found.stream().map(BackendUnderTest::new).toList());
    }

    /**
     * @return no peers: differential checks compare with the kit's host reference, F32 with F64 and fused with
     *     reference attention
     */
    public static PeerBackends none() {
        return new PeerBackends(List.of());
    }
}
