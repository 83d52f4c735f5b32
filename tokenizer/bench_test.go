package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
)

// benchParagraph is about 2 KB of plain English.
const benchParagraph = `Hybrid search engines combine two complementary ways of finding documents. ` +
	`Lexical retrieval, usually BM25, scores a document by how often the query's exact terms occur in it, ` +
	`weighted by how rare those terms are across the collection; it is fast, explainable and excellent at ` +
	`names, identifiers and error messages. Dense retrieval embeds the query and every passage into vectors ` +
	`with a neural encoder and ranks passages by cosine similarity, so it finds text that means the same thing ` +
	`in different words. Neither is best everywhere: a question about "reciprocal rank fusion" should match the ` +
	`note that spells it out, while a question about "merging ranked lists" should find that note as well. ` +
	`A hybrid engine runs both retrievers, normalizes or ranks their scores, and fuses the lists, for example ` +
	`with a weighted sum or with reciprocal rank fusion, which adds one over sixty plus the rank from each list. ` +
	`Optionally, a cross-encoder reranks the top fifty candidates by reading the query and the passage together. ` +
	`All of this depends on the tokenizer: the encoder was trained on token ids produced by a particular ` +
	`WordPiece vocabulary, with particular rules for lowercasing, accents, punctuation and Chinese characters, ` +
	`and any difference, however small, shifts the embeddings away from what the model learned. That is why ` +
	`the tokenizer is tested against the reference implementation, token by token, on English prose, code, ` +
	`markdown, URLs, e-mail addresses, emoji and a dozen scripts. Speed matters too, because indexing a vault ` +
	`of ten thousand notes means tokenizing tens of megabytes of text before the first vector is computed, and ` +
	`every query is tokenized again at search time, where each millisecond is visible to the person waiting.`

func BenchmarkEncode(b *testing.B) {
	tok := loadModel(b, goldenModels[0])
	benchSizes(b, tok)
	b.Run("2KB/maxLen512", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchParagraph)))
		for b.Loop() {
			tok.Encode(benchParagraph, 512)
		}
	})
	b.Run("pair/maxLen512", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchParagraph)) + 40)
		for b.Loop() {
			tok.EncodePair("what does reciprocal rank fusion do?", benchParagraph, 512)
		}
	})
}

// benchSizes encodes benchParagraph repeated to 2, 20 and 200 KB.
func benchSizes(b *testing.B, tok *Tokenizer) {
	for _, size := range []struct {
		name  string
		times int
	}{{"2KB", 1}, {"20KB", 10}, {"200KB", 100}} {
		text := strings.Repeat(benchParagraph+" ", size.times)
		b.Run(size.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var n int
			for b.Loop() {
				n = len(tok.Encode(text, 0).IDs)
			}
			b.ReportMetric(float64(n), "tokens/op")
		})
	}
}

func BenchmarkEncodeMultilingual(b *testing.B) {
	tok := loadModel(b, goldenModels[0])
	text := strings.Repeat("Café naïve Ångström Straße. 東京は日本の首都です。안녕하세요 세계! Привет, мир! Καλημέρα κόσμε. ", 20)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Encode(text, 0)
	}
}

// BenchmarkLoad reads and parses each golden tokenizer.json: the real BERT ones
// (about 700 KB, a 30k WordPiece vocab) and the Unigram fixtures. A fresh
// search process pays this once, beside the ONNX session's creation.
func BenchmarkLoad(b *testing.B) {
	for _, name := range append(slices.Clone(goldenModels), goldenFixtures...) {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join("testdata", name+".json")
			if !slices.Contains(goldenFixtures, name) {
				path = testdata.Models(b, filepath.Join("tokenizers", name, "tokenizer.json"))
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := Load(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
