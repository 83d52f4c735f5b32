#!/usr/bin/env python3
"""Write BERT-shaped ONNX models with random weights, for tests and benchmarks.

The graphs use the same operators, input/output names and dynamic axes as a
Hugging Face optimum/transformers ONNX export of a BERT model (TorchScript
exporter, eager attention, opset 14):

  inputs   input_ids, attention_mask[, token_type_ids]   int64 [batch_size, sequence_length]
  encoder  output last_hidden_state                      float [batch_size, sequence_length, hidden]
  cross    output logits                                 float [batch_size, 1]

Embeddings are word + position + token type, then LayerNorm; every encoder layer
is Q/K/V MatMul+Add, scaled dot-product attention with the additive mask
(1 - mask) * float32.min built from attention_mask, Softmax, output dense,
residual + LayerNorm, intermediate dense + GELU (Erf form), output dense,
residual + LayerNorm. LayerNorm is written out the way the exporter does below
opset 17 (ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add); ONNX Runtime
fuses it back, as it does for the real export. The cross-encoder adds the BERT
pooler (first token, dense + tanh) and a one-logit classifier.

Latency does not depend on weight values, so a model generated with a preset
that matches a real model's sizes times like the real one. Weights are float32,
drawn from a fixed seed and scaled by 1/sqrt(fan_in) so activations stay finite.

Tokenizers. The committed tiny fixtures (model/testdata/tiny-encoder,
tiny-cross) carry their own small synthetic tokenizer.json, written by this
script: a BERT WordPiece tokenizer in the Hugging Face tokenizers format
(BertNormalizer lowercase, BertPreTokenizer, [CLS] A [SEP] B [SEP] template)
over a vocabulary of a few hundred tokens -- [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3,
[MASK]=4, ASCII punctuation, digits, letters, their ## continuations and some
common English words -- so that every lowercase ASCII word tokenizes (letter
by letter at worst). The tiny models take that vocabulary's size, which keeps
each model.onnx far under 100 KB, and the tests need no file outside the
package. The architecture-exact presets keep the real 30522-token vocabulary
and take the real tokenizer with --tokenizer; they are for benchmarks, are
large, and go under .tools/fixtures/ (ignored by git), never into the repo.

Usage:
  # the committed test fixtures (model + synthetic tokenizer.json)
  genmodel.py --preset tiny --out model/testdata/tiny-encoder
  genmodel.py --preset tiny --kind cross-encoder --out model/testdata/tiny-cross
  # verify that committed fixtures are what this script writes, and valid
  genmodel.py --preset tiny --out model/testdata/tiny-encoder --check
  # benchmark fixtures with the real architecture (not committed)
  genmodel.py --preset bge-small --out .tools/fixtures/bge-small \\
      --tokenizer ../shared/models/tokenizers/bge-small-en-v1.5/tokenizer.json
  genmodel.py --preset minilm-l6 --out .tools/fixtures/minilm-l6 \\
      --tokenizer ../shared/models/tokenizers/bge-small-en-v1.5/tokenizer.json

  # reranker benchmark fixtures, fp32 and (--quantize) an int8 copy
  genmodel.py --preset ms-marco-minilm-l6 --out .tools/fixtures/ms-marco-minilm-l6 \\
      --tokenizer ../shared/models/tokenizers/all-MiniLM-L6-v2/tokenizer.json
  genmodel.py --preset ms-marco-tinybert-l2 --out .tools/fixtures/ms-marco-tinybert-l2-int8 \\
      --tokenizer ../shared/models/tokenizers/all-MiniLM-L6-v2/tokenizer.json --quantize
  # the XLM-RoBERTa reranker (1.1 GB), with the small SentencePiece fixture
  # tokenizer (ids below 4002 of the model's 250002)
  genmodel.py --preset bge-reranker-base --out .tools/fixtures/bge-reranker-base \\
      --tokenizer tokenizer/testdata/xlmr.json

With --quantize the model is written with dynamic int8 quantization
(onnxruntime.quantization.quantize_dynamic: int8 weights of MatMul/Gemm,
activations quantized at run time), the way the published *_quantized.onnx
exports are made; it needs the PyPI package onnxruntime and cannot be
combined with --check.

With --check nothing is written: the model (and the synthetic tokenizer, when
the preset writes one) is generated in memory and compared byte for byte with
the files in --out, and the file on disk is run through onnx.checker; the exit
status is 1 on any difference.

Needs the PyPI packages onnx and numpy.
"""

import argparse
import json
import math
import os
import shutil
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # pragma: no cover - depends on the environment
    sys.exit(f"genmodel: {e}; install with: python3 -m pip install onnx numpy")

PRESETS = {
    # name: kind, layers, hidden, heads, intermediate, vocab, max positions
    "bge-small": dict(kind="encoder", layers=12, hidden=384, heads=12, intermediate=1536, vocab=30522, max_positions=512),
    "minilm-l6": dict(kind="encoder", layers=6, hidden=384, heads=12, intermediate=1536, vocab=30522, max_positions=512),
    "ms-marco-minilm-l6": dict(kind="cross-encoder", layers=6, hidden=384, heads=12, intermediate=1536, vocab=30522, max_positions=512),
    # cross-encoder/ms-marco-TinyBERT-L-2-v2.
    "ms-marco-tinybert-l2": dict(kind="cross-encoder", layers=2, hidden=128, heads=2, intermediate=512, vocab=30522, max_positions=512),
    # BAAI/bge-reranker-base: XLM-RoBERTa base (see --roberta).
    "bge-reranker-base": dict(kind="cross-encoder", layers=12, hidden=768, heads=12, intermediate=3072, vocab=250002,
                              max_positions=514, roberta=True),
    # The tiny fixtures use the synthetic tokenizer below (vocab=None: its
    # size) and a hidden size of 8, so each model file is a few tens of KB.
    "tiny": dict(kind="encoder", layers=2, hidden=8, heads=4, intermediate=16, vocab=None, max_positions=512),
}

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

# Whole words of the synthetic vocabulary; anything else splits into letters.
WORDS = """
the of and to in is it that for on with as was be by this are or from at an
not have has had but all can will one which their more if about we they you
your he she his her its our how what when where who why do does did so no
yes up out into than then them these those there here some any each other
new use used using make like just also only over such only very most many
same first last two three time way work part find found search query
passage passages document documents note notes page pages index text word
words file files line lines code data model models vector vectors embed
embedding hybrid rank ranking score match link links tag tags title heading
plugin plugins load space script write read run test tests build go python
rust markdown json config server client user users cache memory disk fast
slow small large big good best quick brown fox jumps lazy dog cat red blue
green cold hot water fire sun moon day night year city river mountain tree
book books learn learning machine neural network deep language sentence
represent relevant searching retrieval question answer answers long short
""".split()

SUFFIXES = ["##s", "##es", "##ed", "##ing", "##er", "##ly", "##tion", "##al", "##ness"]


def synthetic_vocab():
    """The synthetic WordPiece vocabulary, in id order, without duplicates."""
    toks = list(SPECIAL_TOKENS)
    toks += [chr(c) for c in range(33, 127) if not chr(c).isalnum()]  # ASCII punctuation
    toks += [str(d) for d in range(10)]
    toks += [chr(c) for c in range(ord("a"), ord("z") + 1)]
    toks += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    toks += ["##" + str(d) for d in range(10)]
    toks += SUFFIXES + WORDS
    seen, out = set(), []
    for t in toks:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def synthetic_tokenizer_json():
    """A Hugging Face tokenizer.json for synthetic_vocab(), shaped like BERT's."""
    vocab = synthetic_vocab()
    ids = {t: i for i, t in enumerate(vocab)}
    added = [dict(id=ids[t], content=t, single_word=False, lstrip=False, rstrip=False,
                  normalized=False, special=True) for t in SPECIAL_TOKENS]

    def special(tok, type_id):
        return {"SpecialToken": {"id": tok, "type_id": type_id}}

    def seq(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}

    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
            "special_tokens": {
                t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

LAYER_NORM_EPS = 1e-12
ROBERTA_LAYER_NORM_EPS = 1e-5
ROBERTA_PADDING_IDX = 1
TYPE_VOCAB = 2
BATCH = "batch_size"
SEQ = "sequence_length"


class Builder:
    """Accumulates nodes and initializers with unique, export-like names."""

    def __init__(self, rng, eps=LAYER_NORM_EPS):
        self.rng = rng
        self.eps = eps
        self.nodes = []
        self.inits = []
        self.counter = {}

    def name(self, base):
        n = self.counter.get(base, 0)
        self.counter[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def node(self, op, inputs, name=None, **attrs):
        out = self.name(name or f"/{op}_output_0")
        self.nodes.append(helper.make_node(op, inputs, [out], name=self.name(f"/{op}"), **attrs))
        return out

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, name, shape, fan_in):
        w = self.rng.standard_normal(shape).astype(np.float32) / np.float32(math.sqrt(fan_in))
        return self.const(name, w)

    def ones(self, name, n):
        return self.const(name, np.ones(n, dtype=np.float32))

    def zeros(self, name, n):
        return self.const(name, np.zeros(n, dtype=np.float32))

    # --- building blocks --------------------------------------------------

    def layer_norm(self, x, prefix, hidden):
        gamma = self.const(f"{prefix}.weight", (1.0 + 0.1 * self.rng.standard_normal(hidden)).astype(np.float32))
        beta = self.const(f"{prefix}.bias", (0.1 * self.rng.standard_normal(hidden)).astype(np.float32))
        mean = self.node("ReduceMean", [x], axes=[-1], keepdims=1)
        d = self.node("Sub", [x, mean])
        sq = self.node("Pow", [d, self.scalar_f("two", 2.0)])
        var = self.node("ReduceMean", [sq], axes=[-1], keepdims=1)
        std = self.node("Sqrt", [self.node("Add", [var, self.scalar_f("eps", self.eps)])])
        y = self.node("Div", [d, std])
        return self.node("Add", [self.node("Mul", [y, gamma]), beta])

    def linear(self, x, prefix, n_in, n_out):
        """x @ W + b, as the exporter writes nn.Linear on 3-D input."""
        w = self.weight(f"onnx::MatMul_{prefix}", (n_in, n_out), n_in)
        b = self.const(f"{prefix}.bias", (0.1 * self.rng.standard_normal(n_out)).astype(np.float32))
        return self.node("Add", [b, self.node("MatMul", [x, w])])

    def gemm(self, x, prefix, n_in, n_out):
        """nn.Linear on 2-D input: Gemm with transB=1, weight [out, in]."""
        w = self.weight(f"{prefix}.weight", (n_out, n_in), n_in)
        b = self.const(f"{prefix}.bias", (0.1 * self.rng.standard_normal(n_out)).astype(np.float32))
        return self.node("Gemm", [x, w, b], alpha=1.0, beta=1.0, transB=1)

    _scalars = None

    def scalar_f(self, key, value):
        if self._scalars is None:
            self._scalars = {}
        if key not in self._scalars:
            self._scalars[key] = self.const(f"/Constant_{key}", np.array(value, dtype=np.float32))
        return self._scalars[key]

    def ints(self, name, values):
        return self.const(name, np.array(values, dtype=np.int64))

    def split_heads(self, x, batch_dim, seq_dim, heads, head_dim, perm):
        """view(B, S, heads, head_dim) then permute, with the shape built from Shape ops."""
        shape = self.node("Concat", [batch_dim, seq_dim, self.ints(self.name("/Constant_heads"), [heads]),
                                     self.ints(self.name("/Constant_head_dim"), [head_dim])], axis=0)
        return self.node("Transpose", [self.node("Reshape", [x, shape])], perm=perm)


def build(args):
    rng = np.random.default_rng(args.seed)
    b = Builder(rng, ROBERTA_LAYER_NORM_EPS if args.roberta else LAYER_NORM_EPS)
    H, nh = args.hidden, args.heads
    if H % nh:
        sys.exit(f"genmodel: hidden {H} is not a multiple of heads {nh}")
    hd = H // nh

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [BATCH, SEQ]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [BATCH, SEQ]),
    ]
    if not args.no_token_type_ids:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, [BATCH, SEQ]))

    # Shape pieces, as the exporter traces input_ids.size().
    shape = b.node("Shape", ["input_ids"])
    batch_dim = b.node("Unsqueeze", [b.node("Gather", [shape, b.ints("/Constant_0", 0)], axis=0), b.ints("/axes_0", [0])])
    seq_len = b.node("Gather", [shape, b.ints("/Constant_1", 1)], axis=0)
    seq_dim = b.node("Unsqueeze", [seq_len, b.ints("/axes_0b", [0])])

    # Embeddings.
    word = b.node("Gather", [b.weight("embeddings.word_embeddings.weight", (args.vocab, H), 1.0), "input_ids"])
    if args.roberta:
        # RoBERTa numbers positions from padding_idx + 1, skipping padding:
        # mask = input_ids != pad; position = cumsum(mask) * mask + pad.
        pad = b.ints("/padding_idx", np.array(ROBERTA_PADDING_IDX, dtype=np.int64))
        keep = b.node("Cast", [b.node("Not", [b.node("Equal", ["input_ids", pad])])], to=TensorProto.INT32)
        cum = b.node("CumSum", [keep, b.const("/cumsum_axis", np.array(1, dtype=np.int32))])
        pos_ids = b.node("Add", [b.node("Cast", [b.node("Mul", [cum, keep])], to=TensorProto.INT64), pad])
    else:
        pos_buffer = b.ints("embeddings.position_ids", np.arange(args.max_positions, dtype=np.int64)[None, :])
        pos_ids = b.node("Slice", [pos_buffer, b.ints("/starts", [0]), seq_dim, b.ints("/slice_axes", [1])])
    pos = b.node("Gather", [b.weight("embeddings.position_embeddings.weight", (args.max_positions, H), 1.0), pos_ids])
    emb = word
    if args.roberta:
        # type_vocab_size 1 and no token_type_ids input: the one type
        # embedding is a constant the exporter folds into an Add.
        emb = b.node("Add", [emb, b.weight("embeddings.token_type_embeddings.weight", (H,), 1.0)])
    elif not args.no_token_type_ids:
        tt = b.node("Gather", [b.weight("embeddings.token_type_embeddings.weight", (TYPE_VOCAB, H), 1.0), "token_type_ids"])
        emb = b.node("Add", [emb, tt])
    emb = b.node("Add", [emb, pos])
    x = b.layer_norm(emb, "embeddings.LayerNorm", H)

    # Additive attention mask: (1 - mask[:, None, None, :]) * float32.min.
    m = b.node("Unsqueeze", ["attention_mask", b.ints("/mask_axes_1", [1])])
    m = b.node("Unsqueeze", [m, b.ints("/mask_axes_2", [2])])
    m = b.node("Cast", [m], to=TensorProto.FLOAT)
    m = b.node("Sub", [b.scalar_f("one", 1.0), m])
    mask = b.node("Mul", [m, b.scalar_f("fmin", np.finfo(np.float32).min)])

    scale = b.scalar_f("sqrt_head_dim", math.sqrt(hd))
    for i in range(args.layers):
        p = f"encoder.layer.{i}"
        q = b.split_heads(b.linear(x, f"{p}.attention.self.query", H, H), batch_dim, seq_dim, nh, hd, [0, 2, 1, 3])
        k = b.split_heads(b.linear(x, f"{p}.attention.self.key", H, H), batch_dim, seq_dim, nh, hd, [0, 2, 3, 1])
        v = b.split_heads(b.linear(x, f"{p}.attention.self.value", H, H), batch_dim, seq_dim, nh, hd, [0, 2, 1, 3])
        scores = b.node("Div", [b.node("MatMul", [q, k]), scale])
        probs = b.node("Softmax", [b.node("Add", [scores, mask])], axis=-1)
        ctx = b.node("Transpose", [b.node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = b.node("Reshape", [ctx, b.node("Concat", [batch_dim, seq_dim, b.ints(b.name("/Constant_hidden"), [H])], axis=0)])
        attn = b.linear(ctx, f"{p}.attention.output.dense", H, H)
        x = b.layer_norm(b.node("Add", [attn, x]), f"{p}.attention.output.LayerNorm", H)

        h = b.linear(x, f"{p}.intermediate.dense", H, args.intermediate)
        erf = b.node("Erf", [b.node("Div", [h, b.scalar_f("sqrt2", math.sqrt(2.0))])])
        h = b.node("Mul", [b.node("Mul", [h, b.node("Add", [erf, b.scalar_f("one", 1.0)])]), b.scalar_f("half", 0.5)])
        out = b.linear(h, f"{p}.output.dense", args.intermediate, H)
        x = b.layer_norm(b.node("Add", [out, x]), f"{p}.output.LayerNorm", H)

    if args.kind == "encoder":
        b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="/Identity_last_hidden_state"))
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [BATCH, SEQ, H])]
    else:
        first = b.node("Gather", [x, b.ints("/Constant_first", 0)], axis=1)
        pooled = b.node("Tanh", [b.gemm(first, "bert.pooler.dense", H, H)])
        logits = b.gemm(pooled, "classifier", H, 1)
        b.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="/Identity_logits"))
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [BATCH, 1])]

    graph = helper.make_graph(b.nodes, "main_graph", inputs, outputs, b.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", args.opset)],
        producer_name="braid-genmodel",
        producer_version="1",
        doc_string=f"random-weight {'XLM-RoBERTa' if args.roberta else 'BERT'} {args.kind}: layers={args.layers} hidden={H} heads={nh} "
        f"intermediate={args.intermediate} vocab={args.vocab} max_positions={args.max_positions} seed={args.seed}",
    )
    model.ir_version = 8  # readable by onnxruntime >= 1.14
    meta = dict(kind=args.kind, layers=args.layers, hidden=H, heads=nh, intermediate=args.intermediate,
                vocab=args.vocab, max_positions=args.max_positions, seed=args.seed)
    if args.roberta:
        meta["architecture"] = "xlm-roberta"
    helper.set_model_props(model, {f"braid.{k}": str(v) for k, v in meta.items()})
    return model


def write_atomic(path, data):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".genmodel.", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), help="sizes of a known model; explicit flags override them")
    ap.add_argument("--kind", choices=["encoder", "cross-encoder"])
    ap.add_argument("--layers", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--intermediate", type=int)
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--max-positions", type=int, dest="max_positions")
    ap.add_argument("--no-token-type-ids", action="store_true", help="leave out the token_type_ids input")
    ap.add_argument("--roberta", action="store_true", default=None,
                    help="XLM-RoBERTa embeddings: positions from padding_idx 1, one token type and no token_type_ids "
                    "input, LayerNorm eps 1e-5 (the bge-reranker-base preset sets it)")
    ap.add_argument("--opset", type=int, default=14, help="ONNX opset, 14..17 (default 14, as optimum exports BERT)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="directory to write model.onnx into (created if missing)")
    ap.add_argument("--tokenizer", help="tokenizer.json to copy beside the model "
                    "(default for --preset tiny: write the synthetic one)")
    ap.add_argument("--quantize", action="store_true",
                    help="write an int8 model (onnxruntime.quantization.quantize_dynamic) instead of float32")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; compare the files in --out with what would be written and validate them")
    args = ap.parse_args(argv)

    base = dict(PRESETS[args.preset]) if args.preset else {}
    for key in ("kind", "layers", "hidden", "heads", "intermediate", "vocab", "max_positions"):
        if getattr(args, key) is None:
            if key not in base:
                ap.error(f"--{key.replace('_', '-')} is required without a --preset")
            setattr(args, key, base[key])
    if args.roberta is None:
        args.roberta = base.get("roberta", False)
    if args.roberta:
        args.no_token_type_ids = True
    args.synthetic = args.vocab is None
    if args.synthetic:
        if args.tokenizer:
            ap.error("--preset tiny takes the synthetic tokenizer; pass --vocab with --tokenizer")
        args.vocab = len(synthetic_vocab())
    for key in ("layers", "hidden", "heads", "intermediate", "vocab", "max_positions"):
        if getattr(args, key) < 1:
            ap.error(f"--{key.replace('_', '-')} must be positive")
    if not 14 <= args.opset <= 17:
        ap.error(f"--opset {args.opset} out of range, want 14..17")
    if args.quantize and args.check:
        ap.error("--quantize cannot be combined with --check")
    if args.tokenizer and not os.path.isfile(args.tokenizer):
        ap.error(f"--tokenizer {args.tokenizer}: no such file")
    return args


def tokenizer_vocab_size(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    vocab = doc["model"]["vocab"]
    ids = (list(vocab.values()) if isinstance(vocab, dict) else [len(vocab) - 1]) + [t["id"] for t in doc.get("added_tokens", [])]
    return max(ids) + 1


def check(args, data, tok):
    """Compare the files in args.out with data (model) and tok (tokenizer bytes or None)."""
    bad = []
    path = os.path.join(args.out, "model.onnx")
    try:
        with open(path, "rb") as f:
            have = f.read()
    except OSError as e:
        sys.exit(f"genmodel: check: {e}")
    onnx.checker.check_model(path, full_check=True)
    if have != data:
        bad.append(f"{path}: {len(have)} bytes differ from the {len(data)} this script writes; regenerate it")
    tpath = os.path.join(args.out, "tokenizer.json")
    if tok is not None:
        try:
            with open(tpath, "rb") as f:
                if f.read() != tok:
                    bad.append(f"{tpath} differs from the synthetic tokenizer; regenerate it")
        except OSError as e:
            bad.append(str(e))
    if os.path.isfile(tpath):
        n = tokenizer_vocab_size(tpath)
        if n > args.vocab:
            bad.append(f"{tpath} has {n} token ids, the model only {args.vocab}")
    for b in bad:
        print(f"genmodel: check: {b}", file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f"genmodel: check: {args.out} ok (onnx.checker passed, files match the generator)", file=sys.stderr)


def quantize(data, out):
    """Return data (a float32 model) quantized to int8 with ONNX Runtime's
    dynamic quantization, per-tensor, signed weights: what optimum writes as
    model_quantized.onnx."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:  # pragma: no cover - depends on the environment
        sys.exit(f"genmodel: --quantize: {e}; install with: python3 -m pip install onnxruntime")
    with tempfile.TemporaryDirectory(prefix=".genmodel.", dir=out) as tmp:
        src, dst = os.path.join(tmp, "fp32.onnx"), os.path.join(tmp, "int8.onnx")
        with open(src, "wb") as f:
            f.write(data)
        quantize_dynamic(src, dst, weight_type=QuantType.QInt8)
        with open(dst, "rb") as f:
            return f.read()


def main(argv=None):
    args = parse_args(argv)
    model = build(args)
    onnx.checker.check_model(model, full_check=True)
    data = model.SerializeToString()
    tok = synthetic_tokenizer_json() if args.synthetic else None
    if args.check:
        check(args, data, tok)
        return
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.onnx")
    if args.quantize:
        data = quantize(data, args.out)
    write_atomic(path, data)
    if tok is not None:
        write_atomic(os.path.join(args.out, "tokenizer.json"), tok)
    elif args.tokenizer:
        shutil.copyfile(args.tokenizer, os.path.join(args.out, "tokenizer.json"))
    elif not os.path.isfile(os.path.join(args.out, "tokenizer.json")):
        print(f"genmodel: note: {args.out} has no tokenizer.json; pass --tokenizer "
              "(e.g. ../shared/models/tokenizers/bge-small-en-v1.5/tokenizer.json)", file=sys.stderr)
    print(f"genmodel: wrote {path} ({len(data)} bytes; {'int8 ' if args.quantize else ''}{args.kind}, layers={args.layers} hidden={args.hidden} "
          f"heads={args.heads} vocab={args.vocab})", file=sys.stderr)


if __name__ == "__main__":
    main()
