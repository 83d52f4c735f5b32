package model

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"
)

// Peak is the arithmetic rate ONNX Runtime reaches on this machine in the
// product transformers are made of: activations [rows, 384] by a stored
// weight matrix [384, 1536] (bge-small's feed-forward layer), in fp32
// (MatMul) and in int8 (com.microsoft DynamicQuantizeMatMul, which an int8
// model's MatMulInteger runs as once ONNX Runtime has fused it), on Threads
// intra-op threads. Rates are GFLOP/s, 2·rows·384·1536 operations a call.
type Peak struct {
	Threads int `json:"threads"`
	// FP32 and Int8 are at 512 rows (a batch's worth of tokens): the peak.
	FP32 float64 `json:"fp32_gflops"`
	Int8 float64 `json:"int8_gflops"`
	// FP32Small and Int8Small are at 24 rows, a query's tokens: what one
	// small input can reach.
	FP32Small float64 `json:"fp32_small_gflops"`
	Int8Small float64 `json:"int8_small_gflops"`
}

// The probe's shapes and how long each of its four products is timed.
const (
	probeK, probeN       = 384, 1536
	probeRows, probeFew  = 512, 24
	probeTime            = 200 * time.Millisecond
	probeMinRuns         = 5
	onnxFloat, onnxInt8  = 1, 3 // TensorProto.DataType
	onnxIR, onnxOpset    = 8, 14
	onnxMicrosoftVersion = 1
)

// ProbePeak measures the Peak on threads intra-op threads (0: one per
// CPU), with the session options braid's models run with: each product is
// run for about 200 ms and its fastest call counted, so a whole probe
// takes about a second. InitRuntime must have succeeded first.
func ProbePeak(ctx context.Context, threads int) (Peak, error) {
	if err := checkRuntime(); err != nil {
		return Peak{}, err
	}
	if threads < 0 {
		return Peak{}, fmt.Errorf("model: probe threads %d out of range, want >= 0", threads)
	}
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	rng := rand.New(rand.NewPCG(48, 1))
	f32 := make([]float32, probeK*probeN)
	for i := range f32 {
		f32[i] = rng.Float32() - 0.5
	}
	i8 := make([]int8, probeK*probeN)
	for i := range i8 {
		i8[i] = int8(rng.IntN(256) - 128)
	}
	p := Peak{Threads: threads}
	for _, m := range []struct {
		onnx      []byte
		peak, few *float64
	}{
		{matMulModel(probeK, probeN, f32), &p.FP32, &p.FP32Small},
		{int8MatMulModel(probeK, probeN, i8, 0.01), &p.Int8, &p.Int8Small},
	} {
		s, err := probeSession(m.onnx, threads)
		if err != nil {
			return Peak{}, err
		}
		*m.peak, err = matMulRate(ctx, s, probeRows, rng)
		if err == nil {
			*m.few, err = matMulRate(ctx, s, probeFew, rng)
		}
		s.Destroy()
		if err != nil {
			return Peak{}, err
		}
	}
	return p, nil
}

// probeSession opens a probe model as create opens braid's models on the
// CPU.
func probeSession(onnx []byte, threads int) (*ort.DynamicAdvancedSession, error) {
	opts, err := sessionOptions(threads, false)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(onnx, []string{"a"}, []string{"y"}, opts)
	if err != nil {
		return nil, fmt.Errorf("model: load the matmul probe: %w", err)
	}
	return s, nil
}

// matMulRate runs the probe s on random activations [rows, probeK] for
// probeTime, and at least probeMinRuns times, and returns the rate of its
// fastest call in GFLOP/s.
func matMulRate(ctx context.Context, s *ort.DynamicAdvancedSession, rows int, rng *rand.Rand) (float64, error) {
	a := make([]float32, rows*probeK)
	for i := range a {
		a[i] = rng.Float32()*2 - 1
	}
	r, err := bind(s, a, rows, probeN)
	if err != nil {
		return 0, err
	}
	defer r.destroy()
	best := time.Duration(math.MaxInt64)
	for i, start := 0, time.Now(); i < probeMinRuns || time.Since(start) < probeTime; i++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := r.run(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0))
	}
	return 2 * float64(rows) * probeK * probeN / best.Seconds() / 1e9, nil
}

// bound is a probe session with its input a [rows, k] and output y
// [rows, n] bound once, so that a call allocates nothing.
type bound struct {
	s    *ort.DynamicAdvancedSession
	a, y *ort.Tensor[float32]
}

func bind(s *ort.DynamicAdvancedSession, a []float32, rows, n int) (*bound, error) {
	at, err := ort.NewTensor(ort.NewShape(int64(rows), int64(len(a)/rows)), a)
	if err != nil {
		return nil, fmt.Errorf("model: probe input: %w", err)
	}
	yt, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(n)))
	if err != nil {
		at.Destroy()
		return nil, fmt.Errorf("model: probe output: %w", err)
	}
	return &bound{s: s, a: at, y: yt}, nil
}

func (b *bound) run() error {
	if err := b.s.Run([]ort.Value{b.a}, []ort.Value{b.y}); err != nil {
		return fmt.Errorf("model: run the matmul probe: %w", err)
	}
	return nil
}

func (b *bound) destroy() {
	b.a.Destroy()
	b.y.Destroy()
}

// matMulModel is an ONNX model of one MatMul: the input a [rows, k] by the
// stored fp32 matrix b [k, n] (row-major) is y [rows, n].
func matMulModel(k, n int, b []float32) []byte {
	raw := make([]byte, 0, 4*len(b))
	for _, x := range b {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return onnxModel("MatMul", "", k, n, tensorProto("b", onnxFloat, []int64{int64(k), int64(n)}, raw))
}

// int8MatMulModel is an ONNX model of one com.microsoft
// DynamicQuantizeMatMul: the input a [rows, k], quantized to uint8 as it
// comes, by the stored int8 matrix b [k, n] with the one scale scale (zero
// point 0) is y [rows, n].
func int8MatMulModel(k, n int, b []int8, scale float32) []byte {
	raw := make([]byte, len(b))
	for i, x := range b {
		raw[i] = byte(x)
	}
	return onnxModel("DynamicQuantizeMatMul", "com.microsoft", k, n,
		tensorProto("b", onnxInt8, []int64{int64(k), int64(n)}, raw),
		tensorProto("b_scale", onnxFloat, nil, binary.LittleEndian.AppendUint32(nil, math.Float32bits(scale))))
}

// onnxModel encodes a ModelProto of one node op (of domain) taking the
// input a (float [rows, k]) and then the initializers inits, in that
// order, and putting out y (float [rows, n]); rows is left symbolic.
func onnxModel(op, domain string, k, n int, inits ...[]byte) []byte {
	node := appendString(nil, 1, "a") // NodeProto: 1 input, 2 output, 4 op_type, 7 domain
	var graph []byte                  // GraphProto: 1 node, 2 name, 5 initializer, 11 input, 12 output
	for _, t := range inits {
		node = appendString(node, 1, tensorName(t))
		graph = appendBytes(graph, 5, t)
	}
	node = appendString(appendString(node, 2, "y"), 4, op)
	if domain != "" {
		node = appendString(node, 7, domain)
	}
	graph = append(appendBytes(nil, 1, node), graph...)
	graph = appendString(graph, 2, "probe")
	graph = appendBytes(graph, 11, floatMatrix("a", k))
	graph = appendBytes(graph, 12, floatMatrix("y", n))
	model := appendVarint(nil, 1, onnxIR) // ModelProto: 1 ir_version, 7 graph, 8 opset_import
	model = appendBytes(model, 7, graph)
	model = appendBytes(model, 8, opset("", onnxOpset))
	if domain != "" {
		model = appendBytes(model, 8, opset(domain, onnxMicrosoftVersion))
	}
	return model
}

// tensorProto encodes a TensorProto: 1 dims, 2 data_type, 8 name,
// 9 raw_data.
func tensorProto(name string, dataType int, dims []int64, raw []byte) []byte {
	var b []byte
	for _, d := range dims {
		b = appendVarint(b, 1, uint64(d))
	}
	b = appendVarint(b, 2, uint64(dataType))
	b = appendString(b, 8, name)
	return appendBytes(b, 9, raw)
}

// tensorName reads back the name tensorProto wrote.
func tensorName(t []byte) string {
	var name string
	fields(t, func(f int, _ uint64, sub []byte) error {
		if f == 8 {
			name = string(sub)
		}
		return nil
	})
	return name
}

// floatMatrix encodes the ValueInfoProto of a float tensor [rows, cols]:
// 1 name, 2 type → 1 tensor_type → 1 elem_type, 2 shape → 1 dim →
// 1 dim_value | 2 dim_param.
func floatMatrix(name string, cols int) []byte {
	shape := appendBytes(nil, 1, appendString(nil, 2, "rows"))
	shape = appendBytes(shape, 1, appendVarint(nil, 1, uint64(cols)))
	tensor := appendBytes(appendVarint(nil, 1, onnxFloat), 2, shape)
	return appendBytes(appendString(nil, 1, name), 2, appendBytes(nil, 1, tensor))
}

// opset encodes an OperatorSetIdProto: 1 domain, 2 version.
func opset(domain string, version uint64) []byte {
	return appendVarint(appendString(nil, 1, domain), 2, version)
}

func appendBytes(b []byte, field protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, field, protowire.BytesType), v)
}

func appendString(b []byte, field protowire.Number, v string) []byte {
	return protowire.AppendString(protowire.AppendTag(b, field, protowire.BytesType), v)
}

func appendVarint(b []byte, field protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, field, protowire.VarintType), v)
}
