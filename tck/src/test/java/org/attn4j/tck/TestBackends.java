package org.attn4j.tck;

import java.util.EnumSet;
import java.util.function.UnaryOperator;
import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;
import org.attn4j.backend.ejml.EjmlBackendProvider;

/** Backends with known defects or gaps, built on the EJML backend, for testing the kit itself. */
final class TestBackends {
    static final Backend EJML = new EjmlBackendProvider().create();
    static final Capabilities FULL = Capabilities.builder("cpu").dtypes(DType.F32, DType.F64)
            .features(Capabilities.Feature.DROPOUT, Capabilities.Feature.ATTENTION_WEIGHTS).build();

    private TestBackends() {
    }

    /** @return options that plan only the given kinds of checks, to keep the kit's own tests short */
    static TckOptions only(Kind first, Kind... rest) {
        return TckOptions.defaults().withSettings(new TckSettings(TckSettings.defaults().seed(),
                EnumSet.of(first, rest)));
    }

    /** @return options that plan every kind of check but one */
    static TckOptions allBut(Kind left) {
        return TckOptions.defaults().withSettings(new TckSettings(TckSettings.defaults().seed(),
                EnumSet.complementOf(EnumSet.of(left))));
    }

    /**
     * @param name the backend's name
     * @param capabilities what it declares
     * @param decorate replaces some of its ops
     * @return a test backend on EJML
     */
    static ForwardingBackend onEjml(String name, Capabilities capabilities, UnaryOperator<Ops> decorate) {
        return new ForwardingBackend(name, EJML, capabilities, decorate);
    }

    /** @return a backend whose softmax computes {@code e^x / Σ e^x}, forgetting to subtract the max */
    static ForwardingBackend softmaxWithoutMax() {
        return new ForwardingBackend("broken-softmax", EJML, FULL, ops -> new ForwardingBackend.ForwardingOps(
                (ForwardingBackend.ForwardingOps) ops) {
            @Override
            public Tensor softmax(Tensor x, int axis) {
                Tensor e = exp(x);
                return div(e, sum(e, axis, true));
            }
        });
    }

    /** @return a backend whose masks let every query also see the key just past the mask's edge */
    static ForwardingBackend maskOffByOne() {
        return new ForwardingBackend("broken-mask", EJML, FULL, ops -> new ForwardingBackend.ForwardingOps(
                (ForwardingBackend.ForwardingOps) ops) {
            @Override
            public Tensor additiveMask(Mask mask, DType dtype) {
                boolean[] allowed = mask.toArray();
                boolean[] shifted = allowed.clone();
                int keys = mask.shape().rank() == 0 ? 1 : mask.shape().dim(-1);
                for (int i = 0; i < allowed.length; i++) {
                    if (i % keys > 0 && allowed[i - 1]) {
                        shifted[i] = true;
                    }
                }
                return super.additiveMask(Mask.of(mask.shape(), shifted), dtype);
            }
        });
    }

    /** @return a backend whose gelu is not implemented */
    static ForwardingBackend withoutGelu() {
        return new ForwardingBackend("no-gelu", EJML, FULL, ops -> new ForwardingBackend.ForwardingOps(
                (ForwardingBackend.ForwardingOps) ops) {
            @Override
            public Tensor gelu(Tensor x, GeluApproximation approximation) {
                throw new UnsupportedOperationException("gelu is not implemented yet");
            }
        });
    }

    /** @return EJML declaring only F32, no dropout and no returned weights */
    static ForwardingBackend minimal() {
        return new ForwardingBackend("minimal", EJML,
                Capabilities.builder("cpu").build(), ops -> ops);
    }

    /** @return a provider that is never available, like CUDA without a GPU */
    static BackendProvider unavailable() {
        return new BackendProvider() {
            @Override
            public String name() {
                return "nogpu";
            }

            @Override
            public int priority() {
                return 0;
            }

            @Override
            public Availability availability() {
                return Availability.unavailable("libcuda.so.1 not found; install the NVIDIA driver");
            }

            @Override
            public Capabilities capabilities() {
                return FULL;
            }

            @Override
            public Backend create() {
                throw new IllegalStateException("create() called on an unavailable provider");
            }
        };
    }
}
