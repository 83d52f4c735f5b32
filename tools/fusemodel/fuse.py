"""Fuse bge-small's attention, then quantize it to int8: a faster query path.

The bge-small-en-v1.5 ONNX export spells attention out in Reshape,
Transpose, MatMul and Softmax nodes that ONNX Runtime's own graph
optimiser does not fuse. ONNX Runtime's transformer optimiser (Python)
does: it rewrites the fp32 export into 12 Attention, 24
SkipLayerNormalization, 12 BiasGelu and one EmbedLayerNormalization
nodes. Dynamic int8 quantization then turns Attention into QAttention.

usage: fuse.py FP32_MODEL_DIR OUT_DIR

FP32_MODEL_DIR holds model.onnx and tokenizer.json (braid models pull
BAAI/bge-small-en-v1.5:fp32 puts them in the models directory). OUT_DIR
gets model.onnx, tokenizer.json and a config.json that names the model
bge-small-en-v1.5, so braid keeps its CLS pooling and query instruction.
"""

import json
import os
import shutil
import sys

import onnx
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.transformers import optimizer


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    fused = os.path.join(out, "fused-fp32.onnx")
    m = optimizer.optimize_model(os.path.join(src, "model.onnx"), model_type="bert",
                                 num_heads=12, hidden_size=384, opt_level=0)
    stats = m.get_fused_operator_statistics()
    if stats.get("Attention") != 12:
        sys.exit(f"fuse.py: expected 12 fused Attention nodes, got {stats}")
    m.save_model_to_file(fused)
    quantize_dynamic(fused, os.path.join(out, "model.onnx"), weight_type=QuantType.QInt8,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    os.remove(fused)
    shutil.copy(os.path.join(src, "tokenizer.json"), os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump({"_name_or_path": "BAAI/bge-small-en-v1.5", "architectures": ["BertModel"],
                   "hidden_size": 384, "max_position_embeddings": 512}, f, indent=1)
    ops = {}
    for n in onnx.load(os.path.join(out, "model.onnx")).graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"fuse.py: {out}/model.onnx: {ops.get('QAttention', 0)} QAttention, "
          f"{ops.get('SkipLayerNormalization', 0)} SkipLayerNormalization, {len(ops)} kinds of node")


if __name__ == "__main__":
    main()
