package org.attn4j.backend.cuda;

import java.nio.file.Path;
import java.util.EnumSet;
import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;
import org.attn4j.tck.BackendTck;
import org.attn4j.tck.Kind;
import org.attn4j.tck.TckSettings;

/**
 * The TCK on this backend's host side: the real scopes, tensors and ops, with every launch interpreted on the
 * Java heap by {@link InterpretingDevice} instead of run on a GPU. It proves the shape plans, argument lists,
 * masks and offsets against the golden files; it says nothing about the CUDA kernels' own arithmetic. Its provider
 * is a stand-in no service file lists, so its wiring is left to {@link CudaConformanceTest}, which checks the real
 * provider's.
 */
class HostEmulatedConformanceTest extends BackendTck {

    @Override
    protected BackendProvider provider() {
        return new BackendProvider() {
            private final Capabilities capabilities = CudaBackendProvider.CAPABILITIES;

            @Override
            public String name() {
                return "cuda-host-emulated";
            }

            @Override
            public int priority() {
                return 0;
            }

            @Override
            public Availability availability() {
                return Availability.available("host side of backend cuda, launches interpreted in Java");
            }

            @Override
            public Capabilities capabilities() {
                return capabilities;
            }

            @Override
            public Backend create(BackendOptions options) {
                return new CudaBackend(new InterpretingDevice(), capabilities);
            }
        };
    }

    @Override
    protected TckSettings settings() {
        return new TckSettings(TckSettings.defaults().seed(), EnumSet.complementOf(EnumSet.of(Kind.WIRING)));
    }

    @Override
    protected Path reportDirectory() {
        return Path.of("target/attn4j-tck-host-emulated");
    }
}
