/**
 * The foundation of {@code models}: parameters as PyTorch names them, on the host and on a backend. A
 * {@link org.attn4j.models.parameters.HostTensor} is a shape and its values in a storage type (F16, BF16, F32, F64;
 * often a view of a memory-mapped file); a {@link org.attn4j.models.parameters.StateDict} maps {@code state_dict}
 * names to them and builds a module strictly ({@link org.attn4j.models.parameters.StateDict#load}: every missing,
 * unexpected, mis-shaped and non-finite parameter in one {@link org.attn4j.models.parameters.StateDictException});
 * {@link org.attn4j.models.parameters.Parameters} owns the copies uploaded once to one backend and dtype;
 * {@link org.attn4j.models.parameters.QuantMix} is llama.cpp's file types and the storage type each of its mixes
 * gives a tensor, and {@link org.attn4j.models.parameters.WeightCensus} counts what a bound model holds by type.
 *
 * <p>Every other package of {@code models} builds on this one, and this one uses none of them.
 */
package org.attn4j.models.parameters;
