/**
 * Tests of the ONNX reader and the state_dict mapping: the real all-MiniLM-L6-v2 against facts written by the onnx
 * Python package, small hand-made models for each field and rule, and a seeded mutation fuzz loop.
 */
package org.attn4j.models.onnx;
