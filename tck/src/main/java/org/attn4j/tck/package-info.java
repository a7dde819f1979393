/**
 * The attn4j technology compatibility kit: it makes "pluggable backends" a promise by checking that a backend gives
 * the same numbers as PyTorch float64 and as every other backend.
 *
 * <p>Six kinds of checks ({@link org.attn4j.tck.Kind}): wiring (the provider is found by {@code ServiceLoader} from
 * its own jar, its name, priority, availability and capabilities are sane and true, the api keeps the public surface
 * the kit was built against), golden (every api op and attention option against committed PyTorch float64 files, in
 * F32 and F64, under the {@link org.attn4j.tck.ToleranceTable}), differential (against the kit's host reference in
 * F64, peer backends, the backend's own F64, fused against reference attention, on seeded random inputs), laws
 * (weights sum to one, causal prefix invariance, permutation equivariance, shift invariance of softmax, all-true
 * mask equals no mask, IEEE special values, threads), bad input (the same exception types for the same mistakes)
 * and models (the real all-MiniLM-L6-v2 and random-weight decoders against PyTorch float64). The kit refuses an api
 * of another minor version than its own.
 *
 * <p>Entry points: {@link org.attn4j.tck.BackendTck} (extend it in a test), {@link org.attn4j.tck.Tck#dynamicTests}
 * (a {@code @TestFactory}), {@link org.attn4j.tck.TckRunner} (no JUnit: returns a {@link org.attn4j.tck.TckReport})
 * and {@link org.attn4j.tck.Tck#main(String[])}. A backend author changes the fixtures, tolerances, peers or settings
 * by overriding {@link org.attn4j.tck.BackendTck}'s hooks (or passing {@link org.attn4j.tck.TckOptions}) instead of
 * forking the kit.
 */
package org.attn4j.tck;
