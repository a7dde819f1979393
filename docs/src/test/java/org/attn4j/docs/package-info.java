/**
 * Tests of the documentation: {@link org.attn4j.docs.ReadmeCodeBlocksTest} compiles and runs every {@code java}
 * code block of every README, {@link org.attn4j.docs.QuickStartProjectIT} builds and runs the root README's quick
 * start as a fresh project, with the commands the README gives, and {@link org.attn4j.docs.TckRecipeIT} follows the
 * tck README's recipe the same way on a backend of the fresh project's own.
 */
package org.attn4j.docs;
