/**
 * What a backend author implements and reuses: the {@link org.attn4j.api.spi.BackendProvider} service with its
 * {@link org.attn4j.api.spi.Availability} and {@link org.attn4j.api.spi.Capabilities}; base classes that keep
 * scope ownership ({@link org.attn4j.api.spi.AbstractScope}, {@link org.attn4j.api.spi.AbstractTensor}); the
 * shape rules every op shares ({@link org.attn4j.api.spi.ShapeChecks}); the cross-backend dropout mask
 * ({@link org.attn4j.api.spi.Dropout}); and the composed {@link org.attn4j.api.spi.ReferenceAttention}.
 */
package org.attn4j.api.spi;
