/**
 * Tests of the kit itself: a deliberately broken backend must fail it with messages naming op and case, a backend
 * that lacks optional features or is unavailable must be skipped (never passed), and options (fixtures, tolerance overrides, peers, settings) must apply.
 */
package org.attn4j.tck;
