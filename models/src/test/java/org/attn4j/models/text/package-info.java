/** Tests of the tutorial-style word vocabulary. */
package org.attn4j.models.text;
