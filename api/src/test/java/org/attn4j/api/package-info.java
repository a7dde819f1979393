/** Tests of the api's values (shapes, masks, options) and of backend selection with fake providers. */
package org.attn4j.api;
