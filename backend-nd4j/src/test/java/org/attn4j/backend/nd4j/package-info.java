/**
 * Tests of the ND4J backend: every op against a plain double-precision oracle on seeded inputs in F32 and F64,
 * IEEE edge cases, a missing native library reported as unavailable,
 * bad inputs, scope lifecycle, attention options and edge cases, concurrency, an off-heap soak test, provider
 * discovery and the architecture rules.
 */
package org.attn4j.backend.nd4j;
