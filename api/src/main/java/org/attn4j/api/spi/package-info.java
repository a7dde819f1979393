/**
 * What a backend author reuses, and users never need: base classes that keep scope ownership
 * ({@link org.attn4j.api.spi.AbstractScope}, {@link org.attn4j.api.spi.AbstractTensor}); the validation template of
 * the op set ({@link org.attn4j.api.spi.AbstractOps}: it checks each call in one place, then calls the backend's
 * compute method); the shape rules every op shares ({@link org.attn4j.api.spi.ShapeChecks}); row-major and
 * broadcast strides ({@link org.attn4j.api.spi.Strides}); the cross-backend dropout mask
 * ({@link org.attn4j.api.spi.Dropout}); the composed {@link org.attn4j.api.spi.ReferenceAttention} and
 * {@link org.attn4j.api.spi.ReferenceOps}; and the integer arithmetic of {@link org.attn4j.api.WeightType#I8}
 * weights, which every backend holds as an {@link org.attn4j.api.spi.Int8Weight} and whose input is quantized by
 * {@link org.attn4j.api.spi.DynamicQuantization}.
 *
 * <p>Arrows point one way: this package uses {@code org.attn4j.api}, never the reverse. The service a backend
 * registers, {@link org.attn4j.api.BackendProvider}, and what it reports ({@link org.attn4j.api.Availability},
 * {@link org.attn4j.api.Capabilities}) live in {@code org.attn4j.api}, because {@link org.attn4j.api.Backends}
 * and its users see them.
 */
package org.attn4j.api.spi;
