/** Tests of the command line: each command run in-process with captured output, the table and heatmap renderers. */
package org.attn4j.cli;
