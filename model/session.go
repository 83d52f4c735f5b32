package model

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/braidsearch/braid/tokenizer"
)

var (
	// ErrDimMismatch means a model's output size is not its Spec's Dim.
	ErrDimMismatch = errors.New("model: embedding dimension mismatch")
)

// DefaultBatchSize is the batch size of a Config that names none.
const DefaultBatchSize = 32

// DefaultTokenBudget is the token budget of a Config that names none.
const DefaultTokenBudget = 512

// GPUBatchSize and GPUTokenBudget are a Config's batch size and token
// budget on CUDA when it names none: a GPU wants large batches, and its
// memory holds them. Not yet tuned by measurement (scripts/gpu-check.sh).
const (
	GPUBatchSize   = 128
	GPUTokenBudget = 32768
)

// feed is what one model input carries.
type feed int

const (
	feedIDs feed = iota
	feedMask
	feedTypes
)

var feedNames = map[string]feed{
	"input_ids":      feedIDs,
	"attention_mask": feedMask,
	"token_type_ids": feedTypes,
}

// session runs one BERT-shaped ONNX model: int64 inputs input_ids,
// attention_mask and optionally token_type_ids, all [batch, sequence], and
// one float output. It is safe for concurrent use; runs are serialised,
// since ONNX Runtime already spreads one run over the intra-op threads.
type session struct {
	path   string
	feeds  []feed // model inputs, in the order they are passed
	output string
	// outDims is the output's declared shape; dynamic axes are -1.
	outDims []int64
	batch   int
	budget  int    // padded tokens per batch; 0 for none
	choice  Choice // the device it runs on

	mu     sync.Mutex
	s      *ort.DynamicAdvancedSession // nil once closed
	mapped []byte                      // the cached graph s runs on, unmapped after it (optcache.go)
}

// openSession loads the ONNX model at path and reads its output named want,
// or its first output when it has none of that name.
func openSession(path, want string, cfg Config) (*session, error) {
	if err := checkRuntime(); err != nil {
		return nil, err
	}
	if cfg.Threads < 0 {
		return nil, fmt.Errorf("model: threads %d out of range, want >= 0", cfg.Threads)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("model: batch size %d out of range, want >= 0", cfg.BatchSize)
	}
	threads := threadsOf(cfg)
	if cfg.TokenBudget < -1 {
		return nil, fmt.Errorf("model: token budget %d out of range, want >= 0 or -1 for none", cfg.TokenBudget)
	}
	choice, err := Choose(cfg.Device)
	if err != nil {
		return nil, err
	}

	ins, outs, err := inspect(path)
	if err != nil {
		return nil, err
	}
	s := &session{path: path}
	names := make([]string, 0, len(ins))
	seen := map[feed]bool{}
	for _, in := range ins {
		f, ok := feedNames[in.Name]
		if !ok {
			return nil, fmt.Errorf("model: %s has input %q, want only input_ids, attention_mask and token_type_ids (a BERT-shaped export)", path, in.Name)
		}
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return nil, fmt.Errorf("model: %s input %s is %s, want int64", path, in.Name, in.DataType)
		}
		seen[f] = true
		s.feeds = append(s.feeds, f)
		names = append(names, in.Name)
	}
	if !seen[feedIDs] || !seen[feedMask] {
		return nil, fmt.Errorf("model: %s lacks input input_ids or attention_mask (has %s)", path, strings.Join(names, ", "))
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("model: %s has no outputs", path)
	}
	out := outs[0]
	for _, o := range outs {
		if o.Name == want {
			out = o
			break
		}
	}
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat {
		return nil, fmt.Errorf("model: %s output %s is %s, want a float32 tensor", path, out.Name, out.String())
	}
	s.output = out.Name
	s.outDims = slices.Clone([]int64(out.Dimensions))

	s.choice = choice
	s.s, s.mapped, err = create(path, names, []string{s.output}, threads, cfg.OneShot, choice.Device)
	if err != nil && choice.Device.Kind == DeviceCUDA && choice.Asked.Kind == DeviceAuto {
		// The device took the probe but not this model (out of memory, an
		// operator the provider lacks): auto runs it on the CPU.
		s.choice = Choice{Device: Device{Kind: DeviceCPU}, Asked: choice.Asked,
			Reason: "the CUDA session failed: " + clip(cudaFailure(err), 90)}
		s.s, s.mapped, err = create(path, names, []string{s.output}, threads, cfg.OneShot, s.choice.Device)
	}
	if err != nil {
		return nil, fmt.Errorf("model: load %s: %w", path, err)
	}
	s.batch, s.budget = batchFor(cfg, s.choice.Device)
	return s, nil
}

// threadsOf is the intra-op threads cfg asks for: cfg.Threads, or every
// CPU when that is zero.
func threadsOf(cfg Config) int {
	if cfg.Threads > 0 {
		return cfg.Threads
	}
	return runtime.NumCPU()
}

// batchFor is the batch size and token budget (0 for none) of a session
// with cfg on dev: what cfg says, else on the CPU DefaultBatchSize and
// DefaultTokenBudget (or the cross-encoder's CrossBatch and
// CrossTokenBudget), and on CUDA
// GPUBatchSize and GPUTokenBudget.
func batchFor(cfg Config, dev Device) (batch, budget int) {
	batch, budget = cfg.BatchSize, cfg.TokenBudget
	gpu := dev.Kind == DeviceCUDA
	switch {
	case batch > 0:
	case gpu:
		batch = GPUBatchSize
	case cfg.cpuBatch > 0:
		batch = cfg.cpuBatch
	default:
		batch = DefaultBatchSize
	}
	switch {
	case budget == -1:
		budget = 0
	case budget > 0:
	case gpu:
		budget = GPUTokenBudget
	case cfg.cpuBudget > 0:
		budget = cfg.cpuBudget
	default:
		budget = DefaultTokenBudget
	}
	return batch, budget
}

// create makes the ONNX Runtime session for the model at path on dev (cpu
// or cuda:N). On the CPU it goes through the cache of optimised graphs
// (optcache.go); on CUDA it optimises afresh, since a graph optimised for
// one execution provider may hold nodes only that provider runs, and
// loads model-fp16.onnx in place of model.onnx when one lies beside it
// (FP16File).
func create(path string, inputs, outputs []string, threads int, oneShot bool, dev Device) (*ort.DynamicAdvancedSession, []byte, error) {
	opts, err := sessionOptions(threads, oneShot)
	if err != nil {
		return nil, nil, err
	}
	defer opts.Destroy()
	if dev.Kind != DeviceCUDA {
		return newSession(path, inputs, outputs, opts)
	}
	if err := appendCUDA(opts, dev.ID, RuntimePath()); err != nil {
		return nil, nil, err
	}
	if half := FP16File(path); isFile(half) {
		path = half
	}
	s, err := ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	return s, nil, err
}

// sessionOptions are the options every session starts from: threads
// intra-op threads, one inter-op thread, every graph optimisation. Idle
// intra-op threads block instead of spinning: on a busy machine spinning
// workers steal the CPU the others need (on two shared cores a query took
// 2-3x longer with it), and between queries they would burn CPU for
// nothing. With oneShot (Config.OneShot) the weights are not prepacked.
// Destroy them when done.
func sessionOptions(threads int, oneShot bool) (*ort.SessionOptions, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("model: session options: %w", err)
	}
	for _, set := range []func() error{
		func() error { return opts.SetIntraOpNumThreads(threads) },
		func() error { return opts.SetInterOpNumThreads(1) },
		func() error { return opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0") },
		func() error { return opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll) },
		func() error {
			if !oneShot {
				return nil
			}
			return opts.AddSessionConfigEntry("session.disable_prepacking", "1")
		},
	} {
		if err := set(); err != nil {
			opts.Destroy()
			return nil, fmt.Errorf("model: session options: %w", err)
		}
	}
	return opts, nil
}

// FP16File is where the half-precision copy of the model at path lies
// (model-fp16.onnx beside model.onnx), which sessions on CUDA load in its
// place when it exists. Its inputs and outputs keep their types (int64
// in, float32 out); tools/fp16 converts one (`make ort-gpu` does so
// for the default embedder).
func FP16File(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-fp16" + ext
}

// inspect returns a model's inputs and outputs. It builds a throwaway
// session without graph optimisation, which is cheap next to the real one.
func inspect(path string) (ins, outs []ort.InputOutputInfo, err error) {
	if ins, outs, err := readIO(path); err == nil && len(ins) > 0 && len(outs) > 0 && knownInputs(ins) {
		return ins, outs, nil
	}
	// Anything unusual (initializers listed as inputs, a damaged file):
	// let ONNX Runtime say what the model takes.
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, fmt.Errorf("model: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, fmt.Errorf("model: session options: %w", err)
	}
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return nil, nil, fmt.Errorf("model: session options: %w", err)
	}
	ins, outs, err = ort.GetInputOutputInfoWithOptions(path, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("model: read %s: %w", path, err)
	}
	return ins, outs, nil
}

// output is one batch's result: data is the flattened output, shape its
// dimensions, and rows[j] the caller's index of the batch's j-th input.
type output struct {
	data  []float32
	shape []int64
	rows  []int
	encs  []tokenizer.Encoding
}

// runAll runs encs through the model in batches and hands each batch's
// output to each. Inputs are sorted by length so that a batch, padded only
// to its own longest input, carries little padding; out.rows maps rows back
// to the caller's order. ctx is checked before every batch.
func (s *session) runAll(ctx context.Context, encs []tokenizer.Encoding, pad int64, each func(out output) error) error {
	for _, rows := range batches(encs, s.batch, s.budget) {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := make([]tokenizer.Encoding, len(rows))
		for j, i := range rows {
			b[j] = encs[i]
		}
		data, shape, err := s.run(b, pad)
		if err != nil {
			return err
		}
		if err := each(output{data: data, shape: shape, rows: rows, encs: b}); err != nil {
			return err
		}
	}
	return nil
}

// batches returns the indexes of encs, longest input first, cut into
// batches of at most size inputs and, when budget > 0, at most budget
// padded tokens: each batch is padded to its first (longest) input, so it
// holds n inputs while n times that length fits the budget, and a batch of
// long inputs is short.
func batches(encs []tokenizer.Encoding, size, budget int) [][]int {
	order := make([]int, len(encs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(encs[b].IDs) - len(encs[a].IDs) })
	var out [][]int
	for len(order) > 0 {
		n := min(size, len(order))
		if longest := len(encs[order[0]].IDs); budget > 0 && longest > 0 {
			n = max(1, min(n, budget/longest))
		}
		out = append(out, order[:n:n])
		order = order[n:]
	}
	return out
}

// run pads batch to its longest input and runs the model once.
func (s *session) run(batch []tokenizer.Encoding, pad int64) ([]float32, []int64, error) {
	seq := 0
	for _, e := range batch {
		if len(e.IDs) == 0 {
			return nil, nil, fmt.Errorf("model: empty encoding (the tokenizer adds [CLS] and [SEP], so this is a bug)")
		}
		seq = max(seq, len(e.IDs))
	}
	n := len(batch) * seq
	ids := make([]int64, n)
	mask := make([]int64, n)
	types := make([]int64, n)
	for j, e := range batch {
		row := j * seq
		for k := range seq {
			ids[row+k] = pad
		}
		copy(ids[row:], e.IDs)
		if len(e.Mask) == len(e.IDs) {
			copy(mask[row:], e.Mask)
		} else {
			for k := range e.IDs {
				mask[row+k] = 1
			}
		}
		if len(e.TypeIDs) == len(e.IDs) {
			copy(types[row:], e.TypeIDs)
		}
	}
	shape := ort.NewShape(int64(len(batch)), int64(seq))
	inputs := make([]ort.Value, len(s.feeds))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, f := range s.feeds {
		data := ids
		switch f {
		case feedMask:
			data = mask
		case feedTypes:
			data = types
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, nil, fmt.Errorf("model: input tensor: %w", err)
		}
		inputs[i] = t
	}
	outputs := []ort.Value{nil}

	s.mu.Lock()
	if s.s == nil {
		s.mu.Unlock()
		return nil, nil, fmt.Errorf("model: %s: session closed", s.path)
	}
	err := s.s.Run(inputs, outputs)
	s.mu.Unlock()
	if err != nil {
		return nil, nil, fmt.Errorf("model: run %s: %w", s.path, err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("model: %s output %s is not a float32 tensor", s.path, s.output)
	}
	// GetData is a Go-owned copy of ONNX Runtime's buffer; it stays valid
	// after Destroy.
	return t.GetData(), slices.Clone([]int64(t.GetShape())), nil
}

// close releases the ONNX Runtime session; runs after it fail.
func (s *session) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	if s.mapped != nil {
		syscall.Munmap(s.mapped)
		s.mapped = nil
	}
	return err
}

// DefaultMaxLen is the token limit of a Spec that names none.
const DefaultMaxLen = 512

// Names of the files a model directory holds.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
)

// openDir checks that dir holds a model's files, loads its tokenizer and
// opens a session reading the output named want.
func openDir(dir string, spec Spec, cfg Config, want string) (*tokenizer.Tokenizer, *session, error) {
	modelPath := spec.ModelPath(dir)
	tokPath := spec.TokenizerPath(dir)
	for _, p := range []string{modelPath, tokPath} {
		if !isFile(p) {
			return nil, nil, fmt.Errorf("%w: %s is missing (fetch the model with model.Pull %s)", ErrNoModel, p, spec.ID())
		}
	}
	if spec.MaxLen < 0 {
		return nil, nil, fmt.Errorf("model: %s: max length %d out of range, want >= 0", spec.ID(), spec.MaxLen)
	}
	// The tokenizer (30 ms of JSON for bge-small) loads while ONNX Runtime
	// builds the session (70 ms): a fresh search process waits for the
	// longer of the two only.
	type loaded struct {
		tok *tokenizer.Tokenizer
		err error
	}
	tc := make(chan loaded, 1)
	go func() {
		tok, err := tokenizer.Load(tokPath)
		tc <- loaded{tok, err}
	}()
	s, err := openSession(modelPath, want, cfg)
	lt := <-tc
	if err == nil && lt.err != nil {
		s.close()
		err = fmt.Errorf("model: load %s: %w", tokPath, lt.err)
	}
	if err != nil {
		return nil, nil, err
	}
	return lt.tok, s, nil
}

// knownInputs reports whether every input is one a BERT session feeds.
func knownInputs(ins []ort.InputOutputInfo) bool {
	for _, in := range ins {
		if _, ok := feedNames[in.Name]; !ok {
			return false
		}
	}
	return true
}

// maxLen is spec's token limit, DefaultMaxLen when unset.
func maxLen(spec Spec) int {
	if spec.MaxLen == 0 {
		return DefaultMaxLen
	}
	return spec.MaxLen
}
