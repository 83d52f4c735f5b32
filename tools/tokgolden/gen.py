"""Generate tokenizer/testdata/golden.json: reference encodings from Hugging Face tokenizers.

The Go package tokenizer must produce exactly the token ids of the Hugging
Face `tokenizers` library. This script encodes every input of
tokenizer/testdata/golden_inputs.json with each real tokenizer.json under
shared/models/tokenizers (BERT WordPiece) and each SentencePiece Unigram
fixture in tokenizer/testdata (written by genunigram.py), and records, per
case, the ids and type ids for each maximum length (0: no truncation;
otherwise longest_first truncation, never padding; lengths below the
template's special tokens are left out, since there the reference skips
truncation and the Go package does not), and for single texts the decoded
text (decode with skip_special_tokens). It also adds code point sweeps that
walk through Unicode, and probes, code point by code point, which
characters the reference's Precompiled normalizer keeps in one grapheme
cluster with a preceding no-break space.

Run from the repository root (the models live in ../shared by default):

    pip install tokenizers
    python3 tools/tokgolden/gen.py [--models ../shared/models/tokenizers]
    go test ./tokenizer/

Refresh the character tables with gentables.py in this folder when
upgrading tokenizers.
"""

import argparse
import json
import os
import random

import base64

import tokenizers
from tokenizers import Tokenizer, normalizers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TESTDATA = os.path.join(ROOT, "tokenizer", "testdata")
# Real tokenizers, looked up under --models.
MODELS = ["bge-small-en-v1.5", "all-MiniLM-L6-v2"]
# Fixtures from genunigram.py, in TESTDATA.
FIXTURES = ["xlmr", "bytefallback"]
# Byte fallback turns each unknown character into 3 or 4 tokens: it gets
# only these sweeps, to keep golden.json small.
BYTEFALLBACK_SWEEPS = {"sweep_00000", "sweep_01000", "sweep_1F000"}
DEFAULT_MAX_LENS = [0, 128, 512]

WORDS = (
    "search index query document vector lexical dense sparse rank fusion score "
    "the a of and to in is that for on with as by it this be are from at or an "
    "retrieval embedding token model passage relevance reranker cross-encoder "
    "BM25 HNSW graph neighbour recall precision latency throughput batch shard "
    "note vault markdown wikilink tag heading paragraph chunk overlap window "
    "café naïve Zürich résumé 東京 検索 서울 Москва Αθήνα emoji🙂 don't it's "
    "2024 3.14 10,000 v1.2.3 e-mail user@example.com https://example.com/x?q=1"
).split()
PUNCT = [".", ",", ";", ":", "!", "?", " -", " (see)", "\n", "\n\n"]


def long_text(n_words, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n_words):
        w = rng.choice(WORDS)
        if i % 13 == 0:
            w = w.capitalize()
        out.append(w)
        if rng.random() < 0.12:
            out.append(rng.choice(PUNCT))
    return " ".join(out)


def sweeps():
    """Code point sweeps: every 3rd code point of each populated 4096 block."""
    blocks = list(range(0, 0x32000, 0x1000)) + [0xE0000, 0xF0000, 0x10F000]
    cases = []
    for lo in blocks:
        chars = [chr(c) for c in range(lo, lo + 0x1000, 3) if not 0xD800 <= c <= 0xDFFF]
        words = ["".join(chars[i:i + 3]) for i in range(0, len(chars), 3)]
        cases.append({"name": f"sweep_{lo:05X}", "text": " ".join(words), "max_lens": [0]})
    return cases


def grapheme_probe(xlmr_path):
    """Which BMP characters c the Precompiled normalizer keeps in one cluster after U+00A0.

    The xlmr charsmap maps U+00A0 to a space, so U+00A0 + c, under 6 bytes
    for any c below U+10000, normalizes to a lone space when the two are one
    cluster (the cluster is replaced whole) and to a space and c's own form
    otherwise. When c's own form is empty the probe cannot tell: those code
    points go in "unknown".
    """
    with open(xlmr_path, encoding="utf-8") as f:
        doc = json.load(f)
    charsmap = next(n["precompiled_charsmap"] for n in doc["normalizer"]["normalizers"] if n["type"] == "Precompiled")
    pre = normalizers.Precompiled(base64.b64decode(charsmap))
    if pre.normalize_str("\u00a0") != " ":
        raise SystemExit("the xlmr charsmap does not map U+00A0 to a space")
    joins, unknown = [], []
    for c in range(0x80, 0x10000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        s = chr(c)
        if pre.normalize_str(s) == "":
            add_range(unknown, c)
        elif pre.normalize_str("\u00a0" + s) == " ":
            add_range(joins, c)
    return {"base": "\u00a0", "joins": joins, "unknown": unknown}


def add_range(ranges, c):
    if ranges and ranges[-1][1] == c - 1:
        ranges[-1][1] = c
    else:
        ranges.append([c, c])


def encode(tok, a, b, max_len):
    tok.no_padding()
    if max_len > 0:
        tok.enable_truncation(max_length=max_len, strategy="longest_first")
    else:
        tok.no_truncation()
    enc = tok.encode(a) if b is None else tok.encode(a, b)
    out = {"max_len": max_len, "ids": enc.ids}
    if any(enc.type_ids):  # left out when all zero
        out["type_ids"] = enc.type_ids
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models", "tokenizers"))
    args = ap.parse_args()

    with open(os.path.join(TESTDATA, "golden_inputs.json")) as f:
        inputs = json.load(f)
    singles, pairs = [], []
    for i, c in enumerate(inputs["single"]):
        if "repeat_words" in c:
            c = dict(c, text=long_text(c.pop("repeat_words"), seed=i))
        if "repeat_text" in c:
            text, times = c.pop("repeat_text")
            c = dict(c, text=text * times)
        singles.append(c)
    singles += sweeps()
    for i, c in enumerate(inputs["pairs"]):
        if "repeat_words_a" in c:
            c = dict(c, a=long_text(c.pop("repeat_words_a"), seed=100 + i),
                     b=long_text(c.pop("repeat_words_b"), seed=200 + i))
        pairs.append(c)

    cases = [{"name": c["name"], "text": c["text"]} for c in singles]
    cases += [{"name": c["name"], "a": c["a"], "b": c["b"]} for c in pairs]
    out = {"tokenizers_version": tokenizers.__version__, "cases": cases, "models": []}
    n = 0
    paths = [(name, os.path.join(args.models, name, "tokenizer.json")) for name in MODELS]
    paths += [(name, os.path.join(TESTDATA, name + ".json")) for name in FIXTURES]
    for name, path in paths:
        tok = Tokenizer.from_file(path)
        encodings, decoded = [], []
        for c in singles + pairs:
            b = c.get("b")
            a = c["text"] if b is None else c["a"]
            least = tok.post_processor.num_special_tokens_to_add(b is not None) if tok.post_processor else 0
            lens = [m for m in c.get("max_lens", DEFAULT_MAX_LENS) if m == 0 or m >= least]
            if name == "bytefallback" and c["name"].startswith("sweep_") and c["name"] not in BYTEFALLBACK_SWEEPS:
                lens = []
            encodings.append([encode(tok, a, b, m) for m in lens])
            n += len(encodings[-1])
            if b is None and not c["name"].startswith("sweep_"):
                tok.no_truncation()
                decoded.append(tok.decode(tok.encode(a).ids, skip_special_tokens=True))
            else:
                decoded.append(None)
        out["models"].append({"name": name, "encodings": encodings, "decoded": decoded})
    out["grapheme_probe"] = grapheme_probe(os.path.join(TESTDATA, "xlmr.json"))

    path = os.path.join(TESTDATA, "golden.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {n} encodings, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
