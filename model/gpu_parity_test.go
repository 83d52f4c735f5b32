package model

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestGPUParity embeds the same texts on the CPU and on CUDA device 0 in
// one process (the GPU build of ONNX Runtime runs both) and fails when a
// pair of vectors has cosine below 0.999. It runs only with
// BRAID_GPU_PARITY=1 (scripts/gpu-check.sh sets it, with BRAID_ORT_LIB
// naming the GPU build): the model is BRAID_PARITY_MODEL (default the fp32
// bge-small in the models directory, whose model-fp16.onnx CUDA loads when
// make ort-gpu made one), the texts the first 256 of BRAID_PARITY_CORPUS
// (a BEIR corpus.jsonl) or made-up ones.
func TestGPUParity(t *testing.T) {
	if os.Getenv("BRAID_GPU_PARITY") != "1" {
		t.Skip("BRAID_GPU_PARITY=1 runs it on a machine with a GPU (scripts/gpu-check.sh)")
	}
	needRuntime(t)
	dir, spec, err := ResolveKind("BAAI/bge-small-en-v1.5", ModelsDir(""), KindEmbedder)
	if p := os.Getenv("BRAID_PARITY_MODEL"); p != "" {
		dir, spec, err = ResolveKind(p, ModelsDir(""), KindEmbedder)
	}
	if err != nil {
		t.Fatalf("%v (make models pulls the fp32 bge-small, or set BRAID_PARITY_MODEL to a model directory)", err)
	}
	texts := parityTexts(t, 256)

	embed := func(dev Device) [][]float32 {
		e, err := LoadEmbedder(context.Background(), dir, spec, Config{Device: dev})
		if err != nil {
			t.Fatalf("load on %s: %v", dev, err)
		}
		defer e.Close()
		t.Logf("%s: %s", dev, e.Device())
		v, err := e.Embed(context.Background(), texts, false)
		if err != nil {
			t.Fatalf("embed on %s: %v", dev, err)
		}
		return v
	}
	cpu := embed(Device{Kind: DeviceCPU})
	gpu := embed(Device{Kind: DeviceCUDA})
	worst, sum := 1.0, 0.0
	for i := range cpu {
		c := cosine(cpu[i], gpu[i])
		worst, sum = math.Min(worst, c), sum+c
	}
	half := isFile(FP16File(filepath.Join(dir, ModelFile)))
	t.Logf("%d texts, fp16 on the GPU: %v; cosine GPU against CPU: worst %.6f, mean %.6f", len(texts), half, worst, sum/float64(len(cpu)))
	if worst < 0.999 {
		t.Errorf("worst cosine %.6f, want >= 0.999", worst)
	}
}

func parityTexts(t *testing.T, n int) []string {
	var texts []string
	if p := os.Getenv("BRAID_PARITY_CORPUS"); p != "" {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() && len(texts) < n {
			var doc struct{ Title, Text string }
			if json.Unmarshal(sc.Bytes(), &doc) == nil && doc.Text != "" {
				texts = append(texts, doc.Title+"\n"+doc.Text)
			}
		}
	}
	for i := 0; len(texts) < n; i++ {
		texts = append(texts, fmt.Sprintf("note %d: how the index keeps its vectors, links and %d headings current", i, i%7))
	}
	return texts
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}
