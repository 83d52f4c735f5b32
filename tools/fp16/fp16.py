"""Convert an fp32 BERT ONNX model to fp16 weights for the GPU, and check it.

usage: fp16.py MODEL_DIR [--sha256 HEX] [--check N]

MODEL_DIR holds model.onnx (fp32) and tokenizer.json. The script writes
MODEL_DIR/model-fp16.onnx beside it (atomically: a temporary name, then a
rename), which braid's sessions on CUDA load in place of model.onnx
(model.FP16File). Inputs and outputs keep their types (keep_io_types:
int64 ids in, float32 hidden states out), so the Go side sees the same
model; inside, weights and activations are float16. LayerNormalization and
the like stay float32 where onnxconverter-common keeps them.

Then it runs both models with ONNX Runtime on the CPU on N random token
sequences (default 8, seed 7) and fails unless the pooled outputs (CLS and
mean) agree with cosine >= 0.999. --sha256 fails when the written file's
checksum differs (make ort-gpu pins the default embedder's).
"""

import argparse
import hashlib
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnxconverter_common import float16

MIN_COSINE = 0.999


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def convert(src, dst):
    model = onnx.load(src)
    # The export's value_info records float32 types for tensors (a Cast's
    # output, for one) that the conversion makes float16; left in, the
    # stale entries make ONNX Runtime refuse the model. Shapes are
    # inferred afresh without them.
    del model.graph.value_info[:]
    half = float16.convert_float_to_float16(model, keep_io_types=True)
    # onnxconverter-common 1.16 leaves a Cast to float32 (the attention
    # mask's) as it was while it records the Cast's output, which float16
    # nodes then read, as float16: make the Cast agree with the record.
    half16 = {v.name for v in half.graph.value_info
              if v.type.tensor_type.elem_type == onnx.TensorProto.FLOAT16}
    for n in half.graph.node:
        if n.op_type == "Cast" and n.output[0] in half16:
            for a in n.attribute:
                if a.name == "to" and a.i == onnx.TensorProto.FLOAT:
                    a.i = onnx.TensorProto.FLOAT16
    tmp = dst + ".tmp"
    onnx.save(half, tmp)
    os.replace(tmp, dst)


def vocab_size(path):
    """The rows of the embedding table input_ids index (30522 for BERT)."""
    model = onnx.load(path, load_external_data=False)
    inits = {i.name: i for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Gather" and len(n.input) == 2 and n.input[1] == "input_ids" and n.input[0] in inits:
            return int(inits[n.input[0]].dims[0])
    return 30522


def feeds(session, rng, batch, seq, vocab):
    ids = rng.integers(min(1000, vocab // 2), vocab, size=(batch, seq), dtype=np.int64)
    ids[:, 0], ids[:, -1] = 101, 102  # [CLS] ... [SEP]
    mask = np.ones((batch, seq), dtype=np.int64)
    mask[1:, seq // 2:] = 0  # padding in all rows but the first
    out = {}
    for i in session.get_inputs():
        out[i.name] = {"input_ids": ids, "attention_mask": mask}.get(i.name, np.zeros_like(ids))
    return out, mask


def pooled(hidden, mask):
    cls = hidden[:, 0, :]
    m = mask[..., None].astype(np.float32)
    mean = (hidden * m).sum(1) / m.sum(1)
    return cls, mean


def cosine(a, b):
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def check(fp32, fp16, n):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    s32 = ort.InferenceSession(fp32, opts, providers=["CPUExecutionProvider"])
    # On the CPU, ONNX Runtime 1.24 wraps fp16 nodes that have only fp32
    # kernels in casts, and its layer-norm fusion then fails on those casts
    # ("InsertedPrecisionFreeCast_... does not exist"): the fp16 model is
    # checked with basic optimisation only. On CUDA every node here has an
    # fp16 kernel and braid optimises fully (scripts/gpu-check.sh checks it).
    opts16 = ort.SessionOptions()
    opts16.intra_op_num_threads = 2
    opts16.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    s16 = ort.InferenceSession(fp16, opts16, providers=["CPUExecutionProvider"])
    vocab = vocab_size(fp32)
    rng = np.random.default_rng(7)
    worst = 1.0
    for k in range(n):
        f, mask = feeds(s32, rng, batch=4, seq=16 + 8 * k, vocab=vocab)
        h32 = s32.run(None, f)[0]
        h16 = s16.run(None, f)[0]
        if h16.dtype != np.float32:
            sys.exit(f"fp16.py: {fp16} puts out {h16.dtype}, want float32 (keep_io_types)")
        if h32.ndim == 3:
            for a, b in zip(pooled(h32, mask), pooled(h16, mask)):
                worst = min(worst, float(cosine(a, b).min()))
        else:  # a cross-encoder's logits: compare the vector of scores
            worst = min(worst, float(cosine(h32.reshape(1, -1), h16.reshape(1, -1)).min()))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--sha256", default="")
    ap.add_argument("--check", type=int, default=8)
    a = ap.parse_args()
    src = os.path.join(a.dir, "model.onnx")
    dst = os.path.join(a.dir, "model-fp16.onnx")
    if not os.path.isfile(src):
        sys.exit(f"fp16.py: {src} is missing")
    convert(src, dst)
    got = sha256(dst)
    worst = check(src, dst, a.check)
    print(f"fp16.py: {dst}: sha256 {got}, {os.path.getsize(dst)} bytes; "
          f"CPU fp16 against fp32, worst pooled cosine {worst:.6f} over {a.check} batches")
    if worst < MIN_COSINE:
        os.remove(dst)
        sys.exit(f"fp16.py: cosine {worst:.6f} below {MIN_COSINE}; removed {dst}")
    if a.sha256 and got != a.sha256:
        os.remove(dst)
        sys.exit(f"fp16.py: {dst} has sha256 {got}, want {a.sha256} (another onnx or "
                 "onnxconverter-common version?); removed it")


if __name__ == "__main__":
    main()
