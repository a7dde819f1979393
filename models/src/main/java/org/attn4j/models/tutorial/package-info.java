/**
 * Attention layers and the transformer block as the classic texts present them ("Attention is all you need", the
 * illustrated-transformer explanations, Raschka's <i>Build a Large Language Model (From Scratch)</i> chapter 3,
 * Bloem's <i>Transformers from scratch</i>), written against the api only so they run unchanged on every backend.
 * They teach attention and stand apart: built on the building blocks of {@code org.attn4j.models.layers}, used by
 * the examples and by no model family.
 *
 * <p>Conventions shared by every layer:
 * <ul>
 *   <li>Parameters are plain host arrays ({@link org.attn4j.models.parameters.HostTensor}) in a
 *       {@link org.attn4j.models.parameters.StateDict} under PyTorch's {@code state_dict} names; a layer is
 *       built from one, checks every shape, and gives it back with {@code stateDict()}.</li>
 *   <li>{@code forward(Scope scope, ...)} uploads the parameters in the input's dtype, runs on the scope's backend,
 *       frees its intermediates in a work scope of its own and returns results owned by {@code scope}.</li>
 *   <li>Layers are immutable, so they may be shared between threads; each thread runs them in its own scope.</li>
 *   <li>Inputs are batch-first: {@code [B, L, d]}; most layers also take an unbatched {@code [L, d]}.</li>
 *   <li>Boolean masks follow the api: {@code true} = may attend. PyTorch's {@code key_padding_mask} and
 *       {@code attn_mask} mean the opposite; the PyTorch-compatible layers convert them.</li>
 * </ul>
 */
package org.attn4j.models.tutorial;
