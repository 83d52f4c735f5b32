package model

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/braidsearch/braid/internal/testenv"
)

// readIO must agree with ONNX Runtime on every model at hand.
func TestReadIOMatchesRuntime(t *testing.T) {
	needRuntime(t)
	paths := []string{filepath.Join(tinyEncoder, ModelFile), filepath.Join(tinyCross, ModelFile)}
	if cache, err := os.UserCacheDir(); err == nil {
		more := testenv.Must1(filepath.Glob(filepath.Join(cache, "braid", "models", "*", ModelFile)))(t)
		paths = append(paths, more...)
	}
	for _, p := range paths {
		ins, outs, err := readIO(p)
		if err != nil {
			t.Fatalf("readIO(%s): %v", p, err)
		}
		wantIns, wantOuts, err := ort.GetInputOutputInfo(p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(wantIns, ins); d != "" {
			t.Errorf("%s inputs (-runtime +readIO):\n%s", p, d)
		}
		if d := cmp.Diff(wantOuts, outs); d != "" {
			t.Errorf("%s outputs (-runtime +readIO):\n%s", p, d)
		}
	}
	if _, _, err := readIO(filepath.Join(tinyEncoder, TokenizerFile)); err == nil {
		t.Error("readIO of a JSON file succeeded")
	}
}

func FuzzReadIO(f *testing.F) {
	model, err := os.ReadFile(filepath.Join(tinyEncoder, ModelFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(model[:2048])
	f.Add([]byte{0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "m.onnx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readIO(p) // must not panic or hang
	})
}

// FLOPsPerToken counts the weight matrices a token is multiplied by: for
// tools/genmodel's tiny preset (2 layers, hidden 8, intermediate 16) that
// is 2 × 2 × (4·8·8 + 2·8·16), with the embedding tables and the int64
// position ids left out; bge-small's 12 layers of 384 × 384 and 384 × 1536
// matrices give the same count whether stored in fp32 or int8.
func TestFLOPsPerToken(t *testing.T) {
	got, err := FLOPsPerToken(filepath.Join(tinyEncoder, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * 2 * (4*8*8 + 2*8*16)); got != want {
		t.Errorf("tiny encoder: %d FLOPs per token, want %d", got, want)
	}
	const bgeSmall = 2 * 12 * (4*384*384 + 2*384*1536)
	for _, p := range installedBgeSmall() { // none installed: the tiny model above still ran
		if got, err := FLOPsPerToken(p); err != nil || got != bgeSmall {
			t.Errorf("%s: %d FLOPs per token (%v), want %d", p, got, err, bgeSmall)
		}
	}
	if _, err := FLOPsPerToken(filepath.Join(t.TempDir(), "none.onnx")); err == nil {
		t.Error("a missing file gave no error")
	}
}

// ReadCost finds the attention layers and their width beside the weight
// matrices: the tiny models have 2 layers of width 8, bge-small 12 of 384.
func TestReadCost(t *testing.T) {
	for _, dir := range []string{tinyEncoder, tinyCross} {
		p := filepath.Join(dir, ModelFile)
		c, err := ReadCost(p)
		if err != nil {
			t.Fatal(err)
		}
		perToken, _ := FLOPsPerToken(p)
		if c.Layers != 2 || c.Hidden != 8 || c.PerToken != perToken {
			t.Errorf("%s: cost %+v, want 2 layers of width 8 and %d FLOPs per token", dir, c, perToken)
		}
		// 10 tokens: the weights once a token, attention's two products
		// per pair of tokens in each layer.
		if got, want := c.FLOPs(10), float64(10*perToken+2*2*2*8*10*10); got != want {
			t.Errorf("%s: %v FLOPs for 10 tokens, want %v", dir, got, want)
		}
	}
	for _, p := range installedBgeSmall() {
		if c, err := ReadCost(p); err != nil || c.Layers != 12 || c.Hidden != 384 {
			t.Errorf("%s: cost %+v (%v), want 12 layers of width 384", p, c, err)
		}
	}
}

// installedBgeSmall are the model files of the bge-small variants (fp32,
// int8) pulled into the user cache.
func installedBgeSmall() []string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, dir := range []string{"BAAI--bge-small-en-v1.5", "BAAI--bge-small-en-v1.5-int8"} {
		if p := filepath.Join(cache, "braid", "models", dir, ModelFile); isFile(p) {
			out = append(out, p)
		}
	}
	return out
}
