/** Tests of the safetensors reader and writer (round trips, hostile files) and of the JSON reader. */
package org.attn4j.models.io;
