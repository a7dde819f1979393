/** The template backend's tests: the TCK, run as a third party runs it, and the architecture rules of a backend. */
package org.attn4j.backend.template;
