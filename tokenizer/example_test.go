package tokenizer_test

import (
	"fmt"

	"github.com/braidsearch/braid/tokenizer"
)

func Example() {
	// testdata/tiny.json is a toy BERT tokenizer with a 20-token vocabulary.
	tok, err := tokenizer.Load("testdata/tiny.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.Tokens("Hello, worlds! Unaffable café [MASK]"))
	enc := tok.EncodePair("hello", "search engines", 0)
	fmt.Println(enc.IDs, enc.TypeIDs)
	fmt.Println(tok.Encode("hello world hello world", 4).IDs)
	// Output:
	// [hello , world ##s ! un ##aff ##able cafe [MASK]]
	// [2 5 3 16 18 7 3] [0 0 0 1 1 1 1]
	// [2 5 6 3]
}

func ExampleParse_unsupported() {
	_, err := tokenizer.Parse([]byte(`{"model": {"type": "BPE", "vocab": {}, "merges": []}}`))
	fmt.Println(err)
	// Output:
	// tokenizer: unsupported tokenizer.json: model type "BPE" (want WordPiece or Unigram)
}

func Example_unigram() {
	// testdata/xlmr.json is a small SentencePiece Unigram tokenizer shaped
	// like XLM-RoBERTa's (BAAI/bge-reranker-base): nmt_nfkc normalization,
	// Metaspace, <s> A </s></s> B </s>.
	tok, err := tokenizer.Load("testdata/xlmr.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.Tokens("Ｈello   wörld, the <mask> ﬁnds it"))
	enc := tok.EncodePair("search", "hybrid search", 0)
	fmt.Println(enc.IDs, enc.TypeIDs)
	text, _ := tok.Decode(enc.IDs)
	fmt.Println(text)
	// Output:
	// [▁ Hello ▁ w ö r l d , ▁the <mask> ▁find s ▁it]
	// [0 898 2 2 953 65 2894 898 2] [0 0 0 0 0 0 0 0 0]
	// search hybrid search
}
