/**
 * Tests of the layers: every layer against PyTorch float64 goldens on every backend of the test class path
 * ({@code LayersMatchPyTorchTest}, tolerances in {@code Numerics}), behaviour that goldens cannot show
 * ({@code LayerBehaviourTest}) and the module's architecture rules.
 */
package org.attn4j.models;
