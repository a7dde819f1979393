/** Tests of the spi: the dropout hash, the shape rules and scope ownership, on a toy backend without ops. */
package org.attn4j.api.spi;
