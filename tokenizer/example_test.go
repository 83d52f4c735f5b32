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
	_, err := tokenizer.Parse([]byte(`{"model": {"type": "Unigram", "vocab": [["<unk>", 0]]}}`))
	fmt.Println(err)
	// Output:
	// tokenizer: unsupported tokenizer.json: model type "Unigram" (only BERT WordPiece tokenizers are supported)
}
