/**
 * The in-tree backends' conformance tests, each written exactly as the tck README's recipe tells a third-party
 * backend author to write one. They live here, with a test-scope dependency on each backend, so that the module
 * graph stays acyclic: tck depends on api and models, backends on api alone. With every CPU backend on one class
 * path, this is also where the default choice among them is checked.
 */
package org.attn4j.tck.conformance;
