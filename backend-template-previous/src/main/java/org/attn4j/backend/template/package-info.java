/**
 * {@code naive}: the smallest attn4j backend that passes the TCK, as a template to copy. One public class, the
 * provider ({@link org.attn4j.backend.template.NaiveBackendProvider}), listed in
 * {@code META-INF/services/org.attn4j.api.BackendProvider}; a backend, a scope and a tensor on the spi's base
 * classes; and the ops as plain loops over {@code double[]} that check their arguments with the spi's
 * {@code ShapeChecks}, with attention and the decoder ops composed by the spi's {@code ReferenceAttention} and
 * {@code ReferenceOps}.
 */
package org.attn4j.backend.template;
