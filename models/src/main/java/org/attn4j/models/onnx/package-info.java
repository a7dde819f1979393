/**
 * ONNX models read without ONNX Runtime: {@link org.attn4j.models.onnx.OnnxModel} reads a model's graph (nodes,
 * initializers, inputs, outputs) with protobuf-java's wire-format reader and no generated schema, and
 * {@link org.attn4j.models.onnx.OnnxStateDict} names a PyTorch-exported encoder's weights as its Hugging Face
 * {@code state_dict}, so a BERT-family model shipped as ONNX (the embedded all-MiniLM-L6-v2) loads like a
 * safetensors checkpoint.
 */
package org.attn4j.models.onnx;
