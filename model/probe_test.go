package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// The probe's generated models must load in ONNX Runtime and compute the
// product, checked here against Go on small shapes. For the int8 model the
// activations are whole numbers from 0 to 255, both ends included, so
// that DynamicQuantizeLinear quantizes them exactly (scale 1, zero point
// 0) and the product is exact in float32; the weights stay within ±64, so
// that AVX2's u8×s8 kernel, which adds pairs of products in 16 bits and
// saturates there, cannot clip them.
func TestProbeModels(t *testing.T) {
	needRuntime(t)
	const rows, k, n = 3, 7, 5
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, rows*k)
	for i := range a {
		a[i] = float32(rng.IntN(256))
	}
	a[0], a[1] = 0, 255
	bf := make([]float32, k*n)
	bi := make([]int8, k*n)
	for i := range bf {
		bi[i] = int8(rng.IntN(128) - 64)
		bf[i] = float32(bi[i]) / 8
	}
	const scale = 0.125 // the int8 matrix times its scale is bf
	for _, c := range []struct {
		name string
		onnx []byte
	}{
		{"fp32 MatMul", matMulModel(k, n, bf)},
		{"int8 DynamicQuantizeMatMul", int8MatMulModel(k, n, bi, scale)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := probeSession(c.onnx, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Destroy()
			b, err := bind(s, a, rows, n)
			if err != nil {
				t.Fatal(err)
			}
			defer b.destroy()
			if err := b.run(); err != nil {
				t.Fatal(err)
			}
			got := b.y.GetData()
			for i := range rows {
				for j := range n {
					var want float64
					for l := range k {
						want += float64(a[i*k+l]) * float64(bf[l*n+j])
					}
					if g := float64(got[i*n+j]); math.Abs(g-want) > 1e-3*max(1, math.Abs(want)) {
						t.Errorf("y[%d][%d] = %v, want %v", i, j, g, want)
					}
				}
			}
		})
	}
}

func TestProbePeak(t *testing.T) {
	needRuntime(t)
	p, err := ProbePeak(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Threads != 1 || p.FP32 <= 0 || p.Int8 <= 0 || p.FP32Small <= 0 || p.Int8Small <= 0 {
		t.Errorf("peak %+v, want 1 thread and every rate > 0", p)
	}
	t.Logf("%+v", p)
	if _, err := ProbePeak(context.Background(), -1); err == nil {
		t.Error("-1 threads gave no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ProbePeak(ctx, 1); err == nil {
		t.Error("a cancelled probe gave no error")
	}
}
