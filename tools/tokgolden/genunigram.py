"""Generate the Unigram (SentencePiece) tokenizer fixtures under tokenizer/testdata.

No real XLM-RoBERTa tokenizer.json can be fetched here, so this script makes
small ones of the same shape: it trains SentencePiece Unigram models on the
markdown vaults in shared/data/markdown plus the multilingual lines below,
and converts them to Hugging Face tokenizer.json files with the tokenizers
API, the way transformers' converters do:

  xlmr.json      like XLM-RoBERTa and BAAI/bge-reranker-base
                 (XLMRobertaConverter): normalizer Sequence[Precompiled
                 (the model's nmt_nfkc charsmap), Replace(" {2,}" -> " ")],
                 Metaspace("▁", prepend always), Unigram with <s> <pad> </s>
                 <unk> first and <mask> (lstrip) last, unk_id 3, template
                 "<s> $A </s>" / "<s> $A </s> </s> $B </s>", Metaspace decoder.
  bytefallback.json
                 a byte_fallback Unigram (256 <0xNN> pieces) without a
                 charsmap (identity rule), normalized the way newer
                 converters do (Strip right, Replace(" {2,}" -> "▁")), with a
                 T5-like template "$A </s>" / "$A </s> $B </s>".

Run from the repository root, then gen.py for the golden encodings:

    pip install sentencepiece tokenizers
    python3 tools/tokgolden/genunigram.py
    python3 tools/tokgolden/gen.py
"""

import argparse
import glob
import io
import json
import os

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as spm_pb2
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TESTDATA = os.path.join(ROOT, "tokenizer", "testdata")

# Lines in other scripts and forms, repeated so that their characters make it
# into the vocabulary; what is left out of it exercises the unknown path.
MULTILINGUAL = """
Le café est très chaud ce matin, dit-elle en souriant à l'hôtel près de la gare.
Les élèves étudient la littérature française et l'histoire européenne à l'université.
Der schnelle braune Fuchs springt über den faulen Hund. Größe, Straße und Übung.
Die Suchmaschine findet Dokumente schneller, wenn der Index gut gepflegt ist.
El niño pequeño comió una manzana roja en el jardín. ¿Dónde está la biblioteca?
La búsqueda híbrida combina la recuperación léxica y la densa para mejores resultados.
O menino comeu pão com manteiga e bebeu café com leite na padaria.
Il motore di ricerca restituisce i documenti più pertinenti per ogni domanda.
Привет, как дела? Поисковая система находит документы по смыслу и по словам.
Москва — столица России, а Киев — столица Украины. Ёжик в тумане.
Καλημέρα σας. Η αναζήτηση εγγράφων είναι σημαντική για τους ερευνητές.
مرحبا بالعالم. محرك البحث يجد المستندات ذات الصلة بسرعة كبيرة.
שלום עולם. מנוע החיפוש מוצא מסמכים רלוונטיים במהירות.
नमस्ते दुनिया। खोज इंजन प्रासंगिक दस्तावेज़ों को जल्दी ढूंढता है।
我爱自然语言处理。搜索引擎可以快速找到相关的文档和笔记。今天天气很好。
東京は日本の首都です。検索エンジンは関連する文書をすばやく見つけます。
ひらがなとカタカナと漢字を使って日本語を書きます。コーヒーを飲みましょう。
안녕하세요 세계. 검색 엔진은 관련 문서를 빠르게 찾습니다. 한국어 처리는 재미있다.
สวัสดีครับ เครื่องมือค้นหาช่วยให้เราค้นพบเอกสารที่เกี่ยวข้อง
Xin chào thế giới. Tiếng Việt có nhiều dấu thanh điệu khác nhau.
Merhaba dünya. İstanbul'da hava bugün çok güzel, ışık parlıyor.
Witaj świecie. Łódź i Kraków to piękne miasta w Polsce. Dvořák.
გამარჯობა მსოფლიო. Բարեւ աշխարհ. Сайн байна уу.
Emoji everywhere 🙂 🚀 👍 ❤️ 🍕 — “smart quotes” ‘single’ «guillemets» … naïve façade.
Full-width ＡＢＣ１２３ and ligatures ﬁnance ﬀ and compatibility forms ① ² ½ ㎏ ℃ Ⅻ.
""".strip().splitlines()

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]


def corpus(markdown):
    """The training lines: every markdown file (sorted), then the lines above."""
    lines = []
    for path in sorted(glob.glob(os.path.join(markdown, "**", "*.md"), recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += [l.strip() for l in f if l.strip()]
    lines += MULTILINGUAL * 20
    return lines


def train(lines, **kw):
    """Train a SentencePiece Unigram model in memory and return its ModelProto."""
    spm.set_random_generator_seed(1)
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, model_type="unigram",
        num_threads=1, shuffle_input_sentence=False, input_sentence_size=0,
        max_sentence_length=8192, minloglevel=2, **kw)
    proto = spm_pb2.ModelProto()
    proto.ParseFromString(buf.getvalue())
    return proto


def xlmr(proto):
    """Convert as transformers' XLMRobertaConverter does."""
    vocab = [(t, 0.0) for t in SPECIALS]
    vocab += [(p.piece, p.score) for p in proto.pieces[3:]]
    vocab += [("<mask>", 0.0)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([
        normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in SPECIALS])
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False, special=True)])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)])
    return tok


def bytefallback(proto):
    """A byte_fallback Unigram without a charsmap (Llama-era converter normalizers)."""
    vocab = [(p.piece, p.score) for p in proto.pieces]
    ids = {p: i for i, (p, _) in enumerate(vocab)}
    tok = Tokenizer(models.Unigram(vocab, unk_id=ids["<unk>"], byte_fallback=True))
    tok.normalizer = normalizers.Sequence([
        normalizers.Strip(left=False, right=True),
        normalizers.Replace(Regex(" {2,}"), "▁"),
    ])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")])
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", ids["</s>"])])
    return tok


def write(tok, name):
    path = os.path.join(TESTDATA, name)
    doc = json.loads(tok.to_str())
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {len(doc['model']['vocab'])} pieces, {os.path.getsize(path)} bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", default=os.path.join(ROOT, "..", "shared", "data", "markdown"))
    args = ap.parse_args()
    lines = corpus(args.markdown)
    write(xlmr(train(lines, vocab_size=4000, normalization_rule_name="nmt_nfkc",
                     character_coverage=0.9995)), "xlmr.json")
    write(bytefallback(train(lines, vocab_size=800, normalization_rule_name="identity",
                             character_coverage=0.98, byte_fallback=True)), "bytefallback.json")


if __name__ == "__main__":
    main()
