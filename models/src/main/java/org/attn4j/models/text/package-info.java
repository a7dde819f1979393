/** Text to token ids: {@link org.attn4j.models.text.Vocabulary}, a sorted word vocabulary as the tutorials build it. */
package org.attn4j.models.text;
