/**
 * Tests of the CUDA backend without a GPU: launch arithmetic, PTX entry points, the availability probe, every op
 * against recording and interpreting devices, and the TCK (skipped with the availability reason here).
 */
package org.attn4j.backend.cuda;
