package org.attn4j.backend.cuda;

import org.attn4j.api.BackendProvider;
import org.attn4j.tck.BackendTck;

/**
 * The attn4j TCK on this backend, through the kit's third-party route. Without a usable GPU every case is
 * reported skipped with the provider's availability reason.
 */
class CudaConformanceTest extends BackendTck {

    @Override
    protected BackendProvider provider() {
        return new CudaBackendProvider();
    }
}
