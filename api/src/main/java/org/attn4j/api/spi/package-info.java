/**
 * What a backend author reuses, and users never need: base classes that keep scope ownership
 * ({@link org.attn4j.api.spi.AbstractScope}, {@link org.attn4j.api.spi.AbstractTensor}); the shape rules every op
 * shares ({@link org.attn4j.api.spi.ShapeChecks}); the cross-backend dropout mask ({@link org.attn4j.api.spi.Dropout});
 * and the composed {@link org.attn4j.api.spi.ReferenceAttention}.
 *
 * <p>Arrows point one way: this package uses {@code org.attn4j.api}, never the reverse. The service a backend
 * registers, {@link org.attn4j.api.BackendProvider}, and what it reports ({@link org.attn4j.api.Availability},
 * {@link org.attn4j.api.Capabilities}) live in {@code org.attn4j.api}, because {@link org.attn4j.api.Backends}
 * and its users see them.
 */
package org.attn4j.api.spi;
