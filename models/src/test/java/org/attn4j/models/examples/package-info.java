/** Tests that the runnable examples run on every backend and reproduce the book's numbers. */
package org.attn4j.models.examples;
