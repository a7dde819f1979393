/**
 * Tests of the EJML backend: every op against a straightforward double-precision oracle written here, the fused
 * attention against {@link org.attn4j.api.spi.ReferenceAttention}, bad input, IEEE special values, concurrency,
 * discovery and the architecture rules.
 */
package org.attn4j.backend.ejml;
