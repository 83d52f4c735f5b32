"""Generate tokenizer/testdata/golden.json: reference encodings from Hugging Face tokenizers.

The Go package tokenizer must produce exactly the token ids of the Hugging
Face `tokenizers` library. This script encodes every input of
tokenizer/testdata/golden_inputs.json with each real tokenizer.json under
shared/models/tokenizers and records, per case, the ids and type ids for each maximum
length (0: no truncation; otherwise longest_first truncation, never
padding). It also adds code point sweeps that walk through Unicode.

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

import tokenizers
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TESTDATA = os.path.join(ROOT, "tokenizer", "testdata")
MODELS = ["bge-small-en-v1.5", "all-MiniLM-L6-v2"]
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


def encode(tok, a, b, max_len):
    tok.no_padding()
    if max_len > 0:
        tok.enable_truncation(max_length=max_len, strategy="longest_first")
    else:
        tok.no_truncation()
    enc = tok.encode(a) if b is None else tok.encode(a, b)
    return {"max_len": max_len, "ids": enc.ids, "type_ids": enc.type_ids}


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
    for name in MODELS:
        tok = Tokenizer.from_file(os.path.join(args.models, name, "tokenizer.json"))
        encodings = []
        for c in singles + pairs:
            b = c.get("b")
            a = c["text"] if b is None else c["a"]
            encodings.append([encode(tok, a, b, m) for m in c.get("max_lens", DEFAULT_MAX_LENS)])
            n += len(encodings[-1])
        out["models"].append({"name": name, "encodings": encodings})

    path = os.path.join(TESTDATA, "golden.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {n} encodings, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
