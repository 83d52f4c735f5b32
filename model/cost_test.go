package model

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtures holds the architecture-exact random-weight models `make
// fixtures` writes (tools/genmodel).
const fixtures = "../.tools/fixtures"

// The registry's Arch must count what FLOPsPerToken counts in the file of
// a model of that shape, fp32 or int8: the generated fixtures have the
// real models' shapes.
func TestArchMatchesFile(t *testing.T) {
	tests := []struct{ dir, id string }{
		{"ms-marco-minilm-l6", "cross-encoder/ms-marco-MiniLM-L-6-v2"},
		{"ms-marco-minilm-l6-int8", "cross-encoder/ms-marco-MiniLM-L-6-v2:int8"},
		{"ms-marco-tinybert-l2", "cross-encoder/ms-marco-TinyBERT-L-2-v2"},
		{"ms-marco-tinybert-l2-int8", "cross-encoder/ms-marco-TinyBERT-L-2-v2:int8"},
		{"bge-reranker-base-int8", "BAAI/bge-reranker-base:int8"}, // make fixtures-xlmr
	}
	ran := 0
	for _, tt := range tests {
		p := filepath.Join(fixtures, tt.dir, ModelFile)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		ran++
		counted, err := FLOPsPerToken(p)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := Lookup(tt.id)
		est := s.Arch.FLOPsPerToken()
		if off := float64(est-counted) / float64(counted); off < -0.03 || off > 0.03 {
			t.Errorf("%s: Arch says %d FLOPs per token, the file %d (%.1f%% off, want within 3%%)", tt.id, est, counted, 100*off)
		}
		if got := TokenFLOPs(filepath.Dir(p), s); got != counted {
			t.Errorf("%s: Cost with the file = %d, want the file's %d", tt.id, got, counted)
		}
	}
	if ran == 0 {
		t.Skipf("no fixtures in %s: generate them with `make fixtures`", fixtures)
	}
	s, _ := Lookup("cross-encoder/ms-marco-TinyBERT-L-2-v2")
	if got, want := TokenFLOPs(t.TempDir(), s), s.Arch.FLOPsPerToken(); got != want {
		t.Errorf("Cost without the file = %d, want the Arch's %d", got, want)
	}
}

// Faster names the most capable registry cross-encoder of the same
// variant predicted within the target, by FLOPs per token.
func TestFaster(t *testing.T) {
	minilm, _ := Lookup("cross-encoder/ms-marco-MiniLM-L-6-v2")
	minilm8, _ := Lookup("cross-encoder/ms-marco-MiniLM-L-6-v2:int8")
	tiny, _ := Lookup("cross-encoder/ms-marco-TinyBERT-L-2-v2")
	bge, _ := Lookup("BAAI/bge-reranker-base")
	custom := Spec{Name: "my-reranker", Kind: KindCrossEncoder} // a directory: no variant
	const target = 50 * time.Millisecond
	tests := []struct {
		name string
		from Spec
		took time.Duration
		want string // "" for none
	}{
		{"minilm slow: tinybert", minilm, 900 * time.Millisecond, "cross-encoder/ms-marco-TinyBERT-L-2-v2"},
		{"int8 keeps int8", minilm8, 900 * time.Millisecond, "cross-encoder/ms-marco-TinyBERT-L-2-v2:int8"},
		{"minilm far too slow: none", minilm, 5 * time.Second, ""},
		{"bge slow: minilm, the most capable that fits", bge, 300 * time.Millisecond, "cross-encoder/ms-marco-MiniLM-L-6-v2"},
		{"bge very slow: tinybert", bge, 3 * time.Second, "cross-encoder/ms-marco-TinyBERT-L-2-v2"},
		{"tinybert slow: nothing cheaper", tiny, 90 * time.Millisecond, ""},
		{"a directory: fp32", custom, 900 * time.Millisecond, "cross-encoder/ms-marco-TinyBERT-L-2-v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flops := tt.from.Arch.FLOPsPerToken()
			if flops == 0 {
				flops = minilm.Arch.FLOPsPerToken()
			}
			s, p, ok := Faster(tt.from, flops, tt.took, target)
			if got := s.ID(); !ok && got != "" || ok != (tt.want != "") || ok && got != tt.want {
				t.Fatalf("Faster = %q, %v, %v; want %q", got, p, ok, tt.want)
			}
			if ok && (p > target || p <= 0) {
				t.Errorf("predicted %v, want within %v", p, target)
			}
		})
	}
}
