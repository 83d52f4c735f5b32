package model

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	ort "github.com/yalue/onnxruntime_go"
)

// readIO must agree with ONNX Runtime on every model at hand.
func TestReadIOMatchesRuntime(t *testing.T) {
	needRuntime(t)
	paths := []string{filepath.Join(tinyEncoder, ModelFile), filepath.Join(tinyCross, ModelFile)}
	if cache, err := os.UserCacheDir(); err == nil {
		more, _ := filepath.Glob(filepath.Join(cache, "braid", "models", "*", ModelFile))
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
