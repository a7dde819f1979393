/** Tests of the building blocks the model families share. */
package org.attn4j.models.layers;
